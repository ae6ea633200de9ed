// The analytics side of bench:stats' seed, run as a short-lived child process: the embedded engine
// (chDB) is one process's, so it is opened here on the service's CHDB_DIR, filled, and closed before
// the service starts on that folder. Every figure is generated inside the engine (numbers() and
// cityHash64 with fixed seeds: the same data on every run), and the links are copied from the
// PostgreSQL bench database through ClickHouse's postgresql() table function, so the mirror holds
// exactly the links PostgreSQL holds, and every click and conversion carries its link's stamp. With BENCH_BASELINE the previous PostgreSQL design's rollup
// tables are filled from the same click and conversion events (INSERT INTO FUNCTION postgresql()).
//
// Usage (from bench/stats.js): node bench/stats-seed.js '<json config>'
const { openAnalyticsClient } = require('../dist/analytics/analytics-client');
const { analyticsSchema, LINK_STAMP_COLUMNS, STAMP_SOURCE_COLUMNS } = require('../dist/analytics/analytics-schema');

// Clicks and conversions carry their link's stamp, as ingestion writes them (LinkStamps): the
// mirror's version and attributes.
const STAMP_COLUMNS = LINK_STAMP_COLUMNS.map(([name]) => name).join(', ');
const STAMP_OF = (alias) => STAMP_SOURCE_COLUMNS.map((name) => `${alias}.${name}`).join(', ');

// A uniform double in [0, 1) from a deterministic hash of the arguments.
const U = (...args) => `(cityHash64(${args.join(', ')}) / 18446744073709551616.0)`;

const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
  'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
];
const BOTS = ['Googlebot/2.1 (+http://www.google.com/bot.html)', 'Twitterbot/1.0', 'facebookexternalhit/1.1'];
const REFERRERS = ['https://t.co/', 'https://www.facebook.com/', 'https://www.linkedin.com/', 'https://www.google.com/', 'https://mail.google.com/'];

const list = (values) => `[${values.map((v) => `'${v.replace(/'/g, "\\'")}'`).join(', ')}]`;

