import { Readable } from 'node:stream';
import {
  ClickHouseClient,
  ClickHouseClientConfigOptions,
  ClickHouseLogLevel,
  createClient,
} from '@clickhouse/client';
// Types only: the engine itself is loaded by openAnalyticsClient, and only when embedded.
import type { RawInsertParams, RawInsertSummary } from 'chdb';
import { AppError, ErrorCode } from '../common/app-error';

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

/**
 * Settings of one statement (e.g. `{ max_threads: 1 }`): they apply to that statement alone, on the
 * embedded engine as on a server.
 */
export type StatementSettings = Readonly<Record<string, number>>;

/** What the store reports of each call (the /metrics histograms and counter). */
export interface AnalyticsObserver {
  queried(seconds: number, ok: boolean): void;
  inserted(table: string, rows: number, seconds: number, ok: boolean): void;
}

/**
 * The analytics store's transport: ClickHouse SQL, one dialect, over one client API
 * (@clickhouse/client), to the embedded engine (chDB, `chdb/connection`) or a ClickHouse server over
 * HTTP. It connects, inserts, selects and maps errors; every query is written once, against it.
 */
export class AnalyticsClient {
  observer: AnalyticsObserver | null = null;

  constructor(
    private readonly client: ClickHouseClient,
    /** The database every table lives in (CLICKHOUSE_DATABASE). */
    readonly database: string,
    /** Where the data lives, for logs and health. */
    readonly description: string,
    /**
     * The embedded engine's own insert of a text payload (chDB's raw insert: the bytes go to the
     * engine's parser as they are), or null for a server, where the client streams them over HTTP.
     */
    private readonly rawInsert: RawInsert | null = null,
  ) {}

  /**
   * Whether this process is the only writer of the store (the embedded engine: its folder is locked
   * to one process), so that what a read found stays true until this process writes.
   */
  get soleWriter(): boolean {
    return this.rawInsert !== null;
  }

  /** Runs a statement that returns no rows (DDL, INSERT … SELECT). */
  async command(sql: string, params: Params = {}): Promise<void> {
    await this.timed(() => this.client.command({ query: sql, query_params: params }));
  }

  /** Runs a SELECT and returns its rows (64-bit integers may come as strings: read them with Number). */
  async query<T>(sql: string, params: Params = {}, settings: StatementSettings = {}): Promise<T[]> {
    return this.timed(async () => {
      const result = await this.client.query({
        ...this.queryOf(sql, settings),
        query_params: params,
        format: 'JSONEachRow',
      });
      return result.json<T>();
    });
  }

  /**
   * Runs a `SELECT … [WITH TOTALS] … LIMIT` and returns the page's rows, its totals row (null
   * without WITH TOTALS) and how many rows there were before the LIMIT (exact when the statement
   * sets exact_rows_before_limit). Read as JSONEachRowWithProgress, a line per row, totals and
   * count: chDB's JSON output misplaces the totals when the page is empty.
   */
  async queryPage<T>(
    sql: string,
    params: Params = {},
    settings: StatementSettings = {},
  ): Promise<Page<T>> {
    return this.timed(async () => {
      const result = await this.client.query({
        ...this.queryOf(sql, settings),
        query_params: params,
        format: 'JSONEachRowWithProgress',
      });
      const page: Page<T> = { rows: [], totals: null, before: 0 };
      for (const line of await result.json<Record<string, unknown>>()) {
        if ('row' in line) page.rows.push(line.row as T);
        else if ('totals' in line) page.totals = line.totals as T;
        else if ('rows_before_limit_at_least' in line)
          page.before = Number(line.rows_before_limit_at_least);
        else if ('exception' in line) throw new Error(String(line.exception));
      }
      return page;
    });
  }

