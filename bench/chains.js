// npm run bench:chains — share-chain statistics latency (docs/api.md, "Share chains (extension)")
// on a seeded project: 1M links, 40% of them reshares in heavy-tailed cascades (most of a few
// links, a few roots with 10,000+ descendants, depths up to 12), 10M raw clicks and their
// conversions over 90 days, through the service's HTTP API on its analytics store (embedded chDB).
// Times range by sharer with chains, range by channel with first-touch attribution and chain.json
// of the largest root against their targets, and range by channel and totals without the new
// parameters (to compare with a run of the same queries on another build). Checks each answer
// against figures the seed knows; a wrong answer is an error. Prints p50 per query and one line for
// scripts; exits 1 on an error or a missed target (a parameter or route the service does not have
// yet, answered 400 or 404 or ignored without its echo, counts as missed).
//
// Seeding (bench/chains-seed.js): the links with their chains go into PostgreSQL; then a
// short-lived child process opens the service's chDB folder, mirrors the links and their chains
// from PostgreSQL and generates the clicks and conversions inside the engine as bench:stats does;
// then the service starts on that folder.
const path = require('node:path');
const { rm, mkdir, readFile, writeFile } = require('node:fs/promises');
const { Client } = require('pg');
const lib = require('./lib');
const { seedChainLinks } = require('./chains-seed');

const LINKS = Number(process.env.BENCH_LINKS ?? 1_000_000);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 10_000_000);
// Click bursts (a link's clicks within one hour), as bench:stats.
const EVENTS = Number(process.env.BENCH_EVENTS ?? Math.round(CLICKS * 0.3));
// BENCH_OPTIMIZE=0: leave the store's parts as the inserts left them (no OPTIMIZE … FINAL).
const OPTIMIZE = process.env.BENCH_OPTIMIZE !== '0';
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
// Warm-up lasts at least this long per query (V8 optimises the request path after some hundreds of requests).
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const RANGE_DAYS = 30;
const DAYS = 90;
// Targets (p50, issue 35 "Speed"); the queries without the new parameters have none here: they are
// compared with a run of the same queries on the build before.
const TARGET_MS = { range_sharer_chain: 150, range_channel_first: 120, chain_root: 50 };

const form = (fields) =>
  Object.entries(fields)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');

const seconds = (t) => ((Date.now() - t) / 1000).toFixed(0);

