// Profiling aid for issue 44 ("What a click stores", point 1; not a benchmark): the CPU of storing a
// click row in the embedded store, split into the TabSeparated parse, the column groups (click,
// stamp, dimensions), each projection and the minmax index, and their merges; and what the issue's
// options would cost (a narrow raw table, rollups by materialized views or pre-aggregated in
// JavaScript, narrower types, the rows as Native blocks read from a file).
// Usage: node bench/profile/insert-costs.js [rows per variant, 300000] [only the variants whose name holds this]
//
// A fresh embedded store in a temporary folder (removed at the end, failure or not); the rows as the
// worker writes them (ClicksRepository.encode's line: the click, its link's stamp, its dimensions,
// described by the worker's own code: DB-IP places, Bowser agents, referring hosts) in blocks of
// COALESCE_MAX_ROWS, through the service's insert (AnalyticsClient.insertTabSeparated: chDB's raw
// insert, a deduplication token a block). The Native variants (e, f) take the same blocks as Native
// files, written by the engine from the TSV before the clock starts (the bytes ClickNativeBlock
// writes: the same types, LowCardinality columns as dictionaries), each inserted with INSERT …
// SELECT FROM file(…, 'Native'), as AnalyticsClient.insertNative does. Each variant's tables are
// made anew for each of three repetitions; medians.
//
// How the CPU is read. chDB has no system.query_log or system.part_log: clickhouse-local, its
// engine, creates no system log tables, even with a config file that defines them (checked: the
// config is read, the tables never appear). So, for two windows per variant — the inserts, with
// merges stopped (SYSTEM STOP MERGES), then the merges, started and driven by OPTIMIZE … FINAL
// until each table is one part —
// - the engine's own count: the delta of system.events' OSCPUVirtualTimeMicroseconds (its
//   ProfileEvents, process-wide: every query's and merge's threads), less what reading it costs;
// - every thread's CPU: process.cpuUsage() less Node's main thread (which only waits), split by
//   /proc/self/task/*/schedstat into Node's own threads (those that exist before chDB is loaded:
//   libuv's pool, where chDB runs each statement, and V8's helpers) and the engine's (every thread
//   that appears later). The calling thread's work is not in the engine's count; the engine's
//   threads' is (for the inserts the two agree within 0.2 µs a row; for the merges the count
//   exceeds the CPU every thread used by a quarter to a third: both are printed).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');
const { randomUUID, createHash } = require('node:crypto');
const { openAnalyticsClient, chTime, tsvValue } = require('../../dist/analytics/analytics-client');
const {
  analyticsSchema,
  LINK_STAMP_COLUMNS,
  ENRICHMENT_COLUMNS,
} = require('../../dist/analytics/analytics-schema');
const { COALESCE_MAX_ROWS } = require('../../dist/clicks/click-blocks');
const { CLICK_COLUMNS } = require('../../dist/clicks/clicks.repository');
const { GeoLookup } = require('../../dist/enrichment/geo-lookup');
const { describeAgent, DEVICE_CLASSES } = require('../../dist/enrichment/user-agent');
const { referrerHost } = require('../../dist/enrichment/referrer');
const { storedIp } = require('../../dist/common/ip');
const lib = require('../lib');

const ROWS = Number(process.argv[2] ?? 300_000);
/** Only the variants whose name holds this text (all by default). */
const ONLY = process.argv[3] ?? '';
const BLOCK = COALESCE_MAX_ROWS;
const REPS = 3;
const DB = 'svc';
/** The signal that asked the run to stop, if one did. */
let stopping = null;
const checkStop = () => {
  if (stopping) throw new Error(`stopped by ${stopping}`);
};
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

