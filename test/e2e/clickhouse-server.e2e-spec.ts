import { randomBytes } from 'node:crypto';
import { LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  AnalyticsClient,
  AnalyticsLimitError,
  AnalyticsUnavailableError,
  StatementCancelledError,
  openAnalyticsClient,
  tsvValue,
} from '../../src/analytics/analytics-client';
import { AnalyticsModule } from '../../src/analytics/analytics.module';
import { analyticsSchema } from '../../src/analytics/analytics-schema';
import { loadConfig } from '../../src/config/app-config';
import { ConfigModule } from '../../src/config/config.module';
import { DatabaseModule } from '../../src/database/database.module';
import { MetricsModule } from '../../src/metrics/metrics.module';
import { createTestDatabase, dropTestDatabase } from '../support/app';
import { databaseUrl } from '../support/env';
import { eventually } from '../support/eventually';
import { TcpProxy, startTcpProxy } from '../support/tcp-proxy';

/**
 * The server transport of the analytics store (openAnalyticsClient with a URL: @clickhouse/client
 * over HTTP) against a real ClickHouse server: the one scripts/clickhouse-ci.sh starts (Debian's
 * clickhouse-server, 18.16) unless TEST_CLICKHOUSE_URL names another. Outages go through a TCP
 * proxy the test cuts; the server itself is never stopped.
 *
 * 18.16 runs the transport (ping, DDL, JSONEachRow inserts, selects, errors) but not the service's
 * schema nor its queries (no DateTime64, no query parameters, …): the last two describes pin
 * exactly what it refuses and that the service then stops at start, naming the refusal (what the
 * "ClickHouse server versions" in docs/operations.md says). On a current server they expect it all to run.
 */

const SERVER_URL = process.env.TEST_CLICKHOUSE_URL ?? 'http://127.0.0.1:18123';
/** The svc/secret user scripts/clickhouse-ci.sh configures (docker-compose.yml's credentials). */
const SERVER_USER_URL =
  process.env.TEST_CLICKHOUSE_USER_URL ?? withCredentials(SERVER_URL, 'svc', 'secret');

/** A store out of reach must fail fast: well under the client's 30 s request timeout. */
const OUTAGE_MS = 2_000;

function withCredentials(url: string, user: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = password;
  return parsed.toString().replace(/\/$/, '');
}

function through(proxy: TcpProxy, url = SERVER_URL): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString().replace(/\/$/, '');
}

function open(url: string, database: string): Promise<AnalyticsClient> {
  return openAnalyticsClient({ url, embeddedDir: '', database });
}

