// npm run bench:stats — statistics latency on a seeded project (1M links over 90 days, 10M raw
// clicks), through the service's HTTP API on its analytics store (embedded chDB), against the
// previous PostgreSQL design (hourly rollups and per-link totals, read by hand-written SQL) filled
// from the same click and conversion events, side by side. Both answers are compared; a difference
// is an error. Range by click dimensions (country and device), which that design did not have, is
// timed through the API alone, its totals checked against range's. Prints p50 per query, the
// speed-up and the targets missed.
//
// Seeding: the links go into PostgreSQL (the API reads them) through SQL; then a short-lived child
// process (bench/stats-seed.js) opens the service's chDB folder, mirrors the links from PostgreSQL
// (postgresql() table function), generates the raw clicks (with their click dimensions) and
// conversions inside the engine and, for
// the baseline, writes the old rollup tables into PostgreSQL from them; then the service starts on
// that folder.
const path = require('node:path');
const { rm, mkdir, readFile, writeFile } = require('node:fs/promises');
const { Client } = require('pg');
const lib = require('./lib');
const { LINK_TOTALS_BACKFILL } = require('../dist/database/migrations/1763940000000-link-totals');
const { AnalyticsStore1763970000000 } = require('../dist/database/migrations/1763970000000-analytics-store');

const LINKS = Number(process.env.BENCH_LINKS ?? 1_000_000);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 10_000_000);
// Click bursts (a link's clicks within one hour) before they are spelled out as raw clicks: ~3.3
// clicks per burst by default, as the rollup rows of earlier versions of this bench.
const EVENTS = Number(process.env.BENCH_EVENTS ?? Math.round(CLICKS * 0.3));
// BENCH_BASELINE=0: no PostgreSQL baseline (only the API is timed), e.g. at 100M clicks.
const BASELINE = process.env.BENCH_BASELINE !== '0';
// BENCH_OPTIMIZE=0: leave the store's parts as the inserts left them (no OPTIMIZE … FINAL).
const OPTIMIZE = process.env.BENCH_OPTIMIZE !== '0';
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
// BENCH_QUERIES: run only some of the queries (see main).
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
// Warm-up also lasts at least this long per query: the service's request path is only optimised
// by V8 after some hundreds of requests, and a quick query (intervals) would otherwise be timed
// while the service is still in its interpreter.
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const RANGE_DAYS = Number(process.env.BENCH_RANGE_DAYS ?? 30);
const TOTALS_DAYS = 30;
const DAYS = 90;
// Targets (p50) up to 10M clicks: range 80 ms, range by click dimensions 100 ms, totals 45 ms,
// intervals 15 ms (both ranges 1 s above 10M clicks, totals 100 ms, intervals 20 ms), and the API
// at least 5x faster than the previous PostgreSQL design (range by click dimensions has no
// PostgreSQL counterpart).
const targetsFor = (clicks) => ({
  range: clicks > 10_000_000 ? 1000 : 80,
  dimensions: clicks > 10_000_000 ? 1000 : 100,
  totals: clicks > 10_000_000 ? 100 : 45,
  intervals: clicks > 10_000_000 ? 20 : 15,
});
const TARGET_SPEEDUP = 5;

const CHANNELS = ['twitter', 'facebook-post', 'email', 'copypaste', 'linkedin', 'facebook-share', 'whatsapp', 'reddit', 'pinterest', 'sms'];
const SERVICES = ['twitter', 'facebook', 'email', 'copypaste', 'linkedin', 'facebook', 'whatsapp', 'reddit', 'pinterest', 'sms'];
const GOAL_NUMBERS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const SHARED_AT = 'COALESCE(l.service_postid_shared_at, l.created_at)';

const form = (fields) =>
  Object.entries(fields)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');

const seconds = (t) => ((Date.now() - t) / 1000).toFixed(0);

/**
 * Links, straight into PostgreSQL, set-based, reproducible (setseed): created uniformly over the 90
 * days before `endHour` (ids in creation order), channel skewed towards the first of the list, 50
 * campaigns (every 10th link none), 1000 tags skewed, 5% with a post time 10 minutes after creation.
 */
