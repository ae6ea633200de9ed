import { Counter, Histogram } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service';
import { AnalyticsObserver } from './analytics-client';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/** /metrics of the analytics store: query and insert latency, rows inserted. */
export class AnalyticsMetrics implements AnalyticsObserver {
  private readonly querySeconds: Histogram<'outcome'>;
  private readonly insertSeconds: Histogram<'table' | 'outcome'>;
  private readonly rowsInserted: Counter<'table'>;

  constructor(metrics: MetricsService) {
    const registers = [metrics.registry];
    this.querySeconds = new Histogram({
      name: 'svc_analytics_query_duration_seconds',
      help: 'Time of analytics store queries and statements, by outcome (ok, error)',
      labelNames: ['outcome'],
      buckets: BUCKETS,
      registers,
    });
    this.insertSeconds = new Histogram({
      name: 'svc_analytics_insert_duration_seconds',
      help: 'Time of inserts into the analytics store, by table and outcome (ok, error)',
      labelNames: ['table', 'outcome'],
      buckets: BUCKETS,
      registers,
    });
    this.rowsInserted = new Counter({
      name: 'svc_analytics_rows_inserted_total',
      help: 'Rows inserted into the analytics store (deduplicated inserts included), by table',
      labelNames: ['table'],
      registers,
    });
  }

  queried(seconds: number, ok: boolean): void {
    this.querySeconds.observe({ outcome: ok ? 'ok' : 'error' }, seconds);
  }

  inserted(table: string, rows: number, seconds: number, ok: boolean): void {
    this.insertSeconds.observe({ table, outcome: ok ? 'ok' : 'error' }, seconds);
    if (rows > 0) this.rowsInserted.inc({ table }, rows);
  }
}
