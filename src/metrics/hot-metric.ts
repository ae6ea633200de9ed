import type { Metric, MetricValueWithName, Registry } from 'prom-client';

/** What the registry reads from a metric (prom-client's MetricObjectWithValues, whose type is an enum of declarations only). */
export interface MetricSnapshot {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: MetricValueWithName<string>[];
}

/**
 * A Prometheus metric for the redirect path, with at most one label: callers keep the series of a
 * label value (`child`) and add to it directly. prom-client's own metrics, even with labels bound,
 * convert, validate and hash them on every observation, a cost the redirect path should not pay.
 * Exposed through the same registry, in the same text
 * format, by the subclass's `values`.
 */
export abstract class HotMetric<S> {
  abstract readonly type: 'counter' | 'histogram';
  readonly aggregator = 'sum';
  protected readonly series = new Map<string, S>();

  constructor(
    readonly name: string,
    readonly help: string,
    registry: Registry,
    protected readonly labelName?: string,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series of one label value (of the metric itself when it has no label). */
  child(labelValue = ''): S {
    let series = this.series.get(labelValue);
    if (!series) {
      series = this.newSeries();
      this.series.set(labelValue, series);
    }
    return series;
  }

  get(): Promise<MetricSnapshot> {
    const values = [...this.series].flatMap(([labelValue, series]) =>
      this.values(this.labelName ? { [this.labelName]: labelValue } : {}, series),
    );
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    });
  }

  abstract reset(): void;

  protected abstract newSeries(): S;

  /** The exposition lines of one series, under its labels. */
  protected abstract values(
    labels: Record<string, string>,
    series: S,
  ): MetricValueWithName<string>[];
}