  /** Inserts rows (objects keyed by column) as one block. */
  async insert(table: string, rows: readonly object[], options: InsertOptions = {}): Promise<void> {
    if (rows.length === 0) return;
    await this.send(table, rows.length, options, (settings) =>
      this.client.insert({
        table: `${this.database}.${table}`,
        values: rows,
        format: 'JSONEachRow',
        clickhouse_settings: settings,
      }),
    );
  }

  /**
   * Inserts `rows` rows encoded by the caller as TabSeparated text (a line per row, `columns` in
   * their order; escape values with `tsvValue`), as a string or its UTF-8 bytes, as one block: no
   * objects and no JSON on the way. The embedded engine takes the bytes as they are (raw insert); a
   * server, streamed over HTTP.
   */
  async insertTabSeparated(
    table: string,
    columns: readonly string[],
    body: string | Buffer,
    rows: number,
    options: InsertOptions = {},
  ): Promise<void> {
    if (rows === 0) return;
    const rawInsert = this.rawInsert;
    if (rawInsert) {
      const values = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      await this.send(table, rows, options, (settings) =>
        rawInsert({
          table: `${this.database}.${table}`,
          values,
          format: 'TabSeparated',
          columns,
          settings,
        }),
      );
      return;
    }
    await this.send(table, rows, options, (settings) =>
      this.client.insert({
        table: `${this.database}.${table}`,
        values: Readable.from([body], { objectMode: false }),
        format: 'TabSeparated',
        columns: [...columns] as [string, ...string[]],
        clickhouse_settings: settings,
      }),
    );
  }

  private async send(
    table: string,
    rows: number,
    options: InsertOptions,
    run: (settings: Record<string, string>) => Promise<unknown>,
  ): Promise<void> {
    const started = process.hrtime.bigint();
    let ok = false;
    try {
      await run(options.token ? { insert_deduplication_token: options.token } : {});
      ok = true;
    } catch (error) {
      throw unavailableOr(error);
    } finally {
      this.observer?.inserted(table, ok ? rows : 0, seconds(started), ok);
    }
  }

