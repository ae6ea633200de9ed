import type { ReadLimits } from './analytics-errors';

/**
 * Settings of one statement (e.g. `{ max_threads: 1 }`): they apply to that statement alone, on the
 * embedded engine as on a server.
 */
export type StatementSettings = Readonly<Record<string, number>>;

/** A read as the client sends it: its text and, on a server, its settings. */
export interface ReadStatement {
  query: string;
  clickhouse_settings?: StatementSettings;
  query_id?: string;
  abort_signal?: AbortSignal;
}

/** The limits as statement settings: max_execution_time in seconds, max_memory_usage in bytes. */
export function limitSettings(limits: ReadLimits): StatementSettings {
  const settings: Record<string, number> = {};
  if (limits.seconds > 0) settings.max_execution_time = limits.seconds;
  if (limits.megabytes > 0)
    settings.max_memory_usage = Math.max(1, Math.round(limits.megabytes * 1024 * 1024));
  return settings;
}

/**
 * A read with its settings. A server takes them with the request, its time in whole seconds (an
 * older server drops a fraction: 0.5 would be no limit), rounded up. The embedded connection would
 * turn them into a `SET` that outlives the statement, so there they go into the statement's
 * SETTINGS clause.
 */
export function readStatement(
  sql: string,
  settings: StatementSettings,
  transport: { embedded: boolean },
): ReadStatement {
  if (Object.keys(settings).length === 0) return { query: sql };
  if (transport.embedded) return { query: withSettingsClause(sql, settings) };
  const time = settings.max_execution_time;
  return {
    query: sql,
    clickhouse_settings:
      time === undefined ? settings : { ...settings, max_execution_time: Math.ceil(time) },
  };
}

/**
 * `sql` with `settings` in its SETTINGS clause: added to the clause that ends it, or a clause of
 * their own. Names are words and values numbers, so nothing but a setting enters the statement.
 */
export function withSettingsClause(sql: string, settings: StatementSettings): string {
  const pairs = Object.entries(settings).map(([name, value]) => {
    if (!/^\w+$/.test(name) || !Number.isFinite(value))
      throw new Error(`bad setting ${name} = ${value}`);
    return `${name} = ${value}`;
  });
  if (pairs.length === 0) return sql;
  const statement = sql.trimEnd();
  return ENDING_SETTINGS.test(statement)
    ? `${statement}, ${pairs.join(', ')}`
    : `${statement}\nSETTINGS ${pairs.join(', ')}`;
}

/** A SETTINGS clause at the end of a statement (`SETTINGS a = 1, b = 'x'`). */
const ENDING_SETTINGS = /\sSETTINGS\s+\w+\s*=\s*[\w.']+(?:\s*,\s*\w+\s*=\s*[\w.']+)*$/;