async function main() {
  const cfg = JSON.parse(process.argv[2]);
  const { db, pg, projectId, first, links, clicks, events, endHour, baseline, optimize } = cfg;
  const pgArgs = (table) => `'${pg.host}', '${pg.database}', '${table}', '${pg.user}', '${pg.password}'`;
  const ch = await openAnalyticsClient({ url: null, embeddedDir: cfg.chdbDir, database: db });
  const step = async (label, sql, params = {}) => {
    const t = Date.now();
    await ch.command(sql, params);
    console.log(`  ${label} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  };
  const count = async (sql) => Number((await ch.query(`SELECT toString((${sql})) AS n`))[0].n);
  try {
    for (const statement of analyticsSchema(db)) await ch.command(statement);
    const settings = `SETTINGS max_threads = 2, max_insert_threads = 2`;

    // The links, as PostgreSQL holds them (LinkMirror.mirrorRow's columns and version).
    await step(
      `links mirror (${links} links from PostgreSQL)`,
      `INSERT INTO ${db}.links
       SELECT project_id, id, toUInt64(toUnixTimestamp64Milli(toDateTime64(updated_at, 3, 'UTC'))) * 1000,
              svc_id, domain, original_url, channel, service, tool, application, campaign, tag,
              ifNull(tag_2, []), ifNull(tag_3, []), ifNull(tag_4, []), ifNull(tag_5, []),
              parent, toString(sharer_id), username, service_userid, service_postid, user_id,
              toDateTime64(created_at, 3, 'UTC'), toDateTime64(ifNull(service_postid_shared_at, created_at), 3, 'UTC')
       FROM postgresql(${pgArgs('links')})
       WHERE project_id = toUUID({project:String})`,
      { project: projectId },
    );
    const mirrored = await count(`SELECT count() FROM ${db}.links WHERE project_id = toUUID('${projectId}')`);
    if (mirrored !== links) throw new Error(`mirrored ${mirrored} links, expected ${links}`);

    // Click events as the PostgreSQL seed of earlier versions drew them: `events` bursts, 20% on
    // 1000 hot links (4x heavier), the rest on links biased to recent ones; a burst's hour follows
    // its link's creation (70% within about a day, 30% anywhere in its life); burst weights scaled
    // so the human clicks are exactly `clicks`. Each burst is then spelled out as raw clicks, at
    // random milliseconds of its hour (never before the link's creation); 1 burst in 10 carries
    // 1 + clicks/5 bot clicks on top.
    const burstSql = `
      SELECT e.k AS k, toUInt64(${first} + e.link_idx) AS link_id, e.anywhere AS anywhere, e.u AS u, e.bot AS bot,
             toUInt64(intDiv(e.cw * ${clicks}, e.total) - intDiv((e.cw - e.w) * ${clicks}, e.total)) AS c
      FROM (
        SELECT k, link_idx, w, anywhere, u, bot,
               sum(w) OVER (ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cw,
               sum(w) OVER () AS total
        FROM (
          SELECT number AS k,
                 ${U('number', 1)} < 0.2 AS hot,
                 if(hot, (toUInt64(floor(1000 * pow(${U('number', 2)}, 2))) * 7919 + 12345) % ${links},
                         least(${links} - 1, toUInt64(floor(${links} * (1 - pow(${U('number', 2)}, 2)))))) AS link_idx,
                 toUInt64(if(hot, 4, 1) * (1 + floor(-ln(1 - ${U('number', 3)}) * 3))) AS w,
                 ${U('number', 4)} < 0.3 AS anywhere,
                 ${U('number', 5)} AS u,
                 ${U('number', 6)} < 0.1 AS bot
          FROM numbers(${events})
        )
      ) AS e`;
    await step(
      `clicks (${clicks} human clicks in ${events} bursts, and bots)`,
      `INSERT INTO ${db}.clicks (project_id, link_id, clicked_at, click_id, referrer, user_agent, ip, is_bot, ${STAMP_COLUMNS})
       SELECT toUUID({project:String}), b.link_id,
              greatest(l.created_at, toDateTime64(
                toStartOfHour(l.created_at) + toIntervalHour(
                  if(b.anywhere, toUInt64(floor(b.u * 1e9)), toUInt64(floor(-ln(1 - b.u) * 24)))
                  % greatest(1, intDiv(toUnixTimestamp({end:DateTime('UTC')}) - toUnixTimestamp(toStartOfHour(l.created_at)), 3600))),
                3, 'UTC') + toIntervalMillisecond(cityHash64(b.k, j, 7) % 3600000)) AS clicked_at,
              generateUUIDv4(cityHash64(b.k, j)) AS click_id,
              if(cityHash64(b.k, j, 8) % 3 = 0, NULL, ${list(REFERRERS)}[1 + cityHash64(b.k, j, 9) % ${REFERRERS.length}]) AS referrer,
              if(j >= b.c, ${list(BOTS)}[1 + cityHash64(b.k, j, 10) % ${BOTS.length}], ${list(BROWSERS)}[1 + cityHash64(b.k, j, 10) % ${BROWSERS.length}]) AS user_agent,
              IPv4NumToString(toUInt32(cityHash64(b.k, intDiv(j, 4), 11) % 4294967296)) AS ip,
              toUInt8(j >= b.c) AS is_bot,
              ${STAMP_OF('l')}
       FROM (${burstSql}) AS b
       INNER JOIN (SELECT * FROM ${db}.links WHERE project_id = toUUID({project:String})) AS l ON l.link_id = b.link_id
       ARRAY JOIN range(toUInt64(b.c + if(b.bot AND b.c > 0, 1 + intDiv(b.c, 5), 0))) AS j
       ${settings}`,
      { project: projectId, end: endHour },
    );
    const human = await count(`SELECT countIf(is_bot = 0) FROM ${db}.clicks`);
    if (human !== clicks) throw new Error(`seeded ${human} human clicks, expected ${clicks}`);

    // Conversions, per hour with clicks of a link as the earlier seed: pageviews (half its clicks)
    // on 10% of them, one goal_1 (value 500 to 4999) on 3%, one goal_2 on 1%; each spelled out as
    // events at random milliseconds of that hour.
    await step(
      'conversions',
      `INSERT INTO ${db}.conversions (project_id, link_id, converted_at, conversion_id, type, value, ${STAMP_COLUMNS})
       SELECT c.project_id, c.link_id, toDateTime64(hour, 3, 'UTC') + toIntervalMillisecond(cityHash64(c.link_id, hour, v.1, j, 12) % 3600000),
              generateUUIDv4(cityHash64(c.link_id, hour, v.1, j)), v.1, v.3, ${STAMP_OF('l')}
       FROM (
         SELECT project_id, link_id, toStartOfHour(clicked_at) AS hour, countIf(is_bot = 0) AS n, ${U('link_id', 'toUnixTimestamp(hour)', 13)} AS r
         FROM ${db}.clicks GROUP BY project_id, link_id, hour HAVING n > 0
       ) AS c
       INNER JOIN (SELECT * FROM ${db}.links WHERE project_id = toUUID({project:String})) AS l ON l.link_id = c.link_id
       ARRAY JOIN [('pageview', greatest(1, intDiv(n, 2)), 0, r < 0.10),
                   ('goal_1', 1, 500 + toUInt64(floor(r * 100000)) % 4500, r < 0.03),
                   ('goal_2', 1, 0, r < 0.01)] AS v
       ARRAY JOIN range(toUInt64(v.2)) AS j
       WHERE v.4
       ${settings}`,
      { project: projectId },
    );

    if (optimize) {
      // A settled store: parts merged as background merges leave them after a while.
      for (const table of ['clicks', 'conversions', 'links']) {
        await step(`OPTIMIZE ${table} FINAL`, `OPTIMIZE TABLE ${db}.${table} FINAL`);
      }
    }

    const sizes = {
      clickRows: await count(`SELECT count() FROM ${db}.clicks`),
      hourlyRows: await count(`SELECT count() FROM (SELECT 1 FROM ${db}.clicks GROUP BY project_id, toStartOfHour(clicked_at), link_id)`),
      conversionRows: await count(`SELECT count() FROM ${db}.conversions`),
      parts: await count(`SELECT count() FROM system.parts WHERE database = '${db}' AND active`),
    };
    const [busy] = await ch.query(
      `SELECT toString(link_id) AS id, toString(countIf(is_bot = 0)) AS n FROM ${db}.clicks
       GROUP BY link_id ORDER BY countIf(is_bot = 0) DESC, link_id LIMIT 1`,
    );
    sizes.busyLinkId = busy.id;
    sizes.busyClicks = Number(busy.n);
    sizes.busyClickRows = await count(`SELECT count() FROM ${db}.clicks WHERE link_id = ${busy.id}`);

    if (baseline) {
      // The previous design's rollups, from the same events: per (link, hour) human and bot clicks
      // and the latest human click; per (link, hour, type) conversion counts and values.
      await step(
        'baseline link_clicks_hourly (PostgreSQL)',
        `INSERT INTO FUNCTION postgresql(${pgArgs('link_clicks_hourly')}) (link_id, hour, project_id, clicks, bot_clicks, last_clicked_at)
         SELECT link_id, toStartOfHour(clicked_at) AS hour, project_id, toInt32(countIf(is_bot = 0)), toInt32(countIf(is_bot = 1)),
                maxIf(clicked_at, is_bot = 0)
         FROM ${db}.clicks GROUP BY project_id, link_id, hour ORDER BY hour, link_id
         ${settings}`,
      );
      await step(
        'baseline link_conversions_hourly (PostgreSQL)',
        `INSERT INTO FUNCTION postgresql(${pgArgs('link_conversions_hourly')}) (link_id, hour, type, project_id, count, value)
         SELECT link_id, toStartOfHour(converted_at) AS hour, toString(type), project_id, toInt32(count()), sum(value)
         FROM ${db}.conversions GROUP BY project_id, link_id, hour, type ORDER BY hour, link_id
         ${settings}`,
      );
    }
    process.stdout.write(`SIZES ${JSON.stringify(sizes)}\n`);
  } finally {
    await ch.close();
  }
}

main().catch((error) => {
  console.error(String(error?.message ?? error).slice(0, 2000));
  process.exit(1);
});