async function seedLinks(db, projectId, endHour) {
  const t0 = Date.now();
  await db.query(`SET work_mem = '256MB'`);
  await db.query(`SET maintenance_work_mem = '512MB'`);
  // The seed writes consistent rows; foreign-key triggers would only slow it down.
  await db.query(`SET session_replication_role = replica`);
  await db.query(`SELECT setseed(0.42)`);
  await db.query(
    `INSERT INTO links (project_id, svc_id, domain, path, original_url, redirect_url, channel, service, tool, application,
                        campaign, tag, service_postid, service_postid_shared_at, created_at, updated_at)
     SELECT $1, 'bench.svc_b' || i, 'bench.svc', 'b' || i, 'https://example.com/a/' || i, 'https://example.com/a/' || i,
            ($4::text[])[c], ($5::text[])[c], 'bench-tool', 'bench',
            CASE WHEN i % 10 = 0 THEN NULL ELSE 'campaign-' || lpad(((i * 7) % 50)::text, 2, '0') END,
            'tag-' || lpad(t::text, 4, '0'),
            CASE WHEN i % 20 = 0 THEN 'twitter:' || i END,
            CASE WHEN i % 20 = 0 THEN created + interval '10 minutes' END,
            created, created
     FROM (
       SELECT i, 1 + floor(10 * random() ^ 1.5)::int AS c, floor(1000 * random() ^ 2)::int AS t,
              $2::timestamptz - make_interval(days => ${DAYS}) + (i - 1 + random()) * (make_interval(days => ${DAYS}) / $3) AS created
       FROM generate_series(1, $3::int) i
     ) s`,
    [projectId, endHour, LINKS, CHANNELS, SERVICES],
  );
  await db.query(`SET session_replication_role = DEFAULT`);
  await db.query(`VACUUM ANALYZE links`);
  console.log(`  links: ${LINKS} in PostgreSQL in ${seconds(t0)} s`);
}


/**
 * The previous design's tables (link_clicks_hourly, link_conversions_hourly, their per-link totals
 * and triggers, the shared-time index), as the migration that dropped them restores them, with
 * their triggers off while the seed fills the rollups.
 */
async function createBaselineTables(db) {
  const runner = { query: (sql) => db.query(sql) };
  await new AnalyticsStore1763970000000().down(runner);
  for (const table of ['link_clicks_hourly', 'link_conversions_hourly']) await db.query(`ALTER TABLE ${table} DISABLE TRIGGER ALL`);
}

/** After the rollups are filled: triggers back on, the per-link totals as the migration fills them, ANALYZE. */
async function finishBaselineTables(db) {
  const t0 = Date.now();
  for (const table of ['link_clicks_hourly', 'link_conversions_hourly']) await db.query(`ALTER TABLE ${table} ENABLE TRIGGER ALL`);
  await db.query(`SET work_mem = '256MB'`);
  for (const statement of LINK_TOTALS_BACKFILL) await db.query(statement);
  for (const table of ['links', 'link_clicks_hourly', 'link_conversions_hourly', 'link_click_totals', 'link_conversion_totals']) {
    await db.query(`VACUUM ANALYZE ${table}`);
  }
  console.log(`  baseline per-link totals and ANALYZE in ${seconds(t0)} s`);
}

// ---- the hand-written SQL for each request, and the comparable figures of each answer ----

// The period's rollup rows joined to their links, plus one row per link shared in the period,
// summed per (channel, tag) in parallel, then rolled up to channels and the total.
const RANGE_SQL = `
  WITH r AS (
    SELECT l.channel, l.tag, h.clicks, false AS shared
    FROM link_clicks_hourly h JOIN links l ON l.id = h.link_id
    WHERE h.project_id = $1 AND h.hour >= $2 AND h.hour < $3 AND l.project_id = $1
    UNION ALL
    SELECT l.channel, l.tag, 0, true FROM links l
    WHERE l.project_id = $1 AND ${SHARED_AT} >= $2 AND ${SHARED_AT} < $3),
  ct AS (SELECT channel, tag, SUM(clicks) AS clicks, COUNT(*) FILTER (WHERE shared) AS shares FROM r GROUP BY channel, tag)
  SELECT GROUPING(channel, tag) AS level, channel, tag, SUM(clicks)::bigint AS clicks, SUM(shares)::int AS shares
  FROM ct GROUP BY GROUPING SETS ((), (channel), (channel, tag))
  ORDER BY level DESC, clicks DESC, channel, tag`;