  async ping(): Promise<void> {
    const result = await this.client.ping();
    if (!result.success) throw new AnalyticsUnavailableError(result.error);
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /**
   * A statement with its own settings. A server takes them with the request; the embedded
   * connection would turn them into a `SET` that outlives the statement, so there they go into the
   * statement's SETTINGS clause.
   */
  private queryOf(
    sql: string,
    settings: StatementSettings,
  ): { query: string; clickhouse_settings?: StatementSettings } {
    if (Object.keys(settings).length === 0) return { query: sql };
    return this.rawInsert
      ? { query: withSettingsClause(sql, settings) }
      : { query: sql, clickhouse_settings: settings };
  }

  private async timed<T>(run: () => Promise<T>): Promise<T> {
    const started = process.hrtime.bigint();
    let ok = false;
    try {
      const result = await run();
      ok = true;
      return result;
    } catch (error) {
      throw unavailableOr(error);
    } finally {
      this.observer?.queried(seconds(started), ok);
    }
  }
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

function seconds(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** chDB's raw insert (`Session.insert` with bytes): a payload in a text format, parsed by the engine. */
type RawInsert = (params: RawInsertParams) => Promise<RawInsertSummary>;

/** chdb/connection (its typings need a module resolution newer than this project's). */
interface ChdbConnectionModule {
  createChdbConnection(options: {
    path: string;
  }): NonNullable<ClickHouseClientConfigOptions['connection']> & { chdb: { rawInsert: RawInsert } };
}

/** Opens the store: a ClickHouse server when `url` is given, else the embedded engine in `embeddedDir`. */
export async function openAnalyticsClient(options: {
  url: string | null;
  embeddedDir: string;
  database: string;
}): Promise<AnalyticsClient> {
  if (options.url) {
    const url = new URL(options.url);
    const client = createClient({
      url: `${url.protocol}//${url.host}`,
      username: decodeURIComponent(url.username) || 'default',
      password: decodeURIComponent(url.password),
      request_timeout: 30_000,
      // Failures reach the caller as errors (503 or a logged bug): the client's own console output would only repeat them.
      log: { level: ClickHouseLogLevel.OFF },
      // The server's own settings stay as they are: statements name their database.
      clickhouse_settings: {},
    });
    url.password = url.password ? '***' : '';
    return new AnalyticsClient(client, options.database, `ClickHouse server at ${url.origin}`);
  }
  // Loaded only here: the embedded engine (a 500 MB library) is not mapped by processes that use a server.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const chdb = require('chdb/connection') as ChdbConnectionModule;
  const connection = chdb.createChdbConnection({ path: options.embeddedDir });
  const client = createClient({ connection, log: { level: ClickHouseLogLevel.OFF } });
  return new AnalyticsClient(
    client,
    options.database,
    `embedded chDB in ${options.embeddedDir}`,
    (params) => connection.chdb.rawInsert(params),
  );
}

/** The analytics store did not answer: a request answers 503, a job retries. */
export class AnalyticsUnavailableError extends AppError {
  constructor(readonly reason: unknown) {
    super(
      503,
      ErrorCode.unavailable,
      `Statistics are temporarily unavailable: the analytics store does not answer (${messageOf(reason)}); retry shortly`,
    );
    this.name = 'AnalyticsUnavailableError';
  }
}

/**
 * A store out of reach (refused or reset connection, timeout, a closed engine) becomes
 * AnalyticsUnavailableError (503); an error of the statement itself (bad SQL, a type) stays as it
 * is: a bug, logged and answered 500.
 */
function unavailableOr(error: unknown): unknown {
  if (error instanceof AnalyticsUnavailableError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return (typeof code === 'string' && UNREACHABLE_CODES.has(code)) || UNREACHABLE.test(message)
    ? new AnalyticsUnavailableError(error)
    : error;
}

/** What a store out of reach fails with: the socket's errors, the client's timeout, a closed engine. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'CHDB_CLOSED',
  'CHDB_CONNECTION',
]);
const UNREACHABLE =
  /socket hang up|timeout error|connect ECONNREFUSED|ECONNRESET|other side closed|connection (is )?closed/i;

export function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0].slice(0, 300);
}

/**
 * A value as a TabSeparated field: NULL as \N; a backslash, tab, line feed, carriage return or NUL
 * escaped with a backslash (ClickHouse reads them back as they were); everything else as it is.
 */
export function tsvValue(value: string | null): string {
  if (value === null) return '\\N';
  return TSV_SPECIAL.test(value) ? value.replace(TSV_ESCAPES, (c) => TSV_ESCAPED[c]) : value;
}

const TSV_SPECIAL = /[\\\t\n\r\0]/;
const TSV_ESCAPES = /[\\\t\n\r\0]/g;
const TSV_ESCAPED: Record<string, string> = {
  '\\': '\\\\',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
  '\0': '\\0',
};

/** The second chTime formatted last ('YYYY-MM-DD hh:mm:ss'): a batch's clicks mostly share their second. */
let formattedSecond = NaN;
let formattedPrefix = '';

/** A DateTime64(3, 'UTC') parameter or column value: 'YYYY-MM-DD hh:mm:ss.sss'. */
export function chTime(date: Date | number): string {
  const ms = Math.floor(typeof date === 'number' ? date : date.getTime());
  const second = Math.floor(ms / 1000);
  if (second !== formattedSecond) {
    // Throws RangeError for an invalid date, as toISOString does.
    formattedPrefix = new Date(second * 1000).toISOString().slice(0, 19).replace('T', ' ');
    formattedSecond = second;
  }
  const millis = ms - second * 1000;
  return `${formattedPrefix}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}`;
}

/** A DateTime or DateTime64 value as ClickHouse writes it in JSON ('YYYY-MM-DD hh:mm:ss[.sss]', UTC). */
export function fromChTime(value: string): Date {
  return new Date(value.length === 10 ? `${value}T00:00:00Z` : `${value.replace(' ', 'T')}Z`);
}
