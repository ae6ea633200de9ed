import type { MetricValueWithName } from 'prom-client';
import { HotMetric } from './hot-metric';

/** A counter series: a plain number the hot path adds to. */
export class CounterSeries {
  value = 0;

  inc(): void {
    this.value++;
  }
}

/** A Prometheus counter for the redirect path (HotMetric): `child(value).inc()` is one addition. */
export class HotCounter extends HotMetric<CounterSeries> {
  readonly type = 'counter';

  reset(): void {
    for (const series of this.series.values()) series.value = 0;
  }

  protected newSeries(): CounterSeries {
    return new CounterSeries();
  }

  protected values(
    labels: Record<string, string>,
    series: CounterSeries,
  ): MetricValueWithName<string>[] {
    return [{ labels, value: series.value }];
  }
}
