// npm run bench:stats — stats query latency on a seeded project (1M links, 10M clicks in the hourly
// rollups over 90 days), through the service's HTTP API against the simplest hand-written SQL for
// the same answer on the same tables (totals: the rollups' per-link sums, link_click_totals and
// link_conversion_totals), run straight on PostgreSQL through `pg`. Both answers are compared; a
// difference is an error. Prints p50 per query and the ratio.
const { Client } = require('pg');
const { randomBytes } = require('node:crypto');
const lib = require('./lib');
const { LINK_TOTALS_BACKFILL } = require('../dist/database/migrations/1763940000000-link-totals');

const LINKS = Number(process.env.BENCH_LINKS ?? 1_000_000);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 10_000_000);
// Click "events" spread over links and hours before they are summed per (link, hour): they set the
// rollup row count (collisions on busy links merge), ~3 clicks per event by default.
const EVENTS = Number(process.env.BENCH_EVENTS ?? Math.round(CLICKS * 0.3));
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
// BENCH_QUERIES: run only some of the queries (see main).
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
// Warm-up also lasts at least this long per query: the service's request path is only optimised
// by V8 after some hundreds of requests, and a quick query (intervals) would otherwise be timed
// while the service is still in its interpreter (p50 8.5 ms after 23 requests, 4.5 ms after 60).
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const RANGE_DAYS = Number(process.env.BENCH_RANGE_DAYS ?? 30);
const TOTALS_DAYS = 30;
const DAYS = 90;

const CHANNELS = ['twitter', 'facebook-post', 'email', 'copypaste', 'linkedin', 'facebook-share', 'whatsapp', 'reddit', 'pinterest', 'sms'];
const SERVICES = ['twitter', 'facebook', 'email', 'copypaste', 'linkedin', 'facebook', 'whatsapp', 'reddit', 'pinterest', 'sms'];
const GOAL_NUMBERS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const SHARED_AT = 'COALESCE(l.service_postid_shared_at, l.created_at)';

const form = (fields) =>
  Object.entries(fields)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');

/**
 * Seeds straight into PostgreSQL, set-based, reproducible (setseed). Links: created uniformly over
 * the 90 days before `endHour` (ids in creation order), channel skewed towards the first of the
 * list, 50 campaigns (every 10th link none), 1000 tags skewed, 5% with a post time 10 minutes after
 * creation. Clicks: EVENTS events, 20% on 1000 "hot" links spread over the whole period, the rest on
 * links picked with a bias to recent ones (the newest third gets ~57%); an event's hour follows its
 * link's creation (70% decaying with a mean of a day, 30% anywhere in the link's life); integer
 * weights are scaled so the rollups hold exactly CLICKS clicks, and merged per (link, hour). Bots:
 * 1 in 10 rows gets a few bot clicks on top. Conversions: pageviews on 10% of the rollup rows,
 * goal_1 on 3%, goal_2 on 1%.
 */
