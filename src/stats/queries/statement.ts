import type { Params } from '../../analytics/analytics-client';
import { Interval } from '../intervals';

/**
 * A statement for the analytics store: SQL text whose every value is a bound `{name:Type}`
 * parameter, and those parameters. Built by the pure functions of src/stats/queries, run by
 * StatsRepository (docs/architecture.md, "How a statistic flows").
 */
export interface Statement {
  sql: string;
  params: Params;
}

/** The type of a time parameter: a DateTime64(3, 'UTC') as chTime writes it. */
export const TIME = "DateTime64(3, 'UTC')";

/** Builds a statement's parameters: each value bound to a `{pN:Type}` placeholder, in order. */
export class Binder {
  readonly params: Params = {};
  private count = 0;

  bind = (value: unknown, type: string): string => {
    const name = `p${this.count++}`;
    this.params[name] = value;
    return `{${name}:${type}}`;
  };
}

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
 * Clicks as the projections of `clicks` hold them (stamped_hourly, stamped_totals): humans, or
 * humans and bots. Written with exactly the projections' aggregates, so ClickHouse answers from
 * them.
 */
export function countOf(withBots: boolean): string {
  return withBots ? '(countIf(is_bot = 0) + countIf(is_bot = 1))' : 'countIf(is_bot = 0)';
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

/** The ` AND c` of each condition, to follow a WHERE clause (empty without conditions). */
export function andAll(conditions: string[]): string {
  return conditions.map((c) => ` AND ${c}`).join('');
}
