// The analytics side of bench:stats' seed, run as a short-lived child process: the embedded engine
// (chDB) is one process's, so it is opened here on the service's CHDB_DIR, filled, and closed before
// the service starts on that folder. Every figure is generated inside the engine (numbers() and
// cityHash64 with fixed seeds: the same data on every run), and the links are copied from the
// PostgreSQL bench database through ClickHouse's postgresql() table function, so the mirror holds
// exactly the links PostgreSQL holds, and every click and conversion carries its link's stamp. Every
// click carries click dimensions too (country, region, city, device, browser, OS, referring host,
// enriched = 1), drawn from realistic spreads (clickDimensionsSql), and a conversion its click's.
// With BENCH_BASELINE the previous PostgreSQL design's rollup tables are filled from the same click
// and conversion events (INSERT INTO FUNCTION postgresql()).
//
// Usage (from bench/stats.js and bench/list.js): node bench/stats-seed.js '<json config>'. Its steps
// are exported for bench/chains-seed.js, which seeds the same clicks and conversions on its links.
const { openAnalyticsClient } = require('../dist/analytics/analytics-client');
const { analyticsSchema, LINK_STAMP_COLUMNS, STAMP_SOURCE_COLUMNS } = require('../dist/analytics/analytics-schema');

// Clicks and conversions carry their link's stamp, as ingestion writes them (LinkStamps): the
// mirror's version and attributes.
// A stamp: the link's attributes, then its chain (chain_stamped, ancestors: `ch`, the link's row
// of link_chains joined, none for a root).
const STAMP_COLUMNS = [...LINK_STAMP_COLUMNS.map(([name]) => name), 'chain_stamped', 'ancestors'].join(', ');
const STAMP_OF = (alias) => [...STAMP_SOURCE_COLUMNS.map((name) => `${alias}.${name}`), 'toUInt8(1)', 'ch.ancestors'].join(', ');
const CHAINS_OF = (db) =>
  `LEFT JOIN (SELECT link_id, ancestors FROM ${db}.link_chains FINAL WHERE project_id = toUUID({project:String})) AS ch ON ch.link_id = l.link_id`;

// A uniform double in [0, 1) from a deterministic hash of the arguments.
const U = (...args) => `(cityHash64(${args.join(', ')}) / 18446744073709551616.0)`;

