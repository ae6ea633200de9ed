// Profiling aid for bench:stats (not a benchmark): the statistics statements the service runs, and
// variants of them, timed in a standalone process on a COPY of a store kept by bench:stats:
//
//   BENCH_KEEP_DATABASE=1 npm run bench:stats            # prints the kept name, store in $TMPDIR/<name>/chdb
//   cp -r /tmp/svc_bench_xxxxxxxx/chdb /tmp/copy-chdb
//   node bench/profile/stats-statements.js /tmp/copy-chdb [runs] [name filter, a|b|c]
//
// The statements are captured by calling StatsRepository (dist/) with a recording client; each is
// timed `runs` times after one untimed run: wall p50 and min, and the CPU time of this process (every
// engine thread) p50, steadier than wall time on a shared machine. BENCH_PROFILE_SCHEMA=1 first adds
// to the copy what some variants need: a HASHED dictionary of link attributes (links_dict), one of
// per-link click totals (totals_dict) and a projection of link_clicks_hourly by (project, link, hour).
const { openAnalyticsClient } = require('../../dist/analytics/analytics-client');
const { StatsRepository } = require('../../dist/stats/stats.repository');

async function capture(c, projectId, end) {
  const log = [];
  const recording = Object.create(c);
  recording.query = async (sql, params) => {
    log.push({ sql: sql.replace(/\s+/g, ' '), params });
    return c.query(sql, params);
  };
  const repo = new StatsRepository({ query: async () => [] }, recording);
  const base = { filters: {}, sortType: 'clicks', sortOrder: 'desc', pivotSortType: 'clicks', pivotSortOrder: 'desc', page: null, perPage: 10, offset: 0, withMetadata: false, withZeros: false, withBots: false };
  const scope = { ids: [projectId], keys: ['key'] };
  const start = new Date(end.getTime() - 30 * 86_400_000);
  const take = async (run) => {
    log.length = 0;
    await run();
    return [...log];
  };
  const range = await take(() => repo.aggregate({ ...base, kind: 'range', start, end, groupBy: 'channel', pivot: 'tag', withConversions: false }, scope));
  const totals = await take(() => repo.aggregate({ ...base, kind: 'totals', start, end, groupBy: 'campaign', pivot: null, withConversions: true }, scope));
  const [{ id }] = await c.query(`SELECT toString(link_id) AS id FROM ${c.database}.link_click_totals GROUP BY link_id ORDER BY sum(clicks) DESC LIMIT 1`);
  const intervals = await take(() => repo.linkIntervals(projectId, id, new Date(end.getTime() - 90 * 86_400_000), end, 'day', { withBots: false }));
  return { range, totals, intervals };
}

function variants(db, s) {
  const [groups, pivots] = s.range;
  const P = groups.params.p0 ? '{p0:Array(UUID)}' : null;
  const S = "{p1:DateTime64(3, 'UTC')}";
  const E = "{p2:DateTime64(3, 'UTC')}";
  const rows = pivots.sql.slice(pivots.sql.indexOf('FROM (') + 5, pivots.sql.lastIndexOf(') WHERE ifNull'));
  const interval = s.intervals[0].params;
  const W = 'project_id = {project:UUID} AND link_id = {link:UInt64}';
  const inPeriod = "clicked_at >= {start:DateTime64(3, 'UTC')} AND clicked_at < {end:DateTime64(3, 'UTC')}";
  return [
    { name: 'range: groups statement (as is)', ...groups },
    { name: 'range: pivots statement (as is)', ...pivots },
    { name: 'range: groups, join_algorithm=full_sorting_merge', sql: `${groups.sql} SETTINGS join_algorithm = 'full_sorting_merge'`, params: groups.params },
    { name: 'range: groups, links without FINAL', sql: groups.sql.replace(/\.links FINAL/g, '.links'), params: groups.params },
    { name: 'range: one statement, GROUPING SETS ((g), (g, p))', sql: `SELECT g, p, sum(clicks) AS clicks, sum(shared) AS shares FROM ${rows}) GROUP BY GROUPING SETS ((g), (g, p))`, params: groups.params },
    {
      name: 'range: one statement, GROUPING SETS, full_sorting_merge',
      sql: `SELECT g, p, sum(clicks) AS clicks, sum(shared) AS shares FROM ${rows}) GROUP BY GROUPING SETS ((g), (g, p)) SETTINGS join_algorithm = 'full_sorting_merge'`,
      params: groups.params,
    },
    {
      name: 'range: dictGet of link attributes (needs BENCH_PROFILE_SCHEMA)',
      schema: true,
      params: groups.params,
      sql: `SELECT g, p, sum(c) AS clicks, sum(s) AS shares FROM (
          SELECT dictGet('${db}.links_dict', 'channel', link_id) AS g, dictGet('${db}.links_dict', 'tag', link_id) AS p, sum(clicks) AS c, 0 AS s
          FROM ${db}.link_clicks_hourly WHERE project_id IN ${P} AND hour >= ${S} AND hour < ${E} GROUP BY g, p
          UNION ALL
          SELECT channel, tag, 0, count() FROM ${db}.links FINAL WHERE project_id IN ${P} AND shared_at >= ${S} AND shared_at < ${E} GROUP BY channel, tag)
        GROUP BY g, p`,
    },
    { name: 'totals: statement (as is)', ...s.totals[0] },
    { name: 'totals: join_algorithm=full_sorting_merge', sql: `${s.totals[0].sql} SETTINGS join_algorithm = 'full_sorting_merge'`, params: s.totals[0].params },
    {
      name: 'totals: clicks via dictionary of per-link totals (needs BENCH_PROFILE_SCHEMA)',
      schema: true,
      params: s.totals[0].params,
      sql: `SELECT campaign AS g, count() AS shares, sum(dictGetOrDefault('${db}.totals_dict', 'clicks', link_id, toUInt64(0))) AS clicks
        FROM ${db}.links FINAL WHERE project_id IN ${P} AND shared_at >= ${S} AND shared_at < ${E} GROUP BY g`,
    },
    { name: 'intervals: buckets statement (as is)', ...s.intervals[0] },
    { name: 'intervals: latest-click statement (as is)', ...s.intervals[1] },
    {
      name: 'intervals: one statement (buckets and latest click)',
      params: interval,
      sql: `SELECT toStartOfDay(clicked_at) AS bucket, countIf(${inPeriod}) AS clicks, max(clicked_at) AS last
        FROM ${db}.clicks WHERE ${W} AND is_bot = 0 GROUP BY bucket ORDER BY bucket`,
    },
    {
      name: 'intervals: from link_clicks_hourly (projection by link with BENCH_PROFILE_SCHEMA)',
      params: interval,
      sql: `SELECT toStartOfDay(hour) AS bucket, sum(clicks) AS clicks FROM ${db}.link_clicks_hourly
        WHERE ${W} AND hour >= {start:DateTime64(3, 'UTC')} AND hour < {end:DateTime64(3, 'UTC')} GROUP BY bucket ORDER BY bucket`,
    },
  ];
}

