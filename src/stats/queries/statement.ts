import { Interval } from '../intervals';

/**
 * The statements of statistics are built by the pure functions of src/stats/queries on the shared
 * pieces of analytics/statement.ts, and run by StatsRepository (docs/architecture.md, "How a
 * statistic flows").
 */
export { Binder, andAll, countOf } from '../../analytics/statement';
export type { Statement } from '../../analytics/statement';

/** The type of a time parameter: a DateTime64(3, 'UTC') as chTime writes it. */
export const TIME = "DateTime64(3, 'UTC')";

/** The bucket of an interval, as ClickHouse starts it (UTC; weeks start on Monday). */
export function bucketOf(interval: Interval, column: string): string {
  switch (interval) {
    case 'hour':
      return `toStartOfHour(${column})`;
    case 'day':
      return `toStartOfDay(${column})`;
    case 'week':
      return `toDateTime(toMonday(${column}), 'UTC')`;
  }
}

/**
 * Keeps the rows of click counts that count a click: without with_bots, a link or interval whose
 * only clicks are bots' would otherwise make a row of zeros, and so a group of zeros in range
 * (bots are left out of the statistics). A filter over the projections' own aggregate: they still
 * answer the statement.
 */
export const COUNTED = 'HAVING clicks > 0';

/** A statement with a SETTINGS clause of the given settings (none: as it is). */
export function withSettings(sql: string, settings: string[]): string {
  return settings.length > 0 ? `${sql}\n       SETTINGS ${settings.join(', ')}` : sql;
}