async function time(task) {
  const started = process.hrtime.bigint();
  await task();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

// ---- what each answer must hold ----

const amplification = (chain, clicks) => (clicks === 0 ? null : Math.round((chain / clicks) * 10000) / 10000);

/** range by sharer with chains: a chain on the totals and every group with its amplification. */
function checkSharerChain(body) {
  const rows = [['totals', body.totals], ...body.groups.map((g) => [`sharer ${g.sharer_id}`, g])];
  for (const [label, row] of rows) {
    const chain = row.chain;
    if (!chain || typeof chain.shares !== 'number' || typeof chain.clicks !== 'number') return `${label}: chain ${JSON.stringify(chain)}`;
    if (chain.amplification !== amplification(chain.clicks, row.clicks)) {
      return `${label}: amplification ${chain.amplification}, chain.clicks / clicks = ${chain.clicks} / ${row.clicks}`;
    }
  }
  if (body.total_results < 1000) return `${body.total_results} sharers: were the sharers seeded?`;
  if (body.totals.chain.clicks === 0) return 'no chain clicks in the period';
  return null;
}

/** range by channel, first touch: the totals of last touch (a click moves to its root, never out). */
function checkChannelFirst(body, lastTouch) {
  if (body.totals.clicks !== lastTouch.totals.clicks) return `totals ${body.totals.clicks} clicks, ${lastTouch.totals.clicks} by last touch`;
  if (body.totals.shares !== lastTouch.totals.shares) return `totals ${body.totals.shares} shares, ${lastTouch.totals.shares} by last touch (shares stay with their link)`;
  const sum = body.groups.reduce((s, g) => s + g.clicks, 0);
  if (body.total_results === body.groups.length && sum !== body.totals.clicks) return `its channels add up to ${sum} clicks, not ${body.totals.clicks}`;
  return null;
}

/** chain.json of the largest root, all time: the figures the seed counted in the store. */
function checkChain(body, rootSvcId, expected) {
  const want = {
    svc_id: rootSvcId,
    root: rootSvcId,
    depth: 0,
    own_clicks: expected.ownClicks,
    shares: expected.shares,
    sharers: expected.sharers,
    clicks: expected.clicks,
    generations: expected.generations.length,
    by_generation: expected.generations,
    total_results: expected.children,
  };
  const got = {
    svc_id: body.svc_id,
    root: body.root,
    depth: body.depth,
    own_clicks: body.own?.clicks,
    shares: body.downstream?.shares,
    sharers: body.downstream?.sharers,
    clicks: body.downstream?.clicks,
    generations: body.downstream?.generations,
    by_generation: body.generations?.map((g) => ({ generation: g.generation, shares: g.shares, clicks: g.clicks })),
    total_results: body.total_results,
  };
  return JSON.stringify(got) === JSON.stringify(want) ? null : `answered ${JSON.stringify(got).slice(0, 700)}\n  expected ${JSON.stringify(want).slice(0, 700)}`;
}

async function main() {
  const { reuse, name, dataDir, sizesFile, subscriptionKey, applicationKey, serviceEnv } = await lib.seededStore();
  let service;
  const db = new Client({ connectionString: lib.databaseUrl(name) });
  const errors = [];
  try {
    await db.connect();
    let key;
    let endHour;
    let sizes;
    if (reuse) {
      ({ key, endHour, sizes } = JSON.parse(await readFile(sizesFile, 'utf8')));
      if (!sizes.largest) throw new Error(`${name} was not seeded by bench:chains`);
      endHour = new Date(endHour);
    } else {
      const t0 = Date.now();
      await mkdir(dataDir, { recursive: true });
      await db.query(`ALTER DATABASE "${name}" SET timezone = 'UTC'`);
      // The service runs the migrations on start, and makes the project.
      service = await lib.startService(serviceEnv);
      key = await lib.createProject(service.port, subscriptionKey, applicationKey, { conversions: { enabled: true, goal_1_label: 'Signup' } });
      await service.stop();
      service = undefined;
      const projectId = (await db.query('SELECT id FROM projects WHERE api_key = $1', [key])).rows[0].id;
      endHour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
      console.log(`bench:chains — seeding ${LINKS} links (${Math.round(LINKS * 0.4)} reshares in cascades), ${CLICKS} clicks (${EVENTS} bursts) over ${DAYS} days`);
      const { first, shape, largestRootId } = await seedChainLinks(db, projectId, endHour, LINKS, DAYS);
      const url = new URL(lib.databaseUrl(name));
      sizes = await lib.runSeed('chains-seed.js', {
        chdbDir: path.join(dataDir, 'chdb'),
        db: serviceEnv.CLICKHOUSE_DATABASE,
        pg: { host: `${url.hostname}:${url.port || 5432}`, database: name, user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) },
        projectId,
        first,
        links: LINKS,
        clicks: CLICKS,
        events: EVENTS,
        endHour: endHour.toISOString().slice(0, 19).replace('T', ' '),
        optimize: OPTIMIZE,
        shape,
        largestRootId,
      });
      sizes.links = LINKS;
      sizes.clicks = CLICKS;
      sizes.shape = shape;
      await writeFile(sizesFile, JSON.stringify({ key, endHour, sizes }));
      console.log(`  seeded in ${seconds(t0)} s`);
    }
    service = await lib.startService(serviceEnv);
    const root = (await db.query(`SELECT svc_id FROM links WHERE id = $1`, [sizes.largest.rootId])).rows[0].svc_id;

    const iso = (d) => d.toISOString().slice(0, 19) + 'Z';
    const period = { start_date: iso(new Date(endHour.getTime() - RANGE_DAYS * 86_400_000)), end_date: iso(endHour) };
    // The answer's status and body text: a run's clock stops at the response's last byte; the body
    // is parsed (for the checks) off the clock.
    const get = (path, params) => lib.request({ port: service.port, method: 'GET', path: `${path}?${form({ v: '3', key, ...params })}` });
    const answers = {};
    const queries = [
      // Without the new parameters first: their answers are what the checks of the others compare with.
      { kind: 'range_channel', name: `range (group_by=channel, ${RANGE_DAYS} days)`, path: '/stats/range.json', params: { ...period, group_by: 'channel' } },
      {
        kind: 'totals',
        name: `totals (group_by=campaign, with_conversions, ${RANGE_DAYS} days)`,
        path: '/stats/totals.json',
        params: { ...period, group_by: 'campaign', with_conversions: 'true' },
      },
      // The grouping range with chains adds its chains to, alone: what the chains cost on top.
      { kind: 'range_sharer', name: `range (group_by=sharer_id, ${RANGE_DAYS} days)`, path: '/stats/range.json', params: { ...period, group_by: 'sharer_id' } },
      {
        kind: 'range_sharer_chain',
        name: `range (group_by=sharer_id, with_chain, ${RANGE_DAYS} days)`,
        path: '/stats/range.json',
        params: { ...period, group_by: 'sharer_id', with_chain: 'true' },
        echo: ['with_chain', true],
        check: checkSharerChain,
      },
      {
        kind: 'range_channel_first',
        name: `range (group_by=channel, attribution=first, ${RANGE_DAYS} days)`,
        path: '/stats/range.json',
        params: { ...period, group_by: 'channel', attribution: 'first' },
        echo: ['attribution', 'first'],
        check: async (body) =>
          checkChannelFirst(body, answers.range_channel ?? JSON.parse((await get('/stats/range.json', { ...period, group_by: 'channel' })).body)),
      },
      {
        kind: 'chain_root',
        name: `chain.json (largest root, ${sizes.largest.shares} descendants, all time)`,
        path: `/stats/${encodeURIComponent(root)}/chain.json`,
        params: {},
        check: (body) => checkChain(body, root, sizes.largest),
      },
    ];

    // BENCH_QUERIES=range_channel,chain_root,… (a subset, by kind).
    const only = process.env.BENCH_QUERIES?.split(',');
    const results = [];
    for (const q of queries.filter((q) => !only || only.includes(q.kind))) {
      const first = await get(q.path, q.params);
      if (first.status !== 200) {
        // A parameter or route the service does not have yet (400 naming it, or 404): not timed.
        if (first.status !== 400 && first.status !== 404) throw new Error(`${q.name}: ${first.status} ${first.body.slice(0, 300)}`);
        console.log(`${q.name}: NOT AVAILABLE, answered ${first.status} ${first.body.slice(0, 300)}`);
        results.push({ ...q, unavailable: first.status });
        continue;
      }
      const body = JSON.parse(first.body);
      if (q.echo && body[q.echo[0]] !== q.echo[1]) {
        // A service before the parameter ignores it, as any unknown parameter: no echo.
        console.log(`${q.name}: NOT AVAILABLE, answered 200 without "${q.echo[0]}": ${JSON.stringify(q.echo[1])} (parameter ignored)`);
        results.push({ ...q, unavailable: `200, ${q.echo[0]} ignored` });
        continue;
      }
      answers[q.kind] = body;
      const problem = q.check ? await q.check(body) : null;
      if (problem) errors.push(`${q.name}: ${problem}`);
      const run = async () => {
        const res = await get(q.path, q.params);
        if (res.status !== 200) throw new Error(`${q.name}: ${res.status} ${res.body.slice(0, 300)}`);
      };
      const warmUntil = Date.now() + WARMUP_SECONDS * 1000;
      for (let i = 1; i < WARMUP || Date.now() < warmUntil; i++) await run();
      const ms = [];
      for (let i = 0; i < RUNS; i++) ms.push(await time(run));
      results.push({ ...q, p50: lib.percentile(ms, 0.5), p90: lib.percentile(ms, 0.9), bytes: first.body.length });
    }

    const { shape, largest } = sizes;
    console.log(
      `data: ${sizes.links} links (${shape.roots} roots, ${shape.reshares} reshares in ${shape.cascades} cascades, ${shape.huge} of 10,000+; ` +
        `largest ${shape.largestSize} descendants, max depth ${shape.maxDepth}), ${sizes.clicks} human clicks (${sizes.clickRows} raw click rows with bots), ` +
        `${sizes.conversionRows} conversion events, ${sizes.parts} active parts; largest root ${root}: own ${largest.ownClicks} clicks, ` +
        `downstream ${largest.clicks} clicks over ${largest.generations.length} generations`,
    );
    console.log(`${RUNS} sequential keep-alive runs each after ${WARMUP} warm-up(s) and at least ${WARMUP_SECONDS} s of them; ms`);
    console.log(`${'query'.padEnd(60)}  API p50  API p90   target    bytes`);
    const misses = [];
    for (const r of results) {
      const target = TARGET_MS[r.kind];
      let note = '';
      if (r.unavailable) {
        note = `  NOT AVAILABLE (${r.unavailable})`;
        misses.push(`${r.kind}: answered ${r.unavailable}`);
      } else if (target !== undefined && r.p50 > target) {
        note = `  MISSES TARGET (p50 > ${target} ms)`;
        misses.push(`${r.kind}: p50 > ${target} ms`);
      }
      const fixed = (v) => (v === undefined ? '-' : v.toFixed(1)).padStart(8);
      console.log(
        `${r.name.padEnd(60)} ${fixed(r.p50)} ${fixed(r.p90)} ${(target === undefined ? '-' : `≤ ${target}`).padStart(8)} ${String(r.bytes ?? '-').padStart(8)}${note}`,
      );
    }
    console.log(
      `targets: p50 range by sharer with chains ≤ ${TARGET_MS.range_sharer_chain} ms, range by channel first touch ≤ ${TARGET_MS.range_channel_first} ms, ` +
        `chain.json of the largest root ≤ ${TARGET_MS.chain_root} ms; range by channel and totals: compare with a run on the build before; ` +
        `${misses.length === 0 ? 'all met' : `missed: ${misses.join('; ')}`}`,
    );
    // One line for scripts: each query's p50 in ms (n/a when the service does not answer it, - when not run).
    console.log(
      `bench:chains ${['range_sharer_chain', 'range_channel_first', 'chain_root', 'range_channel', 'totals']
        .map((kind) => {
          const r = results.find((x) => x.kind === kind);
          return `${kind}_p50_ms=${!r ? '-' : r.unavailable ? 'n/a' : r.p50.toFixed(1)}`;
        })
        .join(' ')} missed=${misses.length}`,
    );
    if (misses.length > 0) process.exitCode = 1;
  } finally {
    await db.end().catch(() => undefined);
    if (service) await service.stop();
    if (!process.env.BENCH_KEEP_DATABASE && !reuse) {
      await lib.dropDatabase(name);
      await rm(dataDir, { recursive: true, force: true });
    } else console.log(`database kept: BENCH_REUSE_DATABASE=${name} (store in ${dataDir})`);
  }
  if (errors.length > 0) {
    for (const e of errors) console.error(`ERROR ${e}`);
    process.exit(1);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