async function rangeBySql(db, projectKey, start, end) {
  const project = (await db.query(`SELECT id FROM projects WHERE api_key = $1`, [projectKey])).rows[0].id;
  const rows = (await db.query(RANGE_SQL, [project, start, end])).rows;
  const total = rows.find((r) => r.level === 3);
  const groups = rows.filter((r) => r.level === 1);
  const page = groups.slice(0, 10);
  return {
    totals: { clicks: Number(total?.clicks ?? 0), shares: total?.shares ?? 0 },
    total_results: groups.length,
    groups: page.map((g) => ({
      channel: g.channel,
      clicks: Number(g.clicks),
      shares: g.shares,
      pivots: rows.filter((r) => r.level === 0 && r.channel === g.channel).map((p) => ({ tag: p.tag, clicks: Number(p.clicks), shares: p.shares })),
    })),
  };
}

function rangeOfApi(body) {
  return {
    totals: { clicks: body.totals.clicks, shares: body.totals.shares },
    total_results: body.total_results,
    groups: body.groups.map((g) => ({
      channel: g.channel,
      clicks: g.clicks,
      shares: g.shares,
      pivots: g.pivots.map((p) => ({ tag: p.tag, clicks: p.clicks, shares: p.shares })),
    })),
  };
}

const TOTALS_SQL = `
  SELECT l.campaign, COUNT(*)::int AS shares, COALESCE(SUM(t.clicks), 0)::bigint AS clicks, COALESCE(SUM(v.pageviews), 0)::bigint AS pageviews,
         ${GOAL_NUMBERS.map((n) => `COALESCE(SUM(v.goal_${n}_count), 0)::bigint AS g${n}c, COALESCE(SUM(v.goal_${n}_value), 0)::bigint AS g${n}v`).join(', ')}
  FROM links l
  LEFT JOIN link_click_totals t ON t.link_id = l.id
  LEFT JOIN link_conversion_totals v ON v.link_id = l.id
  WHERE l.project_id = $1 AND ${SHARED_AT} >= $2 AND ${SHARED_AT} < $3
  GROUP BY l.campaign
  ORDER BY clicks DESC, l.campaign`;

const conversionsOf = (row) => ({
  pageviews: Number(row.pageviews),
  goals: GOAL_NUMBERS.map((n) => [Number(row[`g${n}c`]), Number(row[`g${n}v`])]),
});

async function totalsBySql(db, projectKey, start, end) {
  const project = (await db.query(`SELECT id FROM projects WHERE api_key = $1`, [projectKey])).rows[0].id;
  const rows = (await db.query(TOTALS_SQL, [project, start, end])).rows;
  const sum = (name) => rows.reduce((s, r) => s + Number(r[name]), 0);
  const totals = { clicks: sum('clicks'), shares: sum('shares'), ...conversionsOf(Object.fromEntries(Object.keys(rows[0] ?? {}).map((k) => [k, sum(k)]))) };
  return {
    totals,
    total_results: rows.length,
    groups: rows.slice(0, 10).map((g) => ({ campaign: g.campaign, clicks: Number(g.clicks), shares: g.shares, ...conversionsOf(g) })),
  };
}

function conversionsOfApi(c) {
  return { pageviews: c.pageviews, goals: GOAL_NUMBERS.map((n) => [c[`goal_${n}`].count, c[`goal_${n}`].value]) };
}

function totalsOfApi(body) {
  return {
    totals: { clicks: body.totals.clicks, shares: body.totals.shares, ...conversionsOfApi(body.totals.conversions) },
    total_results: body.total_results,
    groups: body.groups.map((g) => ({ campaign: g.campaign, clicks: g.clicks, shares: g.shares, ...conversionsOfApi(g.conversions) })),
  };
}