// ---- The clicks: 100 links of two projects (Zipf), ~60 agents and 2% bots, ~20 referrers (40%
// direct), 3,000 client addresses (one in eight IPv6), a block a second within one hour.
function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(44);
const pick = (list) => list[Math.floor(random() * list.length)];
// The agents (each template in a few versions, most used most, then the bots'), referrers and
// public address space of bench:ingest (bench/lib.js).
const AGENTS = [...lib.AGENTS, ...lib.BOT_AGENTS];
const HUMAN_AGENTS = lib.AGENTS.length;
const BOT_AGENTS = lib.BOT_AGENTS;
const REFERRERS = lib.REFERRERS.map((r, k) => r?.replace('%h', (k * 7919).toString(16)) ?? null);
const { PUBLIC_V4 } = lib;
const hex = (n) => (n >>> 0).toString(16);
const IPS = Array.from({ length: 3000 }, (_, i) => {
  const x = Math.imul(i + 1, 2654435761) >>> 0;
  if (i % 8 === 7) return `2a0${x % 4}:${hex(x >>> 16)}:${hex(x & 0xffff)}::${hex(i)}`;
  return `${PUBLIC_V4[(x >>> 24) % PUBLIC_V4.length]}.${(x >>> 16) & 255}.${(x >>> 8) & 255}.${x & 255}`;
});
const PROJECTS = [randomUUID(), randomUUID()];
const T0 = Date.UTC(2026, 10, 28, 10, 0, 0);

/** A link's stamp (LINK_STAMP_COLUMNS, as LinkStamps reads it with formatRowNoNewline): TSV fields. */
function stampOf(id) {
  const array = (values) => `[${values.map((v) => `'${v}'`).join(',')}]`;
  const channel = pick(['twitter', 'facebook', 'linkedin', 'email', 'instagram', null]);
  const fields = {
    link_version: String((T0 - 86_400_000 * (1 + (id % 30))) * 1000 + id),
    domain: id % 3 ? 'go.example.com' : 'svc.link',
    channel,
    service: channel === 'email' ? 'mailchimp' : channel,
    tool: pick(['web', 'api', 'scheduler']),
    application: pick(['dashboard', 'buffer', 'hootsuite', 'zapier']),
    campaign: pick([
      'black-friday-2026',
      'newsletter-48',
      'spring-launch',
      'holiday-gift-guide',
      null,
    ]),
    tag: pick(['promo', 'product', 'blog', 'press', null]),
    tag_2: array(pick([[], ['q4'], ['q4', 'retail'], ['evergreen']])),
    tag_3: array(pick([[], [], ['paid']])),
    tag_4: array([]),
    tag_5: array([]),
    parent: id % 4 === 0 ? `s${(id * 7919).toString(36)}` : null,
    sharer_id: `sharer-${1 + (id % 12)}`,
    username: pick(['@acme', '@acme_support', '@jane_doe', '@acme_deals']),
    service_userid: String(1_400_000_000_000_000_000n + BigInt(id % 12) * 7919n),
    user_id: `u_${1 + (id % 12)}`,
    shared_at: chTime(T0 - 86_400_000 * (1 + (id % 30))),
  };
  return LINK_STAMP_COLUMNS.map(([name]) =>
    name.startsWith('tag_') ? fields[name] : tsvValue(fields[name]),
  ).join('\t');
}

/** The clicks: per row, indexes into the lists above, and the block's second. */
function makeClicks(geo) {
  const links = Array.from({ length: 100 }, (_, k) => {
    const id = k + 1;
    const stamp = stampOf(id);
    return {
      id: String(id),
      project: k < 70 ? 0 : 1,
      stamp,
      version: stamp.slice(0, stamp.indexOf('\t')),
    };
  });
  const zipf = links.flatMap((_, k) => Array.from({ length: Math.ceil(1000 / (k + 1)) }, () => k));
  const places = IPS.map((ip) => geo.place(ip));
  const countries = [
    null,
    ...new Set(places.map((p) => p?.country ?? null).filter((c) => c !== null)),
  ];
  const country = Uint16Array.from(places, (p) => countries.indexOf(p?.country ?? null));
  const agents = AGENTS.map((a) => describeAgent(a));
  const hosts = REFERRERS.map((r) => referrerHost(r));
  const link = new Uint8Array(ROWS);
  const agent = new Uint8Array(ROWS);
  const referrer = new Uint8Array(ROWS);
  const ip = new Uint16Array(ROWS);
  const ids = new Array(ROWS);
  for (let i = 0; i < ROWS; i++) {
    link[i] = pick(zipf);
    agent[i] =
      random() < 0.02
        ? HUMAN_AGENTS + (i % BOT_AGENTS.length)
        : Math.floor(random() * HUMAN_AGENTS);
    referrer[i] = Math.floor(random() * REFERRERS.length);
    ip[i] = Math.floor(random() * IPS.length);
    ids[i] = randomUUID();
  }
  const atOf = (i) => T0 + Math.floor(i / BLOCK) * 1000 + Math.floor(((i % BLOCK) * 1000) / BLOCK);
  const field = (v) => tsvValue(v);
  const dims = (i) => {
    const p = places[ip[i]];
    const a = agents[agent[i]];
    return `${p ? `${field(p.country)}\t${field(p.region)}\t${field(p.city)}` : '\\N\t\\N\t\\N'}\t${field(a.device)}\t${field(a.browser)}\t${field(a.os)}\t${field(hosts[referrer[i]])}\t1`;
  };
  const storedIps = IPS.map((a) => field(storedIp(a, 'anonymised')));
  const click = (i) => {
    const l = links[link[i]];
    return `${PROJECTS[l.project]}\t${l.id}\t${chTime(atOf(i))}\t${ids[i]}\t${field(REFERRERS[referrer[i]])}\t${field(AGENTS[agent[i]])}\t${storedIps[ip[i]]}\t${agent[i] >= HUMAN_AGENTS ? 1 : 0}`;
  };
  return {
    links,
    places,
    country,
    agents,
    link,
    agent,
    referrer,
    ip,
    atOf,
    click,
    dims,
    blocks: Math.ceil(ROWS / BLOCK),
  };
}

