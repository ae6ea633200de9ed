import type { StatementSettings } from './read-statement';

/** The shapes AnalyticsClient takes and answers (analytics-client.ts re-exports them). */

/** Query parameters, bound by the engine as ClickHouse `{name:Type}` placeholders, never spliced into SQL. */
export type Params = Record<string, unknown>;

export interface InsertOptions {
  /**
   * insert_deduplication_token: an insert whose token the table saw among its last inserts
   * (non_replicated_deduplication_window) is skipped.
   */
  token?: string;
}

/** A page of a `SELECT … [WITH TOTALS] … LIMIT`: its rows, its totals row (null without WITH TOTALS) and the rows before the LIMIT. */
export interface Page<T> {
  rows: T[];
  totals: T | null;
  before: number;
}

/** How one read runs. */
export interface ReadOptions {
  /** Settings of this statement alone, besides the limits every read carries. */
  settings?: StatementSettings;
  /**
   * Aborted when the answer is no longer wanted (its client went away): a server kills the
   * statement; the embedded engine does not start it, or lets it finish unread (docs/operations.md,
   * "Statistics limits").
   */
  signal?: AbortSignal;
}

/** What the store reports of each call (the /metrics histograms and counter). */
export interface AnalyticsObserver {
  queried(seconds: number, ok: boolean): void;
  inserted(table: string, rows: number, seconds: number, ok: boolean): void;
}