const INTERVALS_SQL = `
  WITH k AS (SELECT l.id FROM projects p JOIN links l ON l.project_id = p.id WHERE p.api_key = $1 AND l.svc_id = $2)
  SELECT date_trunc('day', h.hour, 'UTC') AS day, SUM(h.clicks)::int AS clicks,
         (SELECT MAX(x.last_clicked_at) FROM link_clicks_hourly x JOIN k ON x.link_id = k.id WHERE x.clicks > 0) AS last
  FROM k JOIN link_clicks_hourly h ON h.link_id = k.id
  WHERE h.hour >= $3 AND h.hour < $4
  GROUP BY 1 ORDER BY 1`;

async function intervalsBySql(db, projectKey, svcId, start, end) {
  const rows = (await db.query(INTERVALS_SQL, [projectKey, svcId, start, end])).rows;
  return {
    clicks: rows.reduce((s, r) => s + r.clicks, 0),
    // The API writes times to the second.
    last_clicked_at: rows[0]?.last ? new Date(Math.floor(new Date(rows[0].last).getTime() / 1000) * 1000).toISOString() : null,
    intervals: rows.map((r) => [new Date(r.day).toISOString(), r.clicks]),
  };
}

function intervalsOfApi(body) {
  return {
    clicks: body.clicks,
    last_clicked_at: body.last_clicked_at ? new Date(body.last_clicked_at).toISOString() : null,
    intervals: body.intervals.map((i) => [new Date(i.day).toISOString(), i.clicks]),
  };
}

// Range by click dimensions: the figures the bench checks (the design it is compared with had no
// dimensions): the totals and every group and pivot on the first page.
function dimensionsOfApi(body) {
  return {
    totals: { clicks: body.totals.clicks, shares: body.totals.shares },
    total_results: body.total_results,
    groups: body.groups.map((g) => ({ country: g.country, clicks: g.clicks, pivots: g.pivots.map((p) => ({ device: p.device, clicks: p.clicks })) })),
  };
}

/** What is wrong with range by country and device, given range's clicks in the same period (null: nothing). */
function dimensionsCheck(answer, clicks) {
  if (answer.totals.clicks !== clicks) return `totals ${answer.totals.clicks} clicks, range counts ${clicks} in the same period`;
  if (answer.totals.shares !== null) return `shares ${answer.totals.shares}, expected null by click dimensions`;
  if (answer.groups.length === 0 || answer.total_results < 30) return `${answer.total_results} countries: were the dimensions seeded?`;
  for (const g of answer.groups) {
    const sum = g.pivots.reduce((s, p) => s + p.clicks, 0);
    if (sum !== g.clicks) return `${g.country}: its devices add up to ${sum} clicks, not ${g.clicks}`;
  }
  return null;
}

// ---- timing ----

async function time(task) {
  const started = process.hrtime.bigint();
  const result = await task();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, result };
}