// ---- The column lists of the inserts.
/** The click's own columns (the worker's line starts with them: ClicksRepository's CLICK_COLUMNS). */
const CLICK = CLICK_COLUMNS.slice(0, CLICK_COLUMNS.indexOf('is_bot') + 1);
const STAMP = LINK_STAMP_COLUMNS.map(([name]) => name);
const DIMENSIONS = [...ENRICHMENT_COLUMNS];
const NARROW = [...CLICK, 'link_version', ...DIMENSIONS];
const ATTRIBUTES = STAMP.slice(1);

/** The TSV of rows from..to-1 for a column list, the worker's line order kept. */
function lines(clicks, columns, from, to) {
  const parts = new Array(to - from);
  for (let i = from; i < to; i++) {
    const l = clicks.links[clicks.link[i]];
    let line = clicks.click(i);
    if (columns.includes('domain')) line += `\t${l.stamp}`;
    else if (columns.includes('link_version')) line += `\t${l.version}`;
    if (columns.includes('country')) line += `\t${clicks.dims(i)}`;
    parts[i - from] = `${line}\n`;
  }
  return Buffer.from(parts.join(''), 'utf8');
}

/**
 * Option c's rollup blocks, counted as the worker could while encoding: per (project, hour, link,
 * version) with the link's attributes, and per (project, hour, country, device, browser, os).
 */
function rollups(clicks, from, to) {
  const stamped = new Map();
  const dimensions = new Map();
  for (let i = from; i < to; i++) {
    const hour = Math.floor(clicks.atOf(i) / 3_600_000);
    const bot = clicks.agent[i] >= HUMAN_AGENTS ? 1 : 0;
    const link = clicks.link[i];
    const linkKey = hour * 128 + link;
    const s = stamped.get(linkKey) ?? stamped.set(linkKey, [0, 0]).get(linkKey);
    s[bot]++;
    // Keyed by the address's country and the agent: agents of the same device, browser and os are folded below.
    const dimKey =
      ((hour * 2 + clicks.links[link].project) * 1024 + clicks.country[clicks.ip[i]]) * 128 +
      clicks.agent[i];
    const d = dimensions.get(dimKey) ?? dimensions.set(dimKey, [0, 0, i]).get(dimKey);
    d[bot]++;
  }
  const hourText = (h) => chTime(h * 3_600_000).slice(0, 19);
  const stampedLines = [...stamped].map(([key, [humans, bots]]) => {
    const l = clicks.links[key % 128];
    return `${PROJECTS[l.project]}\t${hourText(Math.floor(key / 128))}\t${l.id}\t${l.stamp}\t${humans}\t${bots}\n`;
  });
  const folded = new Map();
  for (const [key, [humans, bots, i]] of dimensions) {
    const p = clicks.places[clicks.ip[i]];
    const a = clicks.agents[clicks.agent[i]];
    const row = `${PROJECTS[clicks.links[clicks.link[i]].project]}\t${hourText(Math.floor(key / (2 * 1024 * 128)))}\t${tsvValue(p?.country ?? null)}\t${tsvValue(a.device)}\t${tsvValue(a.browser)}\t${tsvValue(a.os)}`;
    const f = folded.get(row) ?? folded.set(row, [0, 0]).get(row);
    f[0] += humans;
    f[1] += bots;
  }
  const dimensionLines = [...folded].map(([row, [humans, bots]]) => `${row}\t${humans}\t${bots}\n`);
  return {
    stamped: { body: Buffer.from(stampedLines.join('')), rows: stampedLines.length },
    dimensions: { body: Buffer.from(dimensionLines.join('')), rows: dimensionLines.length },
  };
}

