import type { Params } from './analytics-client';

/**
 * A statement and its bound values: for the analytics store, SQL text whose every value is a
 * `{name:Type}` parameter (Params); for PostgreSQL, `$n` placeholders and their values in order.
 * Built by the pure query functions of src/stats/queries and src/links/list, run by repositories.
 */
export interface Statement<P = Params> {
  sql: string;
  params: P;
}

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

/** The ` AND c` of each condition, to follow a WHERE clause (empty without conditions). */
export function andAll(conditions: string[]): string {
  return conditions.map((c) => ` AND ${c}`).join('');
}

/**
 * Clicks as the projections of `clicks` hold them (analytics-schema.ts: stamped_hourly,
 * stamped_totals): humans, or humans and bots. Written with exactly the projections' aggregates, so ClickHouse answers
 * from them.
 */
export function countOf(withBots: boolean): string {
  return withBots ? '(countIf(is_bot = 0) + countIf(is_bot = 1))' : 'countIf(is_bot = 0)';
}