// User agents, each with its share of human clicks in 1,000: devices desktop 45%, mobile 45%, tablet
// 7%, other 3% (TVs, a console, no agent); 11 browsers, 8 operating systems. Their dimensions are
// what the worker computes for them (describeAgent).
const AGENTS = [
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 200],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 60],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15', 60],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.87', 60],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0', 25],
  ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0', 10],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 OPR/111.0.0.0', 10],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 YaBrowser/24.6.0.0 Safari/537.36', 10],
  ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 15],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 180],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1', 30],
  ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.122 Mobile Safari/537.36', 150],
  ['Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36', 50],
  ['Mozilla/5.0 (Linux; U; Android 12; en-US; RMX3363 Build/RKQ1.211119.001) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/100.0.4896.58 UCBrowser/13.4.0.1306 Mobile Safari/537.36', 15],
  ['Mozilla/5.0 (Linux; Android 14; moto g) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36 EdgA/126.0.2592.80', 10],
  ['Mozilla/5.0 (Linux; Android 14; SM-A546B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/470.0.0.40.97;]', 10],
  ['Mozilla/5.0 (Mobile; rv:48.0; Nokia 8110 4G) Gecko/48.0 Firefox/48.0 KAIOS/2.5', 5],
  ['Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 45],
  ['Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 20],
  ['Mozilla/5.0 (Linux; Android 12; KFTRWI) AppleWebKit/537.36 (KHTML, like Gecko) Silk/126.3.1 like Chrome/126.0.6478.126 Safari/537.36', 5],
  ['Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/538.1 (KHTML, like Gecko) Version/6.0 TV Safari/538.1', 10],
  ['Mozilla/5.0 (Web0S; Linux/SmartTV) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/87.0.4280.88 Safari/537.36 WebAppManager', 5],
  ['Mozilla/5.0 (PlayStation; PlayStation 5/6.50) AppleWebKit/605.1.15 (KHTML, like Gecko)', 5],
  [null, 10],
];
const BOTS = ['Googlebot/2.1 (+http://www.google.com/bot.html)', 'Twitterbot/1.0', 'facebookexternalhit/1.1'];
// 50 referring sites, skewed (search and social first); 40% of clicks have no referrer (direct).
const REFERRERS = [
  'https://www.google.com/', 'https://t.co/', 'https://www.facebook.com/', 'https://l.facebook.com/', 'https://www.linkedin.com/',
  'https://www.bing.com/', 'https://mail.google.com/', 'https://www.reddit.com/', 'https://www.instagram.com/', 'https://www.youtube.com/',
  'https://duckduckgo.com/', 'https://news.ycombinator.com/', 'https://lm.facebook.com/', 'https://outlook.live.com/', 'https://www.google.co.uk/',
  'https://www.google.de/', 'https://www.google.fr/', 'https://www.google.co.in/', 'https://search.yahoo.com/', 'https://medium.com/',
  'https://www.pinterest.com/', 'https://web.whatsapp.com/', 'https://www.tiktok.com/', 'https://substack.com/', 'https://out.reddit.com/',
  'android-app://com.google.android.gm/', 'android-app://com.slack/', 'https://app.slack.com/', 'https://teams.microsoft.com/', 'https://discord.com/',
  'https://www.google.com.br/', 'https://www.google.es/', 'https://www.google.it/', 'https://www.google.ca/', 'https://www.google.com.au/',
  'https://yandex.ru/', 'https://www.baidu.com/', 'https://www.quora.com/', 'https://github.com/', 'https://stackoverflow.com/',
  'https://www.producthunt.com/', 'https://mastodon.social/', 'https://bsky.app/', 'https://www.threads.net/', 'https://flipboard.com/',
  'https://news.google.com/', 'https://www.ecosia.org/', 'https://search.brave.com/', 'https://www.nytimes.com/', 'https://www.bbc.co.uk/',
];
// 60 countries, most clicks from the first (US, GB, DE, FR, IN …: share of the k-th ∝ a cube law).
const COUNTRIES = [
  'US', 'GB', 'DE', 'FR', 'IN', 'CA', 'BR', 'JP', 'ES', 'IT', 'AU', 'NL', 'MX', 'PL', 'SE', 'TR', 'KR', 'ID', 'CH', 'BE',
  'AR', 'ZA', 'PH', 'NG', 'CO', 'AT', 'IE', 'DK', 'NO', 'FI', 'PT', 'IL', 'SG', 'MY', 'TH', 'VN', 'PK', 'EG', 'SA', 'AE',
  'CL', 'PE', 'NZ', 'CZ', 'RO', 'HU', 'GR', 'UA', 'KE', 'BD', 'TW', 'HK', 'CN', 'UY', 'SK', 'BG', 'HR', 'MA', 'LK', 'RS',
];
const COUNTRY_POWER = 3; // country index = floor(60 · u³): US ≈ 26%, GB ≈ 7%, … the 60th ≈ 0.6%
const REGIONS_PER_COUNTRY = COUNTRIES.map((_, k) => Math.max(1, Math.round(35 / Math.pow(k + 1, 0.7)))); // 301 in all
const CITIES_PER_REGION = REGIONS_PER_COUNTRY.flatMap((n, k) => Array.from({ length: n }, (_, r) => Math.max(1, Math.round(40 / Math.pow(k + 1, 0.55) / Math.pow(r + 1, 0.5))))); // 2,051
const starts = (counts) => counts.reduce((s, n) => [...s, s[s.length - 1] + n], [0]).slice(0, -1);
const REGION_START = starts(REGIONS_PER_COUNTRY);
const CITY_START = starts(CITIES_PER_REGION);
const REGIONS = REGIONS_PER_COUNTRY.flatMap((n, k) => Array.from({ length: n }, (_, r) => `${COUNTRIES[k]} Region ${r + 1}`));
const CITIES = CITIES_PER_REGION.flatMap((n, r) => Array.from({ length: n }, (_, c) => `${REGIONS[r].replace(' Region ', '-')} City ${c + 1}`));

const quote = (v) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "\\'")}'`);
const list = (values) => `[${values.map(quote).join(', ')}]`;

/**
 * The dimension columns of a click from hashes of `seed` (the visitor: its address) and `click`:
 * place (1% no country, 1.5% no region, 3% no city), agent (AGENTS' shares; bots: `bot` picks from
 * BOTS), referrer (40% none). Its user agent and referrer, and their dimensions as the worker's
 * describeAgent and referrerHost give them; `enriched` 1.
 */
