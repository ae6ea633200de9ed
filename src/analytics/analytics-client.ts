import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import {
  ClickHouseClient,
  ClickHouseClientConfigOptions,
  ClickHouseLogLevel,
  createClient,
} from '@clickhouse/client';
// Types only: the engine itself is loaded by openAnalyticsClient, and only when embedded.
import type { RawInsertParams, RawInsertSummary } from 'chdb';
import {
  AnalyticsUnavailableError,
  ReadLimits,
  StatementCancelledError,
  analyticsError,
} from './analytics-errors';

export {
  AnalyticsLimitError,
  AnalyticsUnavailableError,
  StatementCancelledError,
  messageOf,
} from './analytics-errors';
import { ReadStatement, limitSettings, readStatement } from './read-statement';
import type {
  AnalyticsObserver,
  InsertOptions,
  Page,
  Params,
  ReadOptions,
} from './analytics-types';
import { NativeInsert, embeddedNativeInsert } from './embedded-native-insert';
import {
  OutputFormat,
  StatementStreamer,
  embeddedStreamer,
  serverStreamer,
} from './analytics-stream';

export { tsvValue } from './tsv-value';
export { chTime, fromChTime } from './ch-time';
export type { OutputFormat } from './analytics-stream';

export type { ReadLimits } from './analytics-errors';
export type { StatementSettings } from './read-statement';

export type {
  AnalyticsObserver,
  InsertOptions,
  Page,
  Params,
  ReadOptions,
} from './analytics-types';

/**
 * The analytics store's transport: ClickHouse SQL, one dialect, over one client API
 * (@clickhouse/client), to the embedded engine (chDB, `chdb/connection`) or a ClickHouse server over
 * HTTP. It connects, inserts, selects and maps errors; every query is written once, against it.
 */
export class AnalyticsClient {
  observer: AnalyticsObserver | null = null;
  /**
   * What every read (query, queryPage) may take of the store, as max_execution_time and
   * max_memory_usage (docs/api.md, "Statistics limits"); writes and DDL run to their end.
   */
  limits: ReadLimits = { seconds: 0, megabytes: 0 };

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
    /**
     * The embedded engine's insert of a Native block (a file it reads with file()), or null for a
     * server.
     */
    private readonly nativeInsert: NativeInsert | null = null,
    /** How a statement's answer is streamed (analytics-stream.ts): over HTTP, or chunks of chDB. */
    private readonly streamer: StatementStreamer = serverStreamer(client),
  ) {}

  /** Whether the store takes Native blocks (insertNative): the embedded engine does. */
  get takesNative(): boolean {
    return this.nativeInsert !== null;
  }

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
  async query<T>(sql: string, params: Params = {}, options: ReadOptions = {}): Promise<T[]> {
    return this.read(sql, options, async (statement) => {
      const result = await this.client.query({
        ...statement,
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
    options: ReadOptions = {},
  ): Promise<Page<T>> {
    return this.read(sql, options, async (statement) => {
      const result = await this.client.query({
        ...statement,
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

  /**
   * Runs a SELECT and streams its answer in one of the engine's output formats: resolves once the
   * engine answers, with bytes read from the engine only as fast as they are read (docs/architecture.md,
   * "How an export flows"). Only the memory limit applies: it runs as long as its reader reads.
   * When `signal` aborts, a server's statement is killed, the embedded engine's stops.
   */
  async stream(
    sql: string,
    params: Params,
    format: OutputFormat,
    options: ReadOptions = {},
  ): Promise<Readable> {
    const { signal } = options;
    if (signal?.aborted) throw new StatementCancelledError();
    const queryId = randomUUID();
    const settings = { ...limitSettings({ ...this.limits, seconds: 0 }), ...options.settings };
    const stopKilling = this.killOnAbort(queryId, signal);
    try {
      const stream = await this.timed(
        () => this.streamer({ sql, params, format, settings, queryId, signal }),
        signal,
      );
      stream.once('close', stopKilling);
      return stream;
    } catch (error) {
      stopKilling();
      throw error;
    }
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

  /**
   * Inserts a block in ClickHouse's Native format (native-block.ts: its columns named and typed in
   * it, `rows` rows) as one insert: the engine reads the values as they are laid out in memory, with
   * no text to parse. The embedded engine only (takesNative).
   */
  async insertNative(
    table: string,
    bytes: Buffer,
    rows: number,
    options: InsertOptions = {},
  ): Promise<void> {
    if (rows === 0) return;
    const nativeInsert = this.nativeInsert;
    if (!nativeInsert) throw new Error('insertNative: the store takes no Native blocks (a server)');
    await this.send(table, rows, options, (settings) =>
      nativeInsert(`${this.database}.${table}`, bytes, settings),
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
      throw analyticsError(error, this.limits);
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
   * Runs a read with the limits and its own settings (readStatement), under a query id of its own:
   * when `signal` aborts, the client drops the request and a server is told to kill the statement
   * (it would otherwise run on, docs/operations.md, "Statistics limits").
   */
  private async read<T>(
    sql: string,
    options: ReadOptions,
    run: (statement: ReadStatement) => Promise<T>,
  ): Promise<T> {
    const { signal } = options;
    if (signal?.aborted) throw new StatementCancelledError();
    const queryId = randomUUID();
    const settings = { ...limitSettings(this.limits), ...options.settings };
    const embedded = this.rawInsert !== null;
    const stopKilling = this.killOnAbort(queryId, signal);
    try {
      return await this.timed(
        () =>
          run({
            ...readStatement(sql, settings, { embedded }),
            query_id: queryId,
            abort_signal: signal,
          }),
        signal,
      );
    } finally {
      stopKilling();
    }
  }

  /** On a server, kills statement `queryId` when `signal` aborts; returns what stops listening. */
  private killOnAbort(queryId: string, signal: AbortSignal | undefined): () => void {
    if (!signal || this.rawInsert) return () => undefined;
    const kill = () => void this.kill(queryId);
    signal.addEventListener('abort', kill, { once: true });
    return () => signal.removeEventListener('abort', kill);
  }

  /** Asks the server to stop a statement; one that ended or never arrived is not found, which is fine. */
  private async kill(queryId: string): Promise<void> {
    try {
      // The id is ours (a UUID): 18.16 binds no parameters, so it is written in.
      await this.client.command({ query: `KILL QUERY WHERE query_id = '${queryId}' ASYNC` });
    } catch {
      // Out of reach: the server drops the statement with its connection's end, or at its limit.
    }
  }

  private async timed<T>(run: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const started = process.hrtime.bigint();
    let ok = false;
    try {
      const result = await run();
      ok = true;
      return result;
    } catch (error) {
      throw signal?.aborted ? new StatementCancelledError() : analyticsError(error, this.limits);
    } finally {
      this.observer?.queried(seconds(started), ok);
    }
  }
}

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
    embeddedNativeInsert(path.join(options.embeddedDir, 'native-inserts'), (query) =>
      client.command({ query }),
    ),
    embeddedStreamer(options.embeddedDir),
  );
}