// ---- The variants: their tables (made anew each repetition), the tables merged, their inserts.
function variants(service, osValues) {
  const { types, engine, projections, index } = service;
  const columns = (names, override = {}) =>
    names.map((n) => `${n} ${override[n] ?? types[n]}`).join(', ');
  const mergeTree = (name, names, override) =>
    `CREATE TABLE ${DB}.${name} (${columns(names, override)}) ENGINE = ${engine}`;
  const nullTable = (name, names) => `CREATE TABLE ${DB}.${name} (${columns(names)}) ENGINE = Null`;
  const addProjection = (table, name) =>
    `ALTER TABLE ${DB}.${table} ADD PROJECTION ${name} (${projections[name]})`;
  const addIndex = (table) =>
    `ALTER TABLE ${DB}.${table} ADD INDEX ${index.name} ${index.expr} TYPE ${index.type} GRANULARITY ${index.granularity}`;
  const FULL = [...CLICK, ...STAMP, ...DIMENSIONS];
  const groups = (name, label, names) => ({
    name: label,
    tables: [mergeTree(name, names)],
    merged: [name],
    inserts: [{ table: name, columns: names }],
  });
  const withProjections = (name, label, list, withIndex = false) => ({
    name: label,
    tables: [
      mergeTree(name, FULL),
      ...list.map((p) => addProjection(name, p)),
      ...(withIndex ? [addIndex(name)] : []),
    ],
    merged: [name],
    inserts: [{ table: name, columns: FULL }],
  });
  const enumOf = (values) =>
    `Nullable(Enum8(${values.map((v, k) => `'${v}' = ${k + 1}`).join(', ')}))`;
  const narrowTypes = {
    country: 'Nullable(FixedString(2))',
    device: enumOf(DEVICE_CLASSES),
    os: enumOf(osValues),
    ...Object.fromEntries(
      [
        'referrer',
        'user_agent',
        'parent',
        'sharer_id',
        'username',
        'service_userid',
        'user_id',
      ].map((c) => [c, 'LowCardinality(Nullable(String))']),
    ),
  };
  // any() of an Array(LowCardinality(String)) returns Array(String), which the column must be.
  const anyType = (type) => type.replace('Array(LowCardinality(String))', 'Array(String)');
  const rollupTables = (prefix) => [
    `CREATE TABLE ${DB}.${prefix}_stamped (project_id UUID, hour DateTime('UTC'), link_id UInt64, link_version UInt64,
       ${ATTRIBUTES.map((a) => `${a} SimpleAggregateFunction(any, ${anyType(types[a])})`).join(', ')},
       humans SimpleAggregateFunction(sum, UInt64), bots SimpleAggregateFunction(sum, UInt64))
     ENGINE = AggregatingMergeTree PARTITION BY toYYYYMM(hour) ORDER BY (project_id, hour, link_id, link_version)
     SETTINGS non_replicated_deduplication_window = 10000`,
    `CREATE TABLE ${DB}.${prefix}_dimensions (project_id UUID, hour DateTime('UTC'),
       ${['country', 'device', 'browser', 'os'].map((c) => `${c} ${types[c]}`).join(', ')},
       humans SimpleAggregateFunction(sum, UInt64), bots SimpleAggregateFunction(sum, UInt64))
     ENGINE = AggregatingMergeTree PARTITION BY toYYYYMM(hour) ORDER BY (project_id, hour, country, device, browser, os)
     SETTINGS allow_nullable_key = 1, non_replicated_deduplication_window = 10000`,
  ];
  const rollupInserts = (prefix) => [
    {
      table: `${prefix}_stamped`,
      columns: ['project_id', 'hour', 'link_id', ...STAMP, 'humans', 'bots'],
      rollup: 'stamped',
    },
    {
      table: `${prefix}_dimensions`,
      columns: ['project_id', 'hour', 'country', 'device', 'browser', 'os', 'humans', 'bots'],
      rollup: 'dimensions',
    },
  ];
  const counts = 'countIf(is_bot = 0) AS humans, countIf(is_bot = 1) AS bots';
  return [
    {
      name: 'parse: 8 click columns (Null table)',
      tables: [nullTable('p8', CLICK)],
      merged: [],
      inserts: [{ table: 'p8', columns: CLICK }],
    },
    {
      name: 'parse: + 18 stamp columns (Null)',
      tables: [nullTable('p26', [...CLICK, ...STAMP])],
      merged: [],
      inserts: [{ table: 'p26', columns: [...CLICK, ...STAMP] }],
    },
    {
      name: "parse: + 8 dimension columns (Null): the worker's line",
      tables: [nullTable('p34', FULL)],
      merged: [],
      inserts: [{ table: 'p34', columns: FULL }],
    },
    groups('g8', 'stored: 8 click columns', CLICK),
    groups('g26', 'stored: + 18 stamp columns', [...CLICK, ...STAMP]),
    groups('g34', 'stored: + 8 dimension columns', FULL),
    withProjections('j1', '+ projection stamped_hourly', ['stamped_hourly']),
    withProjections('j2', '+ projection stamped_totals', ['stamped_hourly', 'stamped_totals']),
    withProjections('j3', '+ projection dimensions_hourly', [
      'stamped_hourly',
      'stamped_totals',
      'dimensions_hourly',
    ]),
    withProjections(
      'j4',
      '+ minmax index on link_version',
      ['stamped_hourly', 'stamped_totals', 'dimensions_hourly'],
      true,
    ),
    {
      name: "the service's clicks (analyticsSchema)",
      service: true,
      tables: [],
      merged: ['clicks'],
      inserts: [{ table: 'clicks', columns: FULL }],
    },
    {
      name: 'a. narrow raw clicks',
      tables: [mergeTree('a_raw', NARROW)],
      merged: ['a_raw'],
      inserts: [{ table: 'a_raw', columns: NARROW }],
    },
    {
      name: 'b. Null input → views: a + 2 rollups',
      tables: [
        nullTable('b_input', FULL),
        mergeTree('b_raw', NARROW),
        ...rollupTables('b'),
        `CREATE MATERIALIZED VIEW ${DB}.b_raw_view TO ${DB}.b_raw AS SELECT ${NARROW.join(', ')} FROM ${DB}.b_input`,
        `CREATE MATERIALIZED VIEW ${DB}.b_stamped_view TO ${DB}.b_stamped AS
           SELECT project_id, toStartOfHour(clicked_at) AS hour, link_id, link_version,
             ${ATTRIBUTES.map((a) => `any(${a}) AS ${a}`).join(', ')}, ${counts}
           FROM ${DB}.b_input GROUP BY project_id, hour, link_id, link_version`,
        `CREATE MATERIALIZED VIEW ${DB}.b_dimensions_view TO ${DB}.b_dimensions AS
           SELECT project_id, toStartOfHour(clicked_at) AS hour, country, device, browser, os, ${counts}
           FROM ${DB}.b_input GROUP BY project_id, hour, country, device, browser, os`,
      ],
      merged: ['b_raw', 'b_stamped', 'b_dimensions'],
      inserts: [{ table: 'b_input', columns: FULL }],
    },
    {
      name: 'c. a + 2 rollups pre-aggregated in JS',
      tables: [mergeTree('c_raw', NARROW), ...rollupTables('c')],
      merged: ['c_raw', 'c_stamped', 'c_dimensions'],
      inserts: [{ table: 'c_raw', columns: NARROW }, ...rollupInserts('c')],
    },
    {
      name: "c's 2 rollup blocks alone",
      tables: rollupTables('r'),
      merged: ['r_stamped', 'r_dimensions'],
      inserts: rollupInserts('r'),
    },
    {
      name: "d. the service's table, narrower types",
      tables: [
        mergeTree('d_full', FULL, narrowTypes),
        ...['stamped_hourly', 'stamped_totals', 'dimensions_hourly'].map((p) =>
          addProjection('d_full', p),
        ),
        addIndex('d_full'),
      ],
      merged: ['d_full'],
      inserts: [{ table: 'd_full', columns: FULL }],
    },
    {
      name: "e. the service's clicks, Native through file()",
      service: true,
      tables: [],
      merged: ['clicks'],
      inserts: [{ table: 'clicks', columns: FULL, native: true }],
    },
    {
      name: 'f. narrow raw clicks, Native through file()',
      tables: [mergeTree('f_raw', NARROW)],
      merged: ['f_raw'],
      inserts: [{ table: 'f_raw', columns: NARROW, native: true }],
    },
    {
      name: 'a + d. narrow raw clicks, narrower types',
      tables: [mergeTree('ad_raw', NARROW, narrowTypes)],
      merged: ['ad_raw'],
      inserts: [{ table: 'ad_raw', columns: NARROW }],
    },
  ];
}