async function addSchema(c, db) {
  await c.command(`CREATE DICTIONARY IF NOT EXISTS ${db}.links_dict (link_id UInt64, channel Nullable(String), tag Nullable(String), campaign Nullable(String), shared_at DateTime64(3, 'UTC'))
    PRIMARY KEY link_id SOURCE(CLICKHOUSE(QUERY 'SELECT link_id, channel, tag, campaign, shared_at FROM ${db}.links FINAL')) LIFETIME(0) LAYOUT(HASHED())`);
  await c.command(`CREATE DICTIONARY IF NOT EXISTS ${db}.totals_dict (link_id UInt64, clicks UInt64)
    PRIMARY KEY link_id SOURCE(CLICKHOUSE(QUERY 'SELECT link_id, sum(clicks) AS clicks FROM ${db}.link_click_totals GROUP BY link_id')) LIFETIME(0) LAYOUT(HASHED())`);
  await c.command(`SYSTEM RELOAD DICTIONARY ${db}.links_dict`);
  await c.command(`SYSTEM RELOAD DICTIONARY ${db}.totals_dict`);
  await c.command(`ALTER TABLE ${db}.link_clicks_hourly MODIFY SETTING deduplicate_merge_projection_mode = 'rebuild'`);
  await c.command(`ALTER TABLE ${db}.link_clicks_hourly ADD PROJECTION IF NOT EXISTS by_link (SELECT * ORDER BY project_id, link_id, hour)`);
  await c.command(`ALTER TABLE ${db}.link_clicks_hourly MATERIALIZE PROJECTION by_link SETTINGS mutations_sync = 1`);
}

async function main() {
  const [dir, runsArg, filter] = process.argv.slice(2);
  if (!dir) throw new Error('usage: node bench/profile/stats-statements.js <copy of a chDB folder> [runs] [filter]');
  const runs = Number(runsArg ?? 7);
  const db = process.env.CLICKHOUSE_DATABASE ?? 'svc';
  const c = await openAnalyticsClient({ url: null, embeddedDir: dir, database: db });
  try {
    const withSchema = process.env.BENCH_PROFILE_SCHEMA === '1';
    if (withSchema) await addSchema(c, db);
    const [{ project, last }] = await c.query(`SELECT toString(project_id) AS project, toString(max(created_at)) AS last FROM ${db}.links GROUP BY project_id LIMIT 1`);
    const end = new Date(Math.ceil(new Date(`${last.replace(' ', 'T')}Z`).getTime() / 3_600_000) * 3_600_000);
    const statements = await capture(c, project, end);
    const wanted = filter ? filter.split('|') : null;
    for (const v of variants(db, statements)) {
      if (wanted && !wanted.some((w) => v.name.includes(w))) continue;
      if (v.schema && !withSchema) continue;
      const wall = [];
      const cpu = [];
      let rows;
      for (let i = 0; i <= runs; i++) {
        const started = process.hrtime.bigint();
        const usage = process.cpuUsage();
        rows = await c.query(v.sql, v.params);
        const used = process.cpuUsage(usage);
        if (i === 0) continue;
        wall.push(Number(process.hrtime.bigint() - started) / 1e6);
        cpu.push((used.user + used.system) / 1000);
      }
      const p50 = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
      console.log(
        `${v.name.padEnd(80)} wall p50 ${p50(wall).toFixed(1).padStart(8)} ms, min ${Math.min(...wall).toFixed(1).padStart(8)}, CPU p50 ${p50(cpu).toFixed(1).padStart(8)} ms, ${rows.length} rows`,
      );
    }
  } finally {
    await c.close();
  }
}

main().catch((error) => {
  console.error(String(error?.message ?? error).slice(0, 2000));
  process.exit(1);
});
