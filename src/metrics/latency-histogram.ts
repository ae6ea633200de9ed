import type { MetricValueWithName, Registry } from 'prom-client';
import { HotMetric } from './hot-metric';

/** One label value's observations: counts per bucket (not cumulative), sum and count. */
class Series {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    if (i < bounds.length) this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

/**
 * A Prometheus histogram with one label for the redirect path (HotMetric):
 * `child(value).observe(seconds)` is a bucket scan and three additions.
 */
export class LatencyHistogram extends HotMetric<Series> {
  readonly type = 'histogram';

  constructor(
    name: string,
    help: string,
    labelName: string,
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    super(name, help, registry, labelName);
  }

  reset(): void {
    this.series.clear();
  }

  protected newSeries(): Series {
    return new Series(this.buckets);
  }

  protected values(labels: Record<string, string>, series: Series): MetricValueWithName<string>[] {
    const bucket = `${this.name}_bucket`;
    let cumulative = 0;
    return [
      ...this.buckets.map((le, i) => {
        cumulative += series.counts[i];
        return { metricName: bucket, labels: { le, ...labels }, value: cumulative };
      }),
      { metricName: bucket, labels: { le: '+Inf', ...labels }, value: series.count },
      { metricName: `${this.name}_sum`, labels, value: series.sum },
      { metricName: `${this.name}_count`, labels, value: series.count },
    ];
  }
}