async function main() {
  const { reuse, name, dataDir, sizesFile, subscriptionKey, applicationKey, serviceEnv } =
    await lib.seededStore();
  let service;
  const db = new Client({ connectionString: lib.databaseUrl(name) });
  const errors = [];
  try {
    await db.connect();
    let key;
    let endHour;
    let sizes;
    let baseline;
    if (reuse) {
      ({ key, endHour, sizes, baseline } = JSON.parse(await readFile(sizesFile, 'utf8')));
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
      console.log(`bench:stats — seeding ${LINKS} links, ${CLICKS} clicks (${EVENTS} bursts) over ${DAYS} days${BASELINE ? '' : ', no PostgreSQL baseline'}`);
      await seedLinks(db, projectId, endHour);
      if (BASELINE) await createBaselineTables(db);
      const [{ first }] = (await db.query(`SELECT min(id)::text AS first FROM links WHERE project_id = $1`, [projectId])).rows;
      const url = new URL(lib.databaseUrl(name));
      sizes = await lib.runSeed('stats-seed.js', {
        chdbDir: path.join(dataDir, 'chdb'),
        db: serviceEnv.CLICKHOUSE_DATABASE,
        pg: { host: `${url.hostname}:${url.port || 5432}`, database: name, user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) },
        projectId,
        first: Number(first),
        links: LINKS,
        clicks: CLICKS,
        events: EVENTS,
        endHour: endHour.toISOString().slice(0, 19).replace('T', ' '),
        baseline: BASELINE,
        optimize: OPTIMIZE,
      });
      if (BASELINE) await finishBaselineTables(db);
      baseline = BASELINE;
      sizes.links = LINKS;
      sizes.clicks = CLICKS;
      await writeFile(sizesFile, JSON.stringify({ key, endHour, sizes, baseline }));
      console.log(`  seeded in ${seconds(t0)} s`);
    }
    const links = sizes.links ?? LINKS;
    const clicks = sizes.clicks ?? CLICKS;
    const TARGET_MS = targetsFor(clicks);
    // The service on the seeded store.
    service = await lib.startService(serviceEnv);
    // The service's connections run with JIT off (src/database/data-source.ts): so does the baseline.
    await db.query('SET jit = off');
    const busy = (await db.query(`SELECT svc_id FROM links WHERE id = $1`, [sizes.busyLinkId])).rows[0].svc_id;

    const iso = (d) => d.toISOString().slice(0, 19) + 'Z';
    const daysBefore = (days) => new Date(endHour.getTime() - days * 86_400_000);
    const rangeStart = daysBefore(RANGE_DAYS);
    const totalsStart = daysBefore(TOTALS_DAYS);
    const periodStart = daysBefore(DAYS);
    // The API's answer as its body's text: a run's clock stops at the response's last byte, and the
    // answer is parsed (for the comparison) off the clock, as a load tool measures a service.
    const get = async (path, params) => {
      const res = await lib.request({ port: service.port, method: 'GET', path: `${path}?${form({ v: '3', key, ...params })}` });
      if (res.status !== 200) throw new Error(`${path} ${res.status} ${res.body.slice(0, 300)}`);
      return res.body;
    };
    const queries = [
      {
        name: `range (group_by=channel, pivot=tag, ${RANGE_DAYS} days)`,
        api: () => get('/stats/range.json', { start_date: iso(rangeStart), end_date: iso(endHour), group_by: 'channel', pivot: 'tag' }),
        sql: () => rangeBySql(db, key, rangeStart, endHour),
        ofApi: rangeOfApi,
      },
      {
        // By click dimensions (no PostgreSQL design had them): its totals are checked against range's
        // clicks over the same period instead (rangeClicks).
        name: `dimensions (group_by=country, pivot=device, ${RANGE_DAYS} days)`,
        api: () => get('/stats/range.json', { start_date: iso(rangeStart), end_date: iso(endHour), group_by: 'country', pivot: 'device' }),
        sql: null,
        ofApi: dimensionsOfApi,
        check: async (answer) => {
          const clicks = JSON.parse(await get('/stats/range.json', { start_date: iso(rangeStart), end_date: iso(endHour) })).totals.clicks;
          return dimensionsCheck(answer, clicks);
        },
      },
      {
        name: `totals (group_by=campaign, with_conversions, ${TOTALS_DAYS} days)`,
        api: () =>
          get('/stats/totals.json', { start_date: iso(totalsStart), end_date: iso(endHour), group_by: 'campaign', with_conversions: 'true' }),
        sql: () => totalsBySql(db, key, totalsStart, endHour),
        ofApi: totalsOfApi,
      },
      {
        name: `intervals (busiest link, day, ${DAYS} days)`,
        api: () => get(`/stats/${encodeURIComponent(busy)}/intervals.json`, { start_date: iso(periodStart), end_date: iso(endHour), interval: 'day' }),
        sql: () => intervalsBySql(db, key, busy, periodStart, endHour),
        ofApi: intervalsOfApi,
      },
    ];

    // BENCH_QUERIES=range,dimensions,totals,intervals (a subset, by the first word of the name).
    const only = process.env.BENCH_QUERIES?.split(',');
    const results = [];
    for (const q of queries.filter((q) => !only || only.includes(q.name.split(' ')[0]))) {
      const apiAnswer = q.ofApi(JSON.parse(await q.api()));
      const problem = q.check ? await q.check(apiAnswer) : null;
      if (problem) errors.push(`${q.name}: ${problem}`);
      const compared = baseline && q.sql !== null;
      if (compared) {
        const sqlAnswer = await q.sql();
        if (JSON.stringify(apiAnswer) !== JSON.stringify(sqlAnswer)) {
          errors.push(`${q.name}: the API's answer differs from the previous design's\n  api: ${JSON.stringify(apiAnswer).slice(0, 600)}\n  sql: ${JSON.stringify(sqlAnswer).slice(0, 600)}`);
        }
      }
      const warmUntil = Date.now() + WARMUP_SECONDS * 1000;
      for (let i = 1; i < WARMUP || Date.now() < warmUntil; i++) {
        await q.api();
        if (compared) await q.sql();
      }
      const api = [];
      const sql = [];
      // Alternating runs, so drift (merges, autovacuum, caches) hits both sides alike.
      for (let i = 0; i < RUNS; i++) {
        api.push((await time(q.api)).ms);
        if (compared) sql.push((await time(q.sql)).ms);
      }
      results.push({
        name: q.name,
        kind: q.name.split(' ')[0],
        api: lib.percentile(api, 0.5),
        api90: lib.percentile(api, 0.9),
        sql: compared ? lib.percentile(sql, 0.5) : null,
      });
    }

    console.log(
      `data: ${links} links, ${clicks} human clicks (${sizes.clickRows} raw click rows with bots) in ${sizes.hourlyRows} (link, hour) rows, ` +
        `${sizes.conversionRows} conversion events, ${sizes.parts} active parts${OPTIMIZE && !reuse ? ' (OPTIMIZE FINAL)' : ''}; ` +
        `busiest link ${busy}: ${sizes.busyClicks} clicks`,
    );
    console.log(`${RUNS} sequential keep-alive runs each after ${WARMUP} warm-up(s) and at least ${WARMUP_SECONDS} s of them; ms`);
    console.log(`${'query'.padEnd(52)}  API p50  API p90   PG p50  speed-up`);
    const misses = [];
    for (const r of results) {
      const speedup = r.sql === null ? null : r.sql / r.api;
      const missed = [];
      if (r.api > TARGET_MS[r.kind]) missed.push(`p50 > ${TARGET_MS[r.kind]} ms`);
      if (speedup !== null && speedup < TARGET_SPEEDUP) missed.push(`speed-up < ${TARGET_SPEEDUP}x`);
      if (missed.length > 0) misses.push(`${r.kind}: ${missed.join(', ')}`);
      console.log(
        `${r.name.padEnd(52)} ${r.api.toFixed(1).padStart(8)} ${r.api90.toFixed(1).padStart(8)} ${r.sql === null ? '       -' : r.sql.toFixed(1).padStart(8)} ` +
          `${speedup === null ? '        -' : `${speedup.toFixed(1)}x`.padStart(9)}${missed.length > 0 ? `  MISSES TARGET (${missed.join(', ')})` : ''}`,
      );
    }
    console.log(
      `targets: p50 range ≤ ${TARGET_MS.range} ms, dimensions ≤ ${TARGET_MS.dimensions} ms, totals ≤ ${TARGET_MS.totals} ms, intervals ≤ ${TARGET_MS.intervals} ms` +
        `${baseline ? `, each ≥ ${TARGET_SPEEDUP}x faster than the previous PostgreSQL design` : ' (no PostgreSQL baseline: BENCH_BASELINE=0)'}` +
        `; ${misses.length === 0 ? 'all met' : `missed: ${misses.join('; ')}`}`,
    );
    // One line for scripts: each query's p50 in ms, by its kind.
    console.log(`bench:stats ${results.map((r) => `${r.kind}_p50_ms=${r.api.toFixed(1)}`).join(' ')} missed=${misses.length}`);
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

// bench:export seeds its links as this bench does.
module.exports = { seedLinks };

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