/** What a call rejects with, and how long it took. */
async function failure(call: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  try {
    await call();
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
  throw new Error('the call succeeded');
}

/**
 * The server's error code: @clickhouse/client parses it from current servers' "Code: 60. DB::Exception"
 * into `code`; 18.16 words it "Code: 60, e.displayText() = …", left in the message only.
 */
function serverCode(error: unknown): string | undefined {
  const parsed = (error as { code?: unknown } | null)?.code;
  if (typeof parsed === 'string' && parsed !== '') return parsed;
  return /^Code: (\d+)[.,]/.exec(error instanceof Error ? error.message : '')?.[1];
}

function serverPort(): number {
  const url = new URL(SERVER_URL);
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

/** A type, not an interface: rows are inserted as Record<string, unknown>. */
type Row = {
  id: number;
  name: string;
  note: string | null;
  tags: string[];
  at: string;
  big: string;
};

/** Awkward strings: quotes of both kinds, backslashes, control characters, newlines, unicode. */
const ROWS: Row[] = [
  { id: 1, name: 'plain', note: null, tags: [], at: '2024-01-31 23:59:59', big: '0' },
  {
    id: 2,
    name: `it's "quoted"`,
    note: 'back\\slash \\n not a newline',
    tags: ['a', "b'c", 'd"e'],
    at: '2024-02-01 00:00:00',
    big: '18446744073709551615',
  },
  {
    id: 3,
    name: 'line one\nline two\r\nline three',
    note: 'tab\there\u0001ctrl',
    tags: ['x\ny'],
    at: '2030-06-15 12:30:45',
    big: '9007199254740993',
  },
  {
    id: 4,
    name: 'Grüße, 日本語, Ελληνικά, עברית',
    note: '😀 👍🏽 🇫🇷',
    tags: ['ünïcödé', '🚀'],
    at: '2000-01-01 00:00:00',
    big: '42',
  },
  { id: 5, name: '', note: '', tags: [''], at: '1970-01-02 00:00:00', big: '1' },
  { id: 6, name: 'null', note: 'NULL', tags: ['\\N'], at: '2105-12-31 23:59:59', big: '2' },
];

describe('ClickHouse server transport', () => {
  const database = `svc_chs_${randomBytes(5).toString('hex')}`;
  let store: AnalyticsClient;
  let version: string;

  beforeAll(async () => {
    store = await open(SERVER_URL, database);
    await store.ping();
    [{ version }] = await store.query<{ version: string }>('SELECT version() AS version');
    await store.command(`CREATE DATABASE IF NOT EXISTS ${database}`);
    await store.command(
      `CREATE TABLE ${database}.samples (
         id UInt32,
         name String,
         note Nullable(String),
         tags Array(String),
         at DateTime('UTC'),
         big UInt64
       ) ENGINE = MergeTree
       PARTITION BY toYYYYMM(at)
       ORDER BY id`,
    );
  });
  afterAll(async () => {
    await store?.command(`DROP DATABASE IF EXISTS ${database}`);
    await store?.close();
  });

  it('pings the server and names it without its credentials', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
    expect(store.description).toBe(`ClickHouse server at ${new URL(SERVER_URL).origin}`);
    const withUser = await open(SERVER_USER_URL, database);
    try {
      expect(withUser.description).toBe(`ClickHouse server at ${new URL(SERVER_URL).origin}`);
      expect(withUser.description).not.toContain('secret');
    } finally {
      await withUser.close();
    }
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('creates the MergeTree table of its own database (DDL)', async () => {
    const tables = await store.query<{ name: string; engine: string }>(
      `SELECT name, engine FROM system.tables WHERE database = '${database}' ORDER BY name`,
    );
    expect(tables).toEqual([{ name: 'samples', engine: 'MergeTree' }]);
  });

  it('inserts JSONEachRow rows with NULLs, quotes, newlines and unicode, and selects them back exactly', async () => {
    await store.insert('samples', ROWS);
    const back = await store.query<Row>(
      `SELECT id, name, note, tags, at, big FROM ${database}.samples ORDER BY id`,
    );
    expect(back).toEqual(ROWS);
    // NULL and the strings 'NULL', 'null', '\N' and '' are five different values.
    const nulls = await store.query<{ id: number; is_null: number }>(
      `SELECT id, isNull(note) AS is_null FROM ${database}.samples ORDER BY id`,
    );
    expect(nulls).toEqual(ROWS.map((r) => ({ id: r.id, is_null: r.note === null ? 1 : 0 })));
    const [sums] = await store.query<{ rows: string; long_names: string }>(
      `SELECT count() AS rows, countIf(lengthUTF8(name) > 20) AS long_names FROM ${database}.samples`,
    );
    expect(sums).toEqual({ rows: '6', long_names: '2' });
  });

  it('inserts TabSeparated text and its bytes (the click rows) with NULLs, tabs, newlines, backslashes, NUL and unicode, and selects it back exactly', async () => {
    await store.command(
      `CREATE TABLE ${database}.tsv (id UInt32, name String, note Nullable(String)) ENGINE = MergeTree ORDER BY id`,
    );
    const values = [
      ...ROWS.map((r) => r.name),
      ...ROWS.map((r) => r.note ?? ''),
      'nul\u0000byte',
      '\\N',
      'a\\tb',
      'tab\tand\\\ttwo',
    ];
    const rows = values.map((name, i) => ({
      id: i + 1,
      name,
      note: i % 3 === 0 ? null : values[values.length - 1 - i],
    }));
    const lines = rows.map((r) => `${r.id}\t${tsvValue(r.name)}\t${tsvValue(r.note)}\n`);
    const half = Math.floor(lines.length / 2);
    // As text (conversion events), and as UTF-8 bytes (click rows, encoded a job at a time).
    await store.insertTabSeparated(
      'tsv',
      ['id', 'name', 'note'],
      lines.slice(0, half).join(''),
      half,
    );
    await store.insertTabSeparated(
      'tsv',
      ['id', 'name', 'note'],
      Buffer.from(lines.slice(half).join(''), 'utf8'),
      lines.length - half,
    );
    expect(await store.query(`SELECT id, name, note FROM ${database}.tsv ORDER BY id`)).toEqual(
      rows,
    );
  });

  it('inserts a batch the size of a click job and more (5,000 rows) as one block, every row once', async () => {
    const batch = Array.from({ length: 5_000 }, (_, i) => ({
      id: 1_000 + i,
      name: `row ${i}\n"${'é'.repeat(i % 7)}"`,
      note: i % 3 === 0 ? null : `n${i}`,
      tags: i % 2 === 0 ? [] : [`t${i}`],
      at: '2024-03-01 00:00:00',
      big: String(i),
    }));
    await store.command(`CREATE TABLE ${database}.batch AS ${database}.samples`);
    await store.insert('batch', batch);
    const [sums] = await store.query<Record<string, string>>(
      `SELECT count() AS n, uniqExact(id) AS ids, sum(big) AS big, countIf(isNull(note)) AS nulls, sum(length(tags)) AS tags
       FROM ${database}.batch`,
    );
    expect(sums).toEqual({
      n: '5000',
      ids: '5000',
      big: String((4_999 * 5_000) / 2),
      nulls: '1667',
      tags: '2500',
    });
    // One insert, one block: a single part (all rows in one month's partition).
    const parts = await store.query<{ parts: string }>(
      `SELECT count() AS parts FROM system.parts WHERE database = '${database}' AND table = 'batch' AND active`,
    );
    expect(parts).toEqual([{ parts: '1' }]);
  });

  it('logs in with the user and password of the URL, and a wrong password is a plain error (not 503)', async () => {
    const svc = await open(SERVER_USER_URL, database);
    try {
      const [{ n }] = await svc.query<{ n: string }>(
        `SELECT count() AS n FROM ${database}.samples`,
      );
      expect(n).toBe(String(ROWS.length));
    } finally {
      await svc.close();
    }
    const wrong = await open(withCredentials(SERVER_URL, 'svc', 'not-the-password'), database);
    try {
      const { error } = await failure(() => wrong.query('SELECT 1'));
      expect(error).not.toBeInstanceOf(AnalyticsUnavailableError);
      expect((error as Error).message).toMatch(/password/i);
    } finally {
      await wrong.close();
    }
  });

  it('surfaces an SQL error as a plain error, not AnalyticsUnavailableError, and keeps working', async () => {
    const missing = await failure(() => store.query(`SELECT * FROM ${database}.no_such_table`));
    expect(missing.error).not.toBeInstanceOf(AnalyticsUnavailableError);
    expect(missing.error).toBeInstanceOf(Error);
    expect(serverCode(missing.error)).toBe('60');
    expect((missing.error as Error).message).toContain(`${database}.no_such_table doesn't exist`);

    const syntax = await failure(() => store.command(`SELEC 1`));
    expect(syntax.error).not.toBeInstanceOf(AnalyticsUnavailableError);
    expect(serverCode(syntax.error)).toBe('62');

    // A row the table's types refuse: the whole block is refused, nothing of it is written.
    const typed = await failure(() =>
      store.insert('samples', [
        { ...ROWS[0], id: 7 },
        { ...ROWS[0], id: 'eight' },
      ]),
    );
    expect(typed.error).not.toBeInstanceOf(AnalyticsUnavailableError);
    expect(typed.error).toBeInstanceOf(Error);

    const ids = await store.query<{ id: number }>(`SELECT id FROM ${database}.samples ORDER BY id`);
    expect(ids.map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  describe('outage (a TCP proxy between client and server, cut and restored)', () => {
    let proxy: TcpProxy;
    let viaProxy: AnalyticsClient;
    beforeAll(async () => {
      proxy = await startTcpProxy(serverPort(), new URL(SERVER_URL).hostname);
      viaProxy = await open(through(proxy), database);
    });
    afterAll(async () => {
      await viaProxy?.close();
      await proxy?.close();
    });
    // Each test starts with the proxy up, whatever the one before it left.
    beforeEach(() => proxy.restore());

    it('rejects ping, select, insert and DDL with AnalyticsUnavailableError (503) at once, then works again on the same client', async () => {
      // A kept-alive connection exists before the cut: the cut must break it, not leave it hanging.
      await viaProxy.ping();
      expect(await viaProxy.query(`SELECT count() AS n FROM ${database}.samples`)).toEqual([
        { n: '6' },
      ]);

      await proxy.cut();
      const calls: [string, () => Promise<unknown>][] = [
        ['ping', () => viaProxy.ping()],
        ['select', () => viaProxy.query(`SELECT count() AS n FROM ${database}.samples`)],
        ['insert', () => viaProxy.insert('samples', [{ ...ROWS[0], id: 100 }])],
        [
          'command',
          () =>
            viaProxy.command(
              `CREATE TABLE IF NOT EXISTS ${database}.during_outage (x UInt8) ENGINE = Memory`,
            ),
        ],
      ];
      for (const [name, call] of calls) {
        const { error, ms } = await failure(call);
        expect([name, error]).toEqual([name, expect.any(AnalyticsUnavailableError)]);
        const unavailable = error as AnalyticsUnavailableError;
        expect([name, unavailable.status, unavailable.code]).toEqual([name, 503, 1007]);
        expect(unavailable.message).toMatch(
          /^Statistics are temporarily unavailable: the analytics store does not answer \(.+\); retry shortly$/,
        );
        expect([name, ms < OUTAGE_MS]).toEqual([name, true]);
      }

      await proxy.restore();
      await viaProxy.ping();
      // The insert refused during the outage goes in once now; the DDL too.
      await viaProxy.insert('samples', [{ ...ROWS[0], id: 100 }]);
      await viaProxy.command(
        `CREATE TABLE IF NOT EXISTS ${database}.during_outage (x UInt8) ENGINE = Memory`,
      );
      const ids = await viaProxy.query<{ id: number }>(
        `SELECT id FROM ${database}.samples WHERE id >= 100 ORDER BY id`,
      );
      expect(ids).toEqual([{ id: 100 }]);
      // Read directly, not through the proxy: the server holds exactly what the client said it wrote.
      expect(await store.query(`SELECT count() AS n FROM ${database}.samples`)).toEqual([
        { n: '7' },
      ]);
    });

    it('rejects a query in flight when the connection is cut, within a bounded time, and reconnects', async () => {
      await viaProxy.ping();
      const started = Date.now();
      // sleep(3): the server would answer after 3 s; the cut must end the call long before.
      const before = proxy.forwarded;
      const inFlight = failure(() => viaProxy.query('SELECT sleep(3) AS slept'));
      // Cut once the query has gone through the proxy (the server is working on it).
      await eventually('the query through the proxy', () => proxy.forwarded > before, 2_000);
      expect(proxy.connections).toBeGreaterThanOrEqual(1);
      const cutAt = Date.now();
      await proxy.cut();
      const { error } = await inFlight;
      const rejectedAt = Date.now();
      expect(error).toBeInstanceOf(AnalyticsUnavailableError);
      expect((error as AnalyticsUnavailableError).status).toBe(503);
      expect(rejectedAt - cutAt).toBeLessThan(OUTAGE_MS);
      expect(rejectedAt - started).toBeLessThan(3_000);

      await proxy.restore();
      expect(await viaProxy.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    });

    it('fails each call of a long outage alike and recovers on the first call after it', async () => {
      await proxy.cut();
      for (let i = 0; i < 5; i++) {
        const { error, ms } = await failure(() => viaProxy.query('SELECT 1 AS one'));
        expect(error).toBeInstanceOf(AnalyticsUnavailableError);
        expect(ms).toBeLessThan(OUTAGE_MS);
      }
      await proxy.restore();
      expect(await viaProxy.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    });
  });
  describe('limits and cancellation of reads (docs/api.md, "Statistics limits")', () => {
    let limited: AnalyticsClient;
    beforeAll(async () => {
      limited = await open(SERVER_URL, database);
    });
    afterAll(() => limited?.close());

    /** The statements of this server whose text holds `marker`, but the one looking for them. */
    async function running(marker: string): Promise<number> {
      const [{ n }] = await store.query<{ n: string }>(
        `SELECT toString(count()) AS n FROM system.processes
         WHERE position(query, '${marker}') > 0 AND position(query, 'system.processes') = 0`,
      );
      return Number(n);
    }

    it('the server takes max_execution_time and stops a read past it: 503 naming the limit', async () => {
      limited.limits = { seconds: 1, megabytes: 0 };
      const { error, ms } = await failure(() =>
        limited.query('SELECT count() AS n FROM numbers(100000000000)'),
      );
      expect(error).toBeInstanceOf(AnalyticsLimitError);
      const limit = error as AnalyticsLimitError;
      expect([limit.limit, limit.status, limit.message]).toEqual([
        'time',
        503,
        'Statistics are temporarily unavailable: the query ran past the 1 s the analytics store allows one; retry shortly, or narrow start_date/end_date',
      ]);
      expect(ms).toBeLessThan(OUTAGE_MS + 1_000);
    });

    it('the server takes max_memory_usage and stops a read past it: 400 naming what to narrow', async () => {
      limited.limits = { seconds: 0, megabytes: 0.001 };
      const { error } = await failure(() =>
        limited.query('SELECT number % 1000 AS g, count() AS n FROM numbers(100000) GROUP BY g'),
      );
      expect(error).toBeInstanceOf(AnalyticsLimitError);
      expect([(error as AnalyticsLimitError).limit, (error as AnalyticsLimitError).status]).toEqual(
        ['memory', 400],
      );
      // The limits are the reads' alone: the same statement without them runs.
      limited.limits = { seconds: 0, megabytes: 0 };
      expect(
        await limited.query(
          'SELECT count() AS n FROM (SELECT number % 1000 AS g FROM numbers(100000) GROUP BY g)',
        ),
      ).toEqual([{ n: '1000' }]);
    });

    it('a read whose signal aborts rejects at once, and the server no longer runs it (KILL QUERY)', async () => {
      limited.limits = { seconds: 60, megabytes: 0 };
      const marker = `cancel_${randomBytes(4).toString('hex')}`;
      const gone = new AbortController();
      const reading = failure(() =>
        limited.query(
          `SELECT count() AS ${marker} FROM numbers(100000000000)`,
          {},
          {
            signal: gone.signal,
          },
        ),
      );
      await eventually('the read on the server', async () => (await running(marker)) === 1, 5_000);
      gone.abort();
      const { error } = await reading;
      expect(error).toBeInstanceOf(StatementCancelledError);
      expect((error as StatementCancelledError).status).toBe(503);
      // Without the kill the server would run it on for its minute.
      await eventually('the read killed', async () => (await running(marker)) === 0, 5_000);
      // A signal aborted before the read: nothing is sent.
      await expect(
        limited.query(`SELECT 1 AS ${marker}`, {}, { signal: gone.signal }),
      ).rejects.toBeInstanceOf(StatementCancelledError);
    });
  });
  describe("the service's schema and queries on this server", () => {
    const schemaDb = `svc_chs_schema_${randomBytes(5).toString('hex')}`;
    let schemaStore: AnalyticsClient;
    beforeAll(async () => {
      schemaStore = await open(SERVER_URL, schemaDb);
    });
    afterAll(async () => {
      await schemaStore?.command(`DROP DATABASE IF EXISTS ${schemaDb}`);
      await schemaStore?.close();
    });

    /** Each statement of analyticsSchema: 'ok', or the server's error code. */
    async function runSchema(
      rewrite: (sql: string) => string = (sql) => sql,
    ): Promise<Record<string, string>> {
      await store.command(`DROP DATABASE IF EXISTS ${schemaDb}`);
      const outcome: Record<string, string> = {};
      for (const statement of analyticsSchema(schemaDb)) {
        const created = /^CREATE (?:DATABASE|TABLE|MATERIALIZED VIEW) IF NOT EXISTS (\S+)/.exec(
          statement,
        )?.[1];
        // An ALTER by its table, its first action and what that names: `ALTER clicks ADD COLUMN link_version`.
        const altered = /^ALTER TABLE (\S+)\s+(\w+) (\w+)(?: IF(?: NOT)? EXISTS)? (\w+)/.exec(
          statement,
        );
        const name = created ?? (altered ? `ALTER ${altered.slice(1).join(' ')}` : statement);
        try {
          await store.command(rewrite(statement));
          outcome[name.replace(`${schemaDb}.`, '')] = 'ok';
        } catch (error) {
          expect(error).not.toBeInstanceOf(AnalyticsUnavailableError);
          outcome[name.replace(`${schemaDb}.`, '')] = `code ${serverCode(error)}`;
        }
      }
      return outcome;
    }

    /** The stamped events' statements on 18.16: syntax (ADD COLUMN IF NOT EXISTS and projections are newer). */
    const STAMPS_ON_18_16 = {
      'ALTER clicks ADD COLUMN link_version': 'code 62',
      'ALTER conversions ADD COLUMN link_version': 'code 62',
      'ALTER clicks ADD PROJECTION stamped_hourly': 'code 62',
      'ALTER clicks ADD PROJECTION stamped_totals': 'code 62',
      'ALTER clicks DROP PROJECTION hourly': 'code 62',
      'ALTER clicks DROP PROJECTION totals': 'code 62',
      'ALTER clicks ADD INDEX link_version_minmax': 'code 62',
      'ALTER conversions ADD INDEX link_version_minmax': 'code 62',
      // Click dimensions: ADD COLUMN IF NOT EXISTS is newer than 18.16.
      'ALTER clicks ADD COLUMN country': 'code 62',
      'ALTER conversions ADD COLUMN click_id': 'code 62',
      'ALTER clicks ADD PROJECTION dimensions_hourly': 'code 62',
    };

    /**
     * The chain figures' statements on 18.16 (issue "What a click stores"): ADD … IF NOT EXISTS and
     * DROP VIEW are newer; the tables need the dedup window (36: unknown setting) or DateTime64
     * (50), and the views' source tables were refused (60).
     */
    const CHAINS_ON_18_16 = {
      'ALTER clicks ADD COLUMN chain_stamped': 'code 62',
      'ALTER conversions ADD COLUMN chain_stamped': 'code 62',
      'ALTER clicks ADD INDEX chain_stamped_minmax': 'code 62',
      'ALTER conversions ADD INDEX chain_stamped_minmax': 'code 62',
      'ALTER link_chains ADD COLUMN shared_at': 'code 62',
      'DROP VIEW IF EXISTS chain_hourly_clicks': 'code 62',
      chain_clicks_hourly: 'code 36',
      chain_clicks_hourly_view: 'code 60',
      chain_hourly: 'code 36',
      chain_hourly_conversions: 'code 60',
      chain_moves: 'code 50',
    };
    // Retention's tables (docs/architecture.md, "Retention"): DateTime64, and retired_sweeps' TTL
    // clause, newer than 18.16.
    const RETENTION_ON_18_16 = {
      retired_horizons: 'code 50',
      retired_sweeps: 'code 62',
      clicks_retired: 'code 50',
      conversions_retired: 'code 50',
    };

    const insertRow = {
      project_id: '00000000-0000-4000-8000-000000000001',
      link_id: 1,
      clicked_at: '2024-01-01 00:00:00.000',
      click_id: '00000000-0000-4000-8000-000000000002',
      referrer: null,
      user_agent: null,
      ip: null,
      is_bot: 0,
    };

    it('18.16 refuses the schema (DateTime64, the dedup window, LowCardinality), query parameters and dedup tokens; a current server runs them', async () => {
      const onThisServer = await runSchema();
      const parameterised = await store
        .query<{ s: string }>('SELECT {s:String} AS s', { s: `it's` })
        .then(
          (rows) => rows,
          (error: unknown) => error,
        );
      if (!version.startsWith('18.')) {
        expect(onThisServer).toEqual({
          [schemaDb]: 'ok',
          clicks: 'ok',
          conversions: 'ok',
          links: 'ok',
          'ALTER links MODIFY COLUMN domain': 'ok',
          'ALTER links ADD INDEX shared_at_minmax': 'ok',
          'ALTER clicks ADD COLUMN link_version': 'ok',
          'ALTER conversions ADD COLUMN link_version': 'ok',
          'ALTER clicks ADD PROJECTION stamped_hourly': 'ok',
          'ALTER clicks ADD PROJECTION stamped_totals': 'ok',
          'ALTER clicks DROP PROJECTION hourly': 'ok',
          'ALTER clicks DROP PROJECTION totals': 'ok',
          link_updates: 'ok',
          'ALTER clicks ADD INDEX link_version_minmax': 'ok',
          'ALTER conversions ADD INDEX link_version_minmax': 'ok',
          'ALTER clicks ADD COLUMN country': 'ok',
          'ALTER conversions ADD COLUMN click_id': 'ok',
          'ALTER clicks ADD PROJECTION dimensions_hourly': 'ok',
          link_chains: 'ok',
          ...Object.fromEntries(Object.keys(CHAINS_ON_18_16).map((name) => [name, 'ok'])),
        });
        expect(parameterised).toEqual([{ s: `it's` }]);
        await schemaStore.insert('clicks', [insertRow], { token: 'job-1' });
        await schemaStore.insert('clicks', [insertRow], { token: 'job-1' });
        expect(await schemaStore.query(`SELECT count() AS n FROM ${schemaDb}.clicks`)).toEqual([
          { n: '1' },
        ]);
        return;
      }
      expect(onThisServer).toEqual({
        [schemaDb]: 'ok',
        clicks: 'code 62', // syntax: its projections (hourly, totals) are newer than 18.16
        conversions: 'code 50', // Unknown data type family: DateTime64
        links: 'code 50',
        'ALTER links MODIFY COLUMN domain': 'code 60', // Table doesn't exist: links was refused
        'ALTER links ADD INDEX shared_at_minmax': 'code 62', // syntax: ADD INDEX IF NOT EXISTS is newer than 18.16
        ...STAMPS_ON_18_16,
        link_updates: 'ok',
        link_chains: 'code 62', // syntax: data-skipping indices are newer than 18.16
        ...CHAINS_ON_18_16,
        ...RETENTION_ON_18_16,
      });
      // Without projections, DateTime64 and the dedup window, the tables are made but one:
      // conversions' LowCardinality is experimental on 18.16 (allow_experimental_low_cardinality_type)
      // when a table is created with it.
      const portable = (sql: string) =>
        sql
          .replace(/,\s*PROJECTION[\s\S]*?\n(\s*\) ENGINE)/, '\n$1')
          .replace(/DateTime64\(3, 'UTC'\)/g, `DateTime('UTC')`)
          .replace(/SETTINGS non_replicated_deduplication_window = \d+/g, '');
      expect(await runSchema(portable)).toEqual({
        [schemaDb]: 'ok',
        clicks: 'ok',
        conversions: 'code 44',
        links: 'ok',
        'ALTER links MODIFY COLUMN domain': 'ok', // the experimental-type check guards CREATE, not ALTER
        'ALTER links ADD INDEX shared_at_minmax': 'code 62',
        ...STAMPS_ON_18_16,
        link_updates: 'ok',
        link_chains: 'code 62',
        ...CHAINS_ON_18_16,
        // Made without the dedup window and DateTime64; the clicks view reads the chain stamp's
        // column that ADD COLUMN IF NOT EXISTS could not add (47), conversions were refused (60).
        chain_clicks_hourly: 'ok',
        chain_clicks_hourly_view: 'code 47',
        chain_hourly: 'ok',
        chain_moves: 'ok',
        // Without DateTime64: the rollups' LowCardinality is experimental (44), the TTL newer (62).
        retired_horizons: 'ok',
        retired_sweeps: 'code 62',
        clicks_retired: 'code 44',
        conversions_retired: 'code 44',
      });
      // Every statistics query binds {name:Type} parameters: 18.16 takes param_s for a setting.
      expect(parameterised).not.toBeInstanceOf(AnalyticsUnavailableError);
      expect(serverCode(parameterised)).toBe('115');
      expect((parameterised as Error).message).toContain('Unknown setting param_s');
      // Click and conversion inserts carry a deduplication token: refused; without it the same insert goes in.
      const tokened = await failure(() =>
        schemaStore.insert('clicks', [insertRow], { token: 'job-1' }),
      );
      expect(tokened.error).not.toBeInstanceOf(AnalyticsUnavailableError);
      expect(serverCode(tokened.error)).toBe('115');
      expect((tokened.error as Error).message).toContain(
        'Unknown setting insert_deduplication_token',
      );
      await schemaStore.insert('clicks', [{ ...insertRow, clicked_at: '2024-01-01 00:00:00' }]);
      expect(
        await schemaStore.query(
          `SELECT link_id, toStartOfHour(clicked_at) AS hour, is_bot FROM ${schemaDb}.clicks`,
        ),
      ).toEqual([{ link_id: '1', hour: '2024-01-01 00:00:00', is_bot: 0 }]);
    });

    it('18.16 refuses the page format (JSONEachRowWithProgress) and the settings statistics set; a current server runs them', async () => {
      // A page of groups with its totals and the number of groups, as range and totals read them.
      const page = store
        .queryPage<{ g: number; n: string }>(
          'SELECT number % 3 AS g, count() AS n FROM numbers(10) GROUP BY g WITH TOTALS ORDER BY g LIMIT 1 OFFSET 1',
        )
        .then(
          (found) => found,
          (error: unknown) => error,
        );
      const raw = store
        .query('SELECT 1 AS one SETTINGS optimize_use_projections = 0, exact_rows_before_limit = 1')
        .then(
          (rows) => rows,
          (error: unknown) => error,
        );
      if (!version.startsWith('18.')) {
        expect(await page).toEqual({
          rows: [{ g: 1, n: '3' }],
          totals: { g: 0, n: '10' },
          before: 3,
        });
        expect(await raw).toEqual([{ one: 1 }]);
        return;
      }
      const refused = await page;
      expect(refused).not.toBeInstanceOf(AnalyticsUnavailableError);
      expect(serverCode(refused)).toBe('73');
      expect((refused as Error).message).toContain('Unknown format JSONEachRowWithProgress');
      const setting = await raw;
      expect(setting).not.toBeInstanceOf(AnalyticsUnavailableError);
      expect(serverCode(setting)).toBe('115');
      expect((setting as Error).message).toMatch(
        /Unknown setting (optimize_use_projections|exact_rows_before_limit)/,
      );
    });
  });
  describe('the analytics module (what the app opens at start) on this server', () => {
    // The link mirror it provides reads PostgreSQL: a test database of its own.
    let databaseName: string;
    beforeAll(async () => {
      databaseName = await createTestDatabase();
    });
    afterAll(() => dropTestDatabase(databaseName));

    /** The analytics module with what it needs, as the app composes it, on CLICKHOUSE_URL; its warnings collected. */
    async function startAnalytics(url: string, warnings: string[]): Promise<() => Promise<void>> {
      const config = loadConfig({
        DATABASE_URL: databaseUrl(databaseName),
        CLICKHOUSE_URL: url,
        CLICKHOUSE_DATABASE: `svc_chs_app_${randomBytes(5).toString('hex')}`,
        DATA_DIR: '/nonexistent-svc-data',
        LOG_LEVEL: 'silent',
      });
      const logger: LoggerService = {
        log: () => undefined,
        error: () => undefined,
        warn: (message: unknown) => void warnings.push(String(message)),
      };
      const module = await Test.createTestingModule({
        imports: [ConfigModule.forRoot(config), DatabaseModule, MetricsModule, AnalyticsModule],
      })
        .setLogger(logger)
        .compile();
      return async () => {
        await module.close();
        const admin = await open(SERVER_URL, config.clickhouseDatabase);
        await admin.command(`DROP DATABASE IF EXISTS ${config.clickhouseDatabase}`);
        await admin.close();
      };
    }

    it('on 18.16 stops at once with the statement the server refuses (no retries); a current server starts', async () => {
      const warnings: string[] = [];
      const started = Date.now();
      const outcome = await startAnalytics(SERVER_URL, warnings).then(
        async (close) => {
          await close();
          return 'started';
        },
        (error: unknown) => error,
      );
      if (!version.startsWith('18.')) {
        expect(outcome).toBe('started');
        return;
      }
      expect(outcome).toBeInstanceOf(Error);
      // The clicks statement's syntax error (its projections). Where 18.16 says the parse failed
      // varies with what the server ran before: at the projection (line 11), or at the column
      // list it could not finish (line 1).
      expect((outcome as Error).message).toMatch(
        new RegExp(
          `^ClickHouse server at ${new URL(SERVER_URL).origin.replace(/[.]/g, '\\.')} refused the analytics schema: ` +
            'Code: 62, e\\.displayText\\(\\) = DB::Exception: Syntax error: failed at position \\d+ \\((line 11, col 42\\): \\(clicked_at\\), link_id, countIf|line 1, col \\d+\\): \\($)',
        ),
      );
      expect((outcome as Error).cause).not.toBeInstanceOf(AnalyticsUnavailableError);
      expect(warnings).toEqual([]);
      expect(Date.now() - started).toBeLessThan(OUTAGE_MS);
    });

    it('waits for a server out of reach at start (proxy cut), then goes on when it answers', async () => {
      const proxy = await startTcpProxy(serverPort(), new URL(SERVER_URL).hostname);
      try {
        await proxy.cut();
        const warnings: string[] = [];
        const started = Date.now();
        const starting = startAnalytics(through(proxy), warnings).then(
          async (close) => {
            await close();
            return 'started';
          },
          (error: unknown) => error,
        );
        // Out of reach until it has retried twice (a warning a second), however busy the machine.
        await eventually('two warnings', () => warnings.length >= 2, 20_000);
        const restoredAt = Date.now();
        await proxy.restore();
        const outcome = await starting;
        // Waited through the outage, not failed by it: a second between the warnings.
        expect(restoredAt - started).toBeGreaterThanOrEqual(1_000);
        expect(warnings.length).toBeGreaterThanOrEqual(2);
        for (const warning of warnings) {
          expect(warning).toMatch(
            /^ClickHouse server at http:\/\/127\.0\.0\.1:\d+ does not answer yet \(Statistics are temporarily unavailable: .+\); retrying$/,
          );
        }
        if (version.startsWith('18.')) {
          // Reached: then 18.16 refuses the schema, as above.
          expect((outcome as Error).message).toContain('refused the analytics schema: Code: 62');
        } else {
          expect(outcome).toBe('started');
        }
      } finally {
        await proxy.close();
      }
    });
  });
});