function clickDimensionsSql(seed, click, bot) {
  const { describeAgent } = require('../dist/enrichment/user-agent');
  const { referrerHost } = require('../dist/enrichment/referrer');
  const slots = AGENTS.flatMap(([, weight], i) => Array.from({ length: weight }, () => i + 1));
  const agents = AGENTS.map(([agent]) => describeAgent(agent));
  const bots = BOTS.map((agent) => describeAgent(agent));
  const country = `toUInt32(floor(${COUNTRIES.length} * pow(${U(seed, 21)}, ${COUNTRY_POWER})))`;
  const region = `(${list(REGION_START)}[1 + ${country}] + toUInt32(floor(${list(REGIONS_PER_COUNTRY)}[1 + ${country}] * pow(${U(seed, 22)}, 2))))`;
  const city = `(${list(CITY_START)}[1 + ${region}] + toUInt32(floor(${list(CITIES_PER_REGION)}[1 + ${region}] * pow(${U(seed, 23)}, 2))))`;
  const unknown = U(seed, 20);
  const agent = `${list(slots)}[1 + cityHash64(${seed}, 10) % ${slots.length}]`;
  const botIndex = `(1 + cityHash64(${click}, 10) % ${BOTS.length})`;
  const of = (field) => `if(${bot}, ${list(bots.map((b) => b[field]))}[${botIndex}], ${list(agents.map((a) => a[field]))}[${agent}])`;
  const referrer = `toUInt32(floor(${REFERRERS.length} * pow(${U(click, 9)}, 3)))`;
  const direct = `${U(click, 8)} < 0.4`;
  return {
    user_agent: `if(${bot}, ${list(BOTS)}[${botIndex}], ${list(AGENTS.map(([a]) => a))}[${agent}])`,
    referrer: `if(${direct}, NULL, ${list(REFERRERS)}[1 + ${referrer}])`,
    country: `if(${unknown} < 0.01, NULL, ${list(COUNTRIES)}[1 + ${country}])`,
    region: `if(${unknown} < 0.015, NULL, ${list(REGIONS)}[1 + ${region}])`,
    city: `if(${unknown} < 0.03, NULL, ${list(CITIES)}[1 + ${city}])`,
    device: of('device'),
    browser: of('browser'),
    os: of('os'),
    referrer_host: `if(${direct}, NULL, ${list(REFERRERS.map(referrerHost))}[1 + ${referrer}])`,
    enriched: 'toUInt8(1)',
  };
}
const DIMENSIONS = ['country', 'region', 'city', 'device', 'browser', 'os', 'referrer_host', 'enriched'];

/**
 * The seed's context: the store opened on the service's CHDB_DIR (the config's `chdbDir` and `db`),
 * a `step` that runs one statement and prints its time, a `count` of one number, and the arguments
 * of ClickHouse's postgresql() table function for a table of the bench database.
 */