async function seed(db, projectId, endHour) {
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
  console.log(`  links: ${LINKS} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  const t1 = Date.now();
  const [{ first }] = (await db.query(`SELECT min(id) AS first FROM links WHERE project_id = $1`, [projectId])).rows;
  await db.query(
    `CREATE TEMP TABLE events AS
     SELECT k, $1::bigint + CASE WHEN hot THEN (floor(1000 * random() ^ 2)::bigint * 7919 + 12345) % $2
                                 ELSE least($2 - 1, floor($2 * (1 - random() ^ 2)))::bigint END AS link_idx,
            (CASE WHEN hot THEN 4 ELSE 1 END) * (1 + floor(-ln(1 - random()) * 3))::bigint AS w,
            random() < 0.3 AS anywhere, random() AS u
     FROM (SELECT k, random() < 0.2 AS hot FROM generate_series(1, $3::int) k) e`,
    [first, LINKS, EVENTS],
  );
  await db.query(
    `INSERT INTO link_clicks_hourly (link_id, hour, project_id, clicks, bot_clicks, last_clicked_at)
     SELECT link_id, hour, $1, clicks, CASE WHEN random() < 0.1 THEN 1 + clicks / 5 ELSE 0 END,
            hour + floor(random() * 3600) * interval '1 second'
     FROM (
       SELECT e.link_id, e.hour, SUM(e.clicks)::int AS clicks
       FROM (
         SELECT x.link_id, date_trunc('hour', x.created) + x.offset_hours * interval '1 hour' AS hour,
                (x.cw * $3::bigint) / x.total - ((x.cw - x.w) * $3::bigint) / x.total AS clicks
         FROM (
           SELECT l.id AS link_id, l.created_at AS created, e.w,
                  (SUM(e.w) OVER (ORDER BY e.k))::bigint AS cw, (SUM(e.w) OVER ())::bigint AS total,
                  (CASE WHEN e.anywhere THEN floor(e.u * 1e9)::bigint ELSE floor(-ln(1 - e.u) * 24)::bigint END)
                    % greatest(1, floor(extract(epoch FROM $2::timestamptz - date_trunc('hour', l.created_at)) / 3600)::bigint) AS offset_hours
           FROM events e JOIN links l ON l.id = e.link_idx
         ) x
       ) e
       GROUP BY e.link_id, e.hour
       HAVING SUM(e.clicks) > 0
     ) r
     ORDER BY hour, link_id`,
    [projectId, endHour, CLICKS],
  );
  await db.query(`DROP TABLE events`);
  const [{ rows, clicks }] = (await db.query(`SELECT count(*)::int AS rows, sum(clicks)::bigint AS clicks FROM link_clicks_hourly`)).rows;
  console.log(`  clicks: ${clicks} in ${rows} rollup rows in ${((Date.now() - t1) / 1000).toFixed(0)} s`);
  if (Number(clicks) !== CLICKS) throw new Error(`seeded ${clicks} clicks, expected ${CLICKS}`);
  const t2 = Date.now();
  await db.query(
    `INSERT INTO link_conversions_hourly (link_id, hour, type, project_id, count, value)
     SELECT link_id, hour, type, project_id, count, value FROM (
       SELECT h.link_id, h.hour, h.project_id, r, greatest(1, h.clicks / 2) AS pv FROM link_clicks_hourly h
       CROSS JOIN LATERAL (SELECT random() AS r WHERE h.link_id IS NOT NULL) x
     ) s
     CROSS JOIN LATERAL (VALUES ('pageview', s.pv, 0::bigint, s.r < 0.10),
                                ('goal_1', 1, (500 + floor(s.r * 100000)::bigint % 4500), s.r < 0.03),
                                ('goal_2', 1, 0::bigint, s.r < 0.01)) v(type, count, value, keep)
     WHERE v.keep
     ORDER BY hour, link_id`,
  );
  const [{ conv }] = (await db.query(`SELECT count(*)::int AS conv FROM link_conversions_hourly`)).rows;
  // The rollups' per-link sums, as the migration fills them (their triggers do not fire in replica mode).
  for (const statement of LINK_TOTALS_BACKFILL) await db.query(statement);
  await db.query(`SET session_replication_role = DEFAULT`);
  await db.query(`VACUUM ANALYZE links`);
  await db.query(`VACUUM ANALYZE link_clicks_hourly`);
  await db.query(`VACUUM ANALYZE link_conversions_hourly`);
  await db.query(`VACUUM ANALYZE link_click_totals`);
  await db.query(`VACUUM ANALYZE link_conversion_totals`);
  console.log(`  conversions: ${conv} rollup rows, ANALYZE, in ${((Date.now() - t2) / 1000).toFixed(0)} s`);
  return { rollupRows: rows, conversionRows: conv };
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
    last_clicked_at: rows[0]?.last ? new Date(rows[0].last).toISOString() : null,
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

// ---- timing ----

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

async function time(task) {
  const started = process.hrtime.bigint();
  const result = await task();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, result };
}

async function main() {
  // BENCH_REUSE_DATABASE=<name> (kept by an earlier run with BENCH_KEEP_DATABASE=1) skips the seed.
  const reuse = process.env.BENCH_REUSE_DATABASE;
  const name = reuse ?? (await lib.createDatabase());
  const subscriptionKey = `bench_${randomBytes(12).toString('hex')}`;
  const applicationKey = `bench_${randomBytes(12).toString('hex')}`;
  let service;
  const db = new Client({ connectionString: lib.databaseUrl(name) });
  const errors = [];
  try {
    // The service runs the migrations on start.
    service = await lib.startService({
      DATABASE_URL: lib.databaseUrl(name),
      REDIS_URL: lib.REDIS_URL,
      REDIS_PREFIX: `bench:${randomBytes(3).toString('hex')}`,
      DEFAULT_DOMAIN: 'bench.svc',
      BOOTSTRAP_SUBSCRIPTION_KEY: subscriptionKey,
      BOOTSTRAP_APPLICATION_KEY: applicationKey,
    });
    await db.connect();
    // The service's connections run with JIT off (src/database/data-source.ts): so does the baseline.
    await db.query('SET jit = off');
    const seeded = reuse ? (await db.query(`SELECT api_key FROM projects WHERE name = 'bench' LIMIT 1`)).rows[0]?.api_key : undefined;
    const key =
      seeded ??
      (await lib.createProject(service.port, subscriptionKey, applicationKey, { conversions: { enabled: true, goal_1_label: 'Signup' } }));
    const projectId = (await db.query('SELECT id FROM projects WHERE api_key = $1', [key])).rows[0].id;

    let endHour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    let sizes;
    if (seeded) {
      endHour = new Date(Math.ceil((await db.query(`SELECT max(created_at) AS m FROM links`)).rows[0].m.getTime() / 3_600_000) * 3_600_000);
      const count = async (table) => (await db.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n;
      sizes = { rollupRows: await count('link_clicks_hourly'), conversionRows: await count('link_conversions_hourly') };
    } else {
      console.log(`bench:stats — seeding ${LINKS} links, ${CLICKS} clicks (${EVENTS} click events) over ${DAYS} days`);
      sizes = await seed(db, projectId, endHour);
    }
    const [{ busy, busyClicks, busyRows }] = (
      await db.query(
        `SELECT l.svc_id AS busy, t.clicks::int AS "busyClicks", t.n::int AS "busyRows" FROM (
           SELECT link_id, SUM(clicks) AS clicks, count(*) AS n FROM link_clicks_hourly GROUP BY link_id ORDER BY 2 DESC LIMIT 1
         ) t JOIN links l ON l.id = t.link_id`,
      )
    ).rows;

    const iso = (d) => d.toISOString().slice(0, 19) + 'Z';
    const daysBefore = (days) => new Date(endHour.getTime() - days * 86_400_000);
    const rangeStart = daysBefore(RANGE_DAYS);
    const totalsStart = daysBefore(TOTALS_DAYS);
    const periodStart = daysBefore(DAYS);
    const get = async (path, params) => {
      const res = await lib.request({ port: service.port, method: 'GET', path: `${path}?${form({ v: '3', key, ...params })}` });
      if (res.status !== 200) throw new Error(`${path} ${res.status} ${res.body.slice(0, 300)}`);
      return JSON.parse(res.body);
    };
    const queries = [
      {
        name: `range (group_by=channel, pivot=tag, ${RANGE_DAYS} days)`,
        api: () => get('/stats/range.json', { start_date: iso(rangeStart), end_date: iso(endHour), group_by: 'channel', pivot: 'tag' }),
        sql: () => rangeBySql(db, key, rangeStart, endHour),
        ofApi: rangeOfApi,
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

    // BENCH_QUERIES=range,totals,intervals (a subset, by the first word of the name).
    const only = process.env.BENCH_QUERIES?.split(',');
    const results = [];
    for (const q of queries.filter((q) => !only || only.includes(q.name.split(' ')[0]))) {
      const apiAnswer = q.ofApi(await q.api());
      const sqlAnswer = await q.sql();
      if (JSON.stringify(apiAnswer) !== JSON.stringify(sqlAnswer)) {
        errors.push(`${q.name}: the API's answer differs from the hand-written SQL's\n  api: ${JSON.stringify(apiAnswer).slice(0, 600)}\n  sql: ${JSON.stringify(sqlAnswer).slice(0, 600)}`);
      }
      const warmUntil = Date.now() + WARMUP_SECONDS * 1000;
      for (let i = 1; i < WARMUP || Date.now() < warmUntil; i++) {
        await q.api();
        await q.sql();
      }
      const api = [];
      const sql = [];
      // Alternating runs, so drift (autovacuum, caches) hits both sides alike.
      for (let i = 0; i < RUNS; i++) {
        api.push((await time(q.api)).ms);
        sql.push((await time(q.sql)).ms);
      }
      results.push({ name: q.name, api: percentile(api, 0.5), sql: percentile(sql, 0.5), api90: percentile(api, 0.9) });
    }

    console.log(
      `data: ${LINKS} links, ${CLICKS} clicks in ${sizes.rollupRows} link_clicks_hourly rows, ${sizes.conversionRows} link_conversions_hourly rows; ` +
        `busiest link ${busy}: ${busyClicks} clicks in ${busyRows} rows`,
    );
    console.log(`${RUNS} sequential keep-alive runs each after ${WARMUP} warm-up(s) and at least ${WARMUP_SECONDS} s of them; p50 in ms`);
    console.log(`${'query'.padEnd(52)}  API p50  SQL p50  ratio  API p90`);
    for (const r of results) {
      const flag = r.api > 300 || r.api > 1.5 * r.sql ? '  (misses target)' : '';
      console.log(
        `${r.name.padEnd(52)} ${r.api.toFixed(1).padStart(8)} ${r.sql.toFixed(1).padStart(8)} ${(r.api / r.sql).toFixed(2).padStart(6)} ${r.api90.toFixed(1).padStart(8)}${flag}`,
      );
    }
    console.log('target: API p50 < 300 ms and within 1.5x of the hand-written SQL');
  } finally {
    await db.end().catch(() => undefined);
    if (service) await service.stop();
    if (!process.env.BENCH_KEEP_DATABASE && !reuse) await lib.dropDatabase(name);
    else console.log(`database kept: ${name}`);
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