// ---- Readings.
const MAIN_TID = String(process.pid);
/**
 * Node's own threads (its main thread, libuv's pool, V8's helpers), listed before chDB is loaded:
 * every thread that appears later is the engine's. Thread names do not tell them apart: the engine
 * renames the libuv thread a statement ran on ("Unknown").
 */
let nodeThreads = new Set();
async function listNodeThreads() {
  // Some asynchronous file reads start libuv's pool.
  await Promise.all(Array.from({ length: 8 }, () => fs.promises.readFile(__filename)));
  nodeThreads = new Set(fs.readdirSync('/proc/self/task'));
}

/** CPU ns so far: Node's main thread, its other threads (chDB's calling threads among them), the engine's threads, the whole process. */
function threadCpu() {
  const cpu = { main: 0, calling: 0, engine: 0, process: 0 };
  for (const tid of fs.readdirSync('/proc/self/task')) {
    let ns;
    try {
      ns = Number(fs.readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      continue; // the thread ended meanwhile: its CPU is in the process's
    }
    if (tid === MAIN_TID) cpu.main += ns;
    else if (nodeThreads.has(tid)) cpu.calling += ns;
    else cpu.engine += ns;
  }
  const usage = process.cpuUsage();
  cpu.process = (usage.user + usage.system) * 1000;
  return cpu;
}

const median = (values) => {
  const sorted = [...values].sort((x, y) => x - y);
  const m = sorted.length >> 1;
  return sorted.length % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
};

async function main(dir) {
  await listNodeThreads();
  const store = await openAnalyticsClient({
    url: null,
    embeddedDir: path.join(dir, 'store'),
    database: DB,
  });
  // Also on an exit the promise chain does not see (an uncaught error, process.exit): registered
  // after chDB's own exit hook, so it runs after the store is closed.
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  try {
    await profile(store);
  } finally {
    await store.close();
  }
}

async function profile(store) {
  const command = (sql) => store.command(sql);
  const query = (sql, params) => store.query(sql, params);
  const schema = analyticsSchema(DB);
  for (const statement of schema) await command(statement);
  // The service's clicks as the schema leaves them: column types, engine, projections, index.
  const types = Object.fromEntries(
    (
      await query(
        `SELECT name, type FROM system.columns WHERE database = '${DB}' AND table = 'clicks'`,
      )
    ).map((r) => [r.name, r.type]),
  );
  const [{ engine_full: engine }] = await query(
    `SELECT engine_full FROM system.tables WHERE database = '${DB}' AND name = 'clicks'`,
  );
  const projections = Object.fromEntries(
    (
      await query(
        `SELECT name, query FROM system.projections WHERE database = '${DB}' AND table = 'clicks'`,
      )
    ).map((r) => [r.name, r.query]),
  );
  const [index] = await query(
    `SELECT name, type, expr, granularity FROM system.data_skipping_indices WHERE database = '${DB}' AND table = 'clicks'`,
  );

  const geo = new GeoLookup(null);
  await geo.load(IPS);
  const clicks = makeClicks(geo);
  const osValues = [...new Set(clicks.agents.map((a) => a.os).filter((o) => o !== null))];
  const list = variants({ types, engine, projections, index }, osValues).filter((v) =>
    v.name.includes(ONLY),
  );

  const engineCpu = async () =>
    Number(
      (
        await query("SELECT value FROM system.events WHERE event = 'OSCPUVirtualTimeMicroseconds'")
      )[0]?.value ?? 0,
    );
  // What a reading of system.events adds to the engine's count (each window holds one).
  const readCosts = [];
  for (let k = 0; k < 7; k++) {
    const before = await engineCpu();
    readCosts.push((await engineCpu()) - before);
  }
  const readCost = median(readCosts);

  // Option c's JavaScript: the counting and the rollup lines, timed apart (the event loop's work),
  // the second pass of two (the first compiles it).
  let rollupNs = 0n;
  let rollupBlocks = [];
  for (let pass = 0; pass < 2; pass++) {
    rollupNs = 0n;
    rollupBlocks = [];
    for (let b = 0; b < clicks.blocks; b++) {
      const started = process.hrtime.bigint();
      rollupBlocks.push(rollups(clicks, b * BLOCK, Math.min(ROWS, (b + 1) * BLOCK)));
      rollupNs += process.hrtime.bigint() - started;
    }
  }
  const rollupRows = {
    stamped: rollupBlocks.reduce((s, r) => s + r.stamped.rows, 0),
    dimensions: rollupBlocks.reduce((s, r) => s + r.dimensions.rows, 0),
  };

  const nativeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'insert-costs-native-'));
  process.on('exit', () => fs.rmSync(nativeDir, { recursive: true, force: true }));
  /** A TSV block as a Native file of the same columns, typed as `table`'s (a Memory table between). */
  async function toNative(table, columns, body, rows, file) {
    await command(`DROP TABLE IF EXISTS ${DB}.native_stage SYNC`);
    await command(`CREATE TABLE ${DB}.native_stage AS ${DB}.${table} ENGINE = Memory`);
    await store.insertTabSeparated('native_stage', columns, body, rows);
    await command(
      `INSERT INTO FUNCTION file('${file}', 'Native') SELECT ${columns.join(', ')} FROM ${DB}.native_stage SETTINGS engine_file_truncate_on_insert = 1`,
    );
    await command(`DROP TABLE ${DB}.native_stage SYNC`);
  }

  const results = new Map(list.map((v) => [v.name, []]));
  for (let rep = 0; rep < REPS; rep++) {
    for (const variant of list) {
      results.get(variant.name).push(await run(variant));
      process.stderr.write(`rep ${rep + 1}: ${variant.name}\n`);
    }
  }

  async function dropAll() {
    const tables = await query(
      `SELECT name FROM system.tables WHERE database = '${DB}' AND name NOT IN ('conversions', 'links', 'link_updates', 'link_chains') ORDER BY engine = 'MaterializedView' DESC`,
    );
    for (const { name } of tables) await command(`DROP TABLE ${DB}.${name} SYNC`);
  }

  async function run(variant) {
    await dropAll();
    if (variant.service) for (const statement of schema) await command(statement);
    for (const statement of variant.tables) await command(statement);
    // The blocks, encoded before the clock starts.
    const blocks = [];
    let bytes = 0;
    for (let b = 0; b < clicks.blocks; b++) {
      const from = b * BLOCK;
      const to = Math.min(ROWS, from + BLOCK);
      const token = `clicks:${to - from}:${createHash('sha256').update(`${randomUUID()}`).digest('hex')}`;
      for (const insert of variant.inserts) {
        const body = insert.rollup
          ? rollupBlocks[b][insert.rollup].body
          : lines(clicks, insert.columns, from, to);
        const rows = insert.rollup ? rollupBlocks[b][insert.rollup].rows : to - from;
        const block = { ...insert, body, rows, token: `${token}:${insert.table}` };
        if (insert.native) {
          // The block as a Native file, written by the engine from the TSV before the clock starts.
          block.file = path.join(nativeDir, `${insert.table}-${b}.native`);
          await toNative(insert.table, insert.columns, body, rows, block.file);
          block.body = null;
          bytes += fs.statSync(block.file).size;
        } else bytes += body.length;
        blocks.push(block);
      }
    }
    gc();
    await command('SYSTEM STOP MERGES');
    const e0 = await engineCpu();
    const t0 = threadCpu();
    for (const block of blocks) {
      checkStop();
      if (block.file) {
        await command(
          `INSERT INTO ${DB}.${block.table} (${block.columns.join(', ')}) SELECT * FROM file('${block.file}', 'Native') SETTINGS insert_deduplication_token = '${block.token}'`,
        );
      } else {
        await store.insertTabSeparated(block.table, block.columns, block.body, block.rows, {
          token: block.token,
        });
      }
    }
    const t1 = threadCpu();
    const e1 = await engineCpu();
    blocks.length = 0;
    // The merges: started, then driven until each table is one part, none merging.
    await command('SYSTEM START MERGES');
    let reads = 0;
    for (const table of variant.merged) {
      for (;;) {
        checkStop();
        await command(`OPTIMIZE TABLE ${DB}.${table} FINAL`);
        const [state] = await query(
          `SELECT (SELECT count() FROM system.parts WHERE database = '${DB}' AND table = {t:String} AND active) AS parts,
                  (SELECT count() FROM system.merges WHERE database = '${DB}' AND table = {t:String}) AS merging`,
          { t: table },
        );
        reads++;
        if (Number(state.parts) <= 1 && Number(state.merging) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const t2 = threadCpu();
    const e2 = await engineCpu();
    const perRow = (ns) => ns / 1000 / ROWS;
    const nonMain = (a, b) => b.process - a.process - (b.main - a.main);
    return {
      bytes: bytes / ROWS,
      insert: perRow(nonMain(t0, t1)),
      calling: perRow(t1.calling - t0.calling),
      engineThreads: perRow(nonMain(t0, t1) - (t1.calling - t0.calling)),
      engineCount: (e1 - e0 - readCost) / ROWS,
      merge: perRow(nonMain(t1, t2)),
      mergeCount: (e2 - e1 - readCost * (1 + reads)) / ROWS,
    };
  }

  // The table (markdown), medians of the repetitions.
  const f = (x) => (Math.abs(x) < 0.05 ? '0' : x.toFixed(1));
  console.log(
    `\nnode bench/profile/insert-costs.js ${ROWS}: ${ROWS.toLocaleString('en-US')} click rows a variant in blocks of ${BLOCK.toLocaleString('en-US')}, ${REPS} repetitions, medians (all threads: range); µs of CPU a click row`,
  );
  console.log(
    `${os.cpus().length} cores (${os.cpus()[0].model}), Node ${process.version}, chDB engine ${(await query('SELECT version() AS v'))[0].v}\n`,
  );
  console.log(
    "| variant | TSV bytes a row | insert, all threads | of which Node's threads (chDB's calling thread) | of which the engine's threads | insert, the engine's count | merges, all threads | merges, the engine's count |",
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const variant of list) {
    const r = results.get(variant.name);
    const m = (key) => median(r.map((x) => x[key]));
    // The all-threads figures with their range over the repetitions.
    const ranged = (key) =>
      `${f(m(key))} (${f(Math.min(...r.map((x) => x[key])))}–${f(Math.max(...r.map((x) => x[key])))})`;
    const merges = variant.merged.length ? [ranged('merge'), f(m('mergeCount'))] : ['—', '—'];
    console.log(
      `| ${variant.name} | ${Math.round(m('bytes'))} | ${ranged('insert')} | ${f(m('calling'))} | ${f(m('engineThreads'))} | ${f(m('engineCount'))} | ${merges.join(' | ')} |`,
    );
  }
  console.log(
    `\nc's rollup blocks: ${(rollupRows.stamped / clicks.blocks).toFixed(0)} stamped and ${(rollupRows.dimensions / clicks.blocks).toFixed(0)} dimension rows a block; ` +
      `counting and writing them in JavaScript: ${(Number(rollupNs) / 1000 / ROWS).toFixed(2)} µs a click (event loop, not in the table).`,
  );
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'insert-costs-'));
const cleanUp = () => fs.rmSync(dir, { recursive: true, force: true });
// A signal stops the run after the statement in flight (the store is closed, then its folder
// removed: removed under a running statement, the engine would write parts into it again); a
// second one exits at once.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (stopping) {
      cleanUp();
      process.exit(130);
    }
    stopping = signal;
  });
}
main(dir).then(cleanUp, (error) => {
  cleanUp();
  console.error(stopping ? `stopped (${stopping})` : String(error?.stack ?? error).slice(0, 2000));
  process.exitCode = stopping ? 130 : 1;
});