async function openSeed(cfg) {
  const ch = await openAnalyticsClient({ url: null, embeddedDir: cfg.chdbDir, database: cfg.db });
  const { pg } = cfg;
  return {
    ...cfg,
    ch,
    pgArgs: (table) => `'${pg.host}', '${pg.database}', '${table}', '${pg.user}', '${pg.password}'`,
    step: async (label, sql, params = {}) => {
      const t = Date.now();
      await ch.command(sql, params);
      console.log(`  ${label} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    },
    count: async (sql) => Number((await ch.query(`SELECT toString((${sql})) AS n`))[0].n),
  };
}

const SETTINGS = `SETTINGS max_threads = 2, max_insert_threads = 2`;

/** The store's tables, as the service creates them. */
async function createSchema({ ch, db }) {
  for (const statement of analyticsSchema(db)) await ch.command(statement);
}

/** The links, as PostgreSQL holds them (LinkMirror.mirrorRow's columns and version); checks their count. */
async function mirrorLinks({ db, projectId, links, pgArgs, step, count }) {
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
}

/**
 * Click events as the PostgreSQL seed of earlier versions drew them: `events` bursts, 20% on 1000
 * hot links (4x heavier), the rest on links biased to recent ones (the links are the ids `first` to
 * `first + links - 1`, in creation order); a burst's hour follows its link's creation (70% within
 * about a day, 30% anywhere in its life up to `endHour`); burst weights scaled so the human clicks
 * are exactly `clicks`. Each burst is then spelled out as raw clicks, at random milliseconds of its
 * hour (never before the link's creation); 1 burst in 10 carries 1 + clicks/5 bot clicks on top.
 * Every click carries its link's stamp and click dimensions. Checks the human clicks' count.
 */
async function seedClicks({ db, projectId, first, links, clicks, events, endHour, step, count }) {
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
  // A click's visitor (its address, agent and place) is shared by up to 4 neighbouring clicks of
  // its burst; its referrer is its own.
  const dims = clickDimensionsSql('b.k, intDiv(j, 4)', 'b.k, j', 'j >= b.c');
  await step(
    `clicks (${clicks} human clicks in ${events} bursts, and bots; with click dimensions)`,
    `INSERT INTO ${db}.clicks (project_id, link_id, clicked_at, click_id, referrer, user_agent, ip, is_bot, ${STAMP_COLUMNS}, ${DIMENSIONS.join(', ')})
     SELECT toUUID({project:String}), b.link_id,
            greatest(l.created_at, toDateTime64(
              toStartOfHour(l.created_at) + toIntervalHour(
                if(b.anywhere, toUInt64(floor(b.u * 1e9)), toUInt64(floor(-ln(1 - b.u) * 24)))
                % greatest(1, intDiv(toUnixTimestamp({end:DateTime('UTC')}) - toUnixTimestamp(toStartOfHour(l.created_at)), 3600))),
              3, 'UTC') + toIntervalMillisecond(cityHash64(b.k, j, 7) % 3600000)) AS clicked_at,
            generateUUIDv4(cityHash64(b.k, j)) AS click_id,
            ${dims.referrer} AS referrer,
            ${dims.user_agent} AS user_agent,
            IPv4NumToString(toUInt32(cityHash64(b.k, intDiv(j, 4), 11) % 4294967296)) AS ip,
            toUInt8(j >= b.c) AS is_bot,
            ${STAMP_OF('l')},
            ${DIMENSIONS.map((d) => `${dims[d]} AS ${d}`).join(',\n            ')}
     FROM (${burstSql}) AS b
     INNER JOIN (SELECT * FROM ${db}.links WHERE project_id = toUUID({project:String})) AS l ON l.link_id = b.link_id
     ${CHAINS_OF(db)}
     ARRAY JOIN range(toUInt64(b.c + if(b.bot AND b.c > 0, 1 + intDiv(b.c, 5), 0))) AS j
     ${SETTINGS}`,
    { project: projectId, end: endHour },
  );
  const human = await count(`SELECT countIf(is_bot = 0) FROM ${db}.clicks`);
  if (human !== clicks) throw new Error(`seeded ${human} human clicks, expected ${clicks}`);
}

/**
 * Conversions, per hour with clicks of a link as the earlier seed: pageviews (half its clicks) on
 * 10% of them, one goal_1 (value 500 to 4999) on 3%, one goal_2 on 1%; each spelled out as events at
 * random milliseconds of that hour, carrying the dimensions (and id) of one human click of that link
 * and hour, as a conversion carries its click's.
 */
async function seedConversions({ db, projectId, step }) {
  await step(
    'conversions',
    `INSERT INTO ${db}.conversions (project_id, link_id, converted_at, conversion_id, type, value, ${STAMP_COLUMNS}, click_id, ${DIMENSIONS.join(', ')})
     SELECT c.project_id, c.link_id, toDateTime64(hour, 3, 'UTC') + toIntervalMillisecond(cityHash64(c.link_id, hour, v.1, j, 12) % 3600000),
            generateUUIDv4(cityHash64(c.link_id, hour, v.1, j)), v.1, v.3, ${STAMP_OF('l')},
            c.click.1, ${DIMENSIONS.map((d, i) => `c.click.${i + 2}`).join(', ')}
     FROM (
       SELECT project_id, link_id, toStartOfHour(clicked_at) AS hour, countIf(is_bot = 0) AS n, ${U('link_id', 'toUnixTimestamp(hour)', 13)} AS r,
              argMinIf((click_id, ${DIMENSIONS.join(', ')}), clicked_at, is_bot = 0) AS click
       FROM ${db}.clicks GROUP BY project_id, link_id, hour HAVING n > 0
     ) AS c
     INNER JOIN (SELECT * FROM ${db}.links WHERE project_id = toUUID({project:String})) AS l ON l.link_id = c.link_id
     ${CHAINS_OF(db)}
     ARRAY JOIN [('pageview', greatest(1, intDiv(n, 2)), 0, r < 0.10),
                 ('goal_1', 1, 500 + toUInt64(floor(r * 100000)) % 4500, r < 0.03),
                 ('goal_2', 1, 0, r < 0.01)] AS v
     ARRAY JOIN range(toUInt64(v.2)) AS j
     WHERE v.4
     ${SETTINGS}`,
    { project: projectId },
  );
}

/** A settled store: parts merged as background merges leave them after a while. */
async function optimizeTables({ db, step }, tables) {
  for (const table of tables) await step(`OPTIMIZE ${table} FINAL`, `OPTIMIZE TABLE ${db}.${table} FINAL`);
}

/**
 * The store's sizes (rows, (link, hour) rows, conversions, active parts), its busiest link, and the
 * spread of the click dimensions (printed).
 */
async function storeSizes({ ch, db, count }) {
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
  // The click dimensions' spread (human clicks): distinct values, and the shares of the largest.
  const [spread] = await ch.query(
    `SELECT toString(uniqExact(country)) AS countries, toString(uniqExact(region)) AS regions, toString(uniqExact(city)) AS cities,
            toString(uniqExact(browser)) AS browsers, toString(uniqExact(os)) AS oses, toString(uniqExact(referrer_host)) AS referrer_hosts,
            toString(round(100 * countIf(country = 'US') / count(), 1)) AS us, toString(round(100 * countIf(referrer_host IS NULL) / count(), 1)) AS direct,
            concat(${['desktop', 'mobile', 'tablet', 'other'].map((d) => `'${d} ', toString(round(100 * countIf(device = '${d}') / count(), 1)), '%'`).join(", ', ', ")}) AS devices
     FROM ${db}.clicks WHERE is_bot = 0`,
  );
  sizes.dimensions = spread;
  console.log(
    `  dimensions: ${spread.countries} countries (US ${spread.us}%), ${spread.regions} regions, ${spread.cities} cities; devices ${spread.devices}; ` +
      `${spread.browsers} browsers, ${spread.oses} OS; ${spread.referrer_hosts} referrer hosts, ${spread.direct}% direct`,
  );
  return sizes;
}

/**
 * The previous design's rollups in PostgreSQL, from the same events: per (link, hour) human and bot
 * clicks and the latest human click; per (link, hour, type) conversion counts and values.
 */
async function baselineRollups({ db, pgArgs, step }) {
  await step(
    'baseline link_clicks_hourly (PostgreSQL)',
    `INSERT INTO FUNCTION postgresql(${pgArgs('link_clicks_hourly')}) (link_id, hour, project_id, clicks, bot_clicks, last_clicked_at)
     SELECT link_id, toStartOfHour(clicked_at) AS hour, project_id, toInt32(countIf(is_bot = 0)), toInt32(countIf(is_bot = 1)),
            maxIf(clicked_at, is_bot = 0)
     FROM ${db}.clicks GROUP BY project_id, link_id, hour ORDER BY hour, link_id
     ${SETTINGS}`,
  );
  await step(
    'baseline link_conversions_hourly (PostgreSQL)',
    `INSERT INTO FUNCTION postgresql(${pgArgs('link_conversions_hourly')}) (link_id, hour, type, project_id, count, value)
     SELECT link_id, toStartOfHour(converted_at) AS hour, toString(type), project_id, toInt32(count()), sum(value)
     FROM ${db}.conversions GROUP BY project_id, link_id, hour, type ORDER BY hour, link_id
     ${SETTINGS}`,
  );
}

async function main() {
  const seed = await openSeed(JSON.parse(process.argv[2]));
  try {
    await createSchema(seed);
    await mirrorLinks(seed);
    await seedClicks(seed);
    await seedConversions(seed);
    if (seed.optimize) await optimizeTables(seed, ['clicks', 'conversions', 'links']);
    const sizes = await storeSizes(seed);
    if (seed.baseline) await baselineRollups(seed);
    process.stdout.write(`SIZES ${JSON.stringify(sizes)}\n`);
  } finally {
    await seed.ch.close();
  }
}

module.exports = { openSeed, createSchema, mirrorLinks, seedClicks, seedConversions, optimizeTables, storeSizes, baselineRollups };

if (require.main === module) {
  main().catch((error) => {
    console.error(String(error?.message ?? error).slice(0, 2000));
    process.exit(1);
  });
}
