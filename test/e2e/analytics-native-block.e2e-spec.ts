import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AnalyticsClient, openAnalyticsClient } from '../../src/analytics/analytics-client';
import { LINK_STAMP_COLUMNS, analyticsSchema } from '../../src/analytics/analytics-schema';
import { LinkStamps, stampFields } from '../../src/analytics/link-stamps';
import { CLICK_COLUMN_TYPES } from '../../src/clicks/click-native-block';
import {
  FixedColumn,
  LowCardinalityArrayColumn,
  LowCardinalityColumn,
  NativeBlock,
  NullableStringColumn,
  nativeColumn,
  uint64Bytes,
  utf8Bytes,
  uuidBytes,
} from '../../src/analytics/native-block';

/**
 * Native blocks (src/analytics/native-block.ts) read back through the embedded engine: every column
 * type in the engine's own layout, whatever its values (nulls, empty strings, any bytes, dictionaries
 * past 256 and 65,536 keys, rows without elements), inserted once per deduplication token.
 */
describe('Native blocks in the embedded store', () => {
  let dir: string;
  let store: AnalyticsClient;
  const db = 'native_block_test';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-native-'));
    store = await openAnalyticsClient({ url: null, embeddedDir: dir, database: db });
    await store.command(`CREATE DATABASE IF NOT EXISTS ${db}`);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const COLUMNS = [
    ['id', 'UInt64'],
    ['u', 'UUID'],
    ['at', "DateTime64(3, 'UTC')"],
    ['flag', 'UInt8'],
    ['s', 'Nullable(String)'],
    ['lc', 'LowCardinality(String)'],
    ['lcn', 'LowCardinality(Nullable(String))'],
    ['arr', 'Array(LowCardinality(String))'],
  ] as const;

  async function table(name: string): Promise<void> {
    await store.command(`DROP TABLE IF EXISTS ${db}.${name} SYNC`);
    await store.command(
      `CREATE TABLE ${db}.${name} (${COLUMNS.map(([n, t]) => `${n} ${t}`).join(', ')})
       ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100`,
    );
  }

  interface Row {
    id: string;
    u: string;
    at: number;
    flag: number;
    s: string | null;
    lc: string;
    lcn: string | null;
    arr: string[];
  }

  /** A block of COLUMNS' columns, each as its writer. */
  function columnsOf(block: NativeBlock) {
    return block.columns as [
      FixedColumn,
      FixedColumn,
      FixedColumn,
      FixedColumn,
      NullableStringColumn,
      LowCardinalityColumn,
      LowCardinalityColumn,
      LowCardinalityArrayColumn,
    ];
  }

  function blockOf(rows: Row[]): NativeBlock {
    const block = new NativeBlock(COLUMNS.map(([n, t]) => nativeColumn(n, t)));
    const [id, u, at, flag, s, lc, lcn, arr] = columnsOf(block);
    for (const row of rows) {
      id.encoded(uint64Bytes(row.id));
      // Both ways of writing a UUID.
      if (Number(row.id) % 2) u.uuid(row.u);
      else u.encoded(uuidBytes(row.u));
      at.u64(row.at);
      flag.u8(row.flag);
      s.push(row.s === null ? null : utf8Bytes(row.s));
      lc.push(row.lc);
      lcn.push(row.lcn);
      arr.push(row.arr);
    }
    return block;
  }

  async function stored(name: string): Promise<Row[]> {
    const rows = await store.query<Omit<Row, 'at'> & { at: string }>(
      `SELECT toString(id) AS id, toString(u) AS u, toUnixTimestamp64Milli(at) AS at, flag, s,
              toString(lc) AS lc, lcn, arr
       FROM ${db}.${name} ORDER BY toUInt64(id)`,
    );
    return rows.map((r) => ({ ...r, at: Number(r.at), flag: Number(r.flag) }));
  }

  const uuid = (i: number) =>
    `${i.toString(16).padStart(8, '0')}-89ab-cdef-0011-${(0xffffffffffff - i).toString(16).padStart(12, '0')}`;

  it('stores every column type as written: nulls, empty strings, any bytes, 64-bit ids, ms times', async () => {
    await table('kinds');
    const rows: Row[] = [
      {
        id: '1',
        u: uuid(1),
        at: Date.UTC(2026, 10, 28, 10, 0, 0, 1),
        flag: 0,
        s: null,
        lc: '',
        lcn: null,
        arr: [],
      },
      {
        id: '18446744073709551615',
        u: 'ffffffff-ffff-ffff-ffff-ffffffffffff',
        at: Date.UTC(2106, 1, 7, 6, 28, 15, 999),
        flag: 1,
        s: '',
        lc: 'twitter',
        lcn: '',
        arr: [''],
      },
      {
        id: '9007199254740993',
        u: '00000000-0000-0000-0000-000000000000',
        at: 0,
        flag: 1,
        s: 'tab\tline\nback\\slash \'quote\' "dq" \0 é 日本 🎉',
        lc: 'é 日本 🎉',
        lcn: 'twitter',
        arr: ['q4', 'retail', 'q4'],
      },
      {
        id: '3',
        u: uuid(3),
        at: Date.UTC(2026, 0, 1),
        flag: 0,
        s: 'x'.repeat(300),
        lc: 'twitter',
        lcn: null,
        arr: ['é 日本 🎉'],
      },
    ];
    const block = blockOf(rows);
    await store.insertNative('kinds', block.bytes(), block.rows);
    const byId = (a: Row, b: Row) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1);
    expect(await stored('kinds')).toEqual([...rows].sort(byId));
    // The files the engine read are gone.
    expect(readdirSync(path.join(dir, 'native-inserts'))).toEqual([]);
  });

  it('writes dictionaries of any size: positions one, two and four bytes wide', async () => {
    await table('wide');
    const rows: Row[] = Array.from({ length: 70_000 }, (_, i) => ({
      id: String(i),
      u: uuid(i),
      at: 1_700_000_000_000 + i,
      flag: i % 2,
      s: i % 7 === 0 ? null : `s${i}`,
      lc: `v${i % 300}`,
      lcn: i % 5 === 0 ? null : `w${i}`,
      arr: i % 3 === 0 ? [] : [`a${i}`, `b${i % 3}`],
    }));
    const block = blockOf(rows);
    const bytes = block.bytes();
    // What it holds counts its columns' values as well as the block's bytes (a block grown past
    // MAX_KEPT_SINK_BYTES is let go).
    expect(block.capacity).toBeGreaterThan(1.9 * bytes.length);
    await store.insertNative('wide', bytes, block.rows);
    const back = await stored('wide');
    expect(back.length).toBe(rows.length);
    // The rows that differ (a diff of 70,000 rows would be unreadable).
    expect(
      back.filter((row, i) => JSON.stringify(row) !== JSON.stringify(rows[i])).slice(0, 3),
    ).toEqual([]);
  });

  it('is written again after clear(), and a block whose token the table saw is skipped', async () => {
    await table('again');
    const block = blockOf([]);
    const write = (from: number) => {
      block.clear();
      const [id, u, at, flag, s, lc, lcn, arr] = columnsOf(block);
      for (let i = from; i < from + 3; i++) {
        id.encoded(uint64Bytes(String(i)));
        u.encoded(uuidBytes(uuid(i)));
        at.u64(i);
        flag.u8(0);
        s.push(null);
        lc.pushPosition(lc.position(`k${i}`));
        lcn.pushPosition(lcn.position(null));
        arr.pushPositions([]);
      }
      return block.bytes();
    };
    await store.insertNative('again', write(0), 3, { token: 'first' });
    await store.insertNative('again', write(10), 3, { token: 'second' });
    await store.insertNative('again', write(20), 3, { token: 'first' });
    expect((await stored('again')).map((r) => [r.id, r.lc])).toEqual([
      ['0', 'k0'],
      ['1', 'k1'],
      ['2', 'k2'],
      ['10', 'k10'],
      ['11', 'k11'],
      ['12', 'k12'],
    ]);
  });

  it("writes clicks in the types of the store's clicks table (no conversion on insert)", async () => {
    for (const statement of analyticsSchema(db)) await store.command(statement);
    const columns = await store.query<{ name: string; type: string }>(
      `SELECT name, type FROM system.columns WHERE database = {db:String} AND table = 'clicks'`,
      { db },
    );
    const types = new Map(columns.map((c) => [c.name, c.type]));
    expect(CLICK_COLUMN_TYPES.map(([name]) => [name, types.get(name)])).toEqual(
      CLICK_COLUMN_TYPES.map(([name, type]) => [name, type]),
    );
  });

  it('reads a stamp line as the engine writes it back to its values (stampFields), whatever the attributes hold', async () => {
    for (const statement of analyticsSchema(db)) await store.command(statement);
    const project = '01234567-89ab-cdef-0011-223344556677';
    const odd = 'tab\there \\ \'quote\' "dq" \\N é 日本 🎉\nline';
    const links = [
      {
        link_id: 1,
        version: 7,
        svc_id: 'a',
        domain: 'go.example',
        original_url: 'https://e.x/',
        channel: odd,
        service: null,
        tool: '',
        application: 'app',
        campaign: '\\N',
        tag: null,
        tag_2: [odd, '', "it's"],
        tag_3: [],
        tag_4: ['\\'],
        tag_5: ['a,b', "]'["],
        parent: null,
        sharer_id: odd,
        username: '',
        service_userid: null,
        service_postid: null,
        user_id: 'u',
        created_at: '2026-11-28 10:00:00.000',
        shared_at: '2026-11-28 10:00:00.123',
      },
      {
        link_id: 2,
        version: 8,
        svc_id: 'b',
        domain: '',
        original_url: 'https://e.x/',
        channel: null,
        service: '',
        tool: 't',
        application: '',
        campaign: null,
        tag: '',
        tag_2: [],
        tag_3: [''],
        tag_4: [],
        tag_5: [],
        parent: '',
        sharer_id: null,
        username: null,
        service_userid: '',
        service_postid: null,
        user_id: null,
        created_at: '1970-01-01 00:00:00.000',
        shared_at: '1970-01-01 00:00:00.000',
      },
    ].map((link) => ({ project_id: project, ...link }));
    await store.insert('links', links);
    const lines = await new LinkStamps(store).of([project], ['1', '2']);
    const stamp = LINK_STAMP_COLUMNS.map(([name]) => name);
    const expected = await store.query<Record<string, unknown>>(
      `SELECT toString(link_id) AS id, toString(version) AS link_version,
              ${stamp.slice(1, -1).join(', ')}, toUnixTimestamp64Milli(shared_at) AS shared_at
       FROM ${db}.links FINAL WHERE project_id = {project:UUID} ORDER BY link_id`,
      { project },
    );
    for (const row of expected) {
      // Then the chain: stamped, no ancestors (neither link has a row in link_chains: a root).
      expect(stampFields(lines.get(row.id as string)!)).toEqual([
        ...stamp.map((name) => (name === 'shared_at' ? Number(row[name]) : row[name])),
        1,
        [],
      ]);
    }
  });

  it('refuses a block whose columns hold different numbers of rows, and null in a column that is not Nullable', () => {
    const block = new NativeBlock([
      nativeColumn('a', 'UInt8'),
      nativeColumn('b', 'LowCardinality(String)'),
    ]);
    (block.columns[0] as FixedColumn).u8(1);
    expect(() => block.bytes()).toThrow('column b has 0 rows, not 1');
    expect(() => (block.columns[1] as LowCardinalityColumn).push(null)).toThrow(TypeError);
    expect(() => uuidBytes('not-a-uuid')).toThrow(TypeError);
    const u = nativeColumn('u', 'UUID') as FixedColumn;
    for (const bad of [
      '0123456789abcdef0011223344556677',
      '01234567-89ab-cdef-0011-22334455667g',
      '01234567+89ab-cdef-0011-223344556677',
      '01234567-89ab-cdef-0011-2233445566é7',
    ])
      expect(() => u.uuid(bad)).toThrow(TypeError);
    expect(u.count).toBe(0);
  });
});
