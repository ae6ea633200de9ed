// npm run bench:list — url/list.json (listing a project's links, docs/api.md "Listing links") on a
// seeded project: 1M links with notes, tags and campaigns in PostgreSQL, their mirror and 10M clicks
// in the analytics store (embedded chDB), timed through the service's HTTP API. Prints p50 and p95
// per query and the targets missed (p50 ≤ 100 ms for the default page, a filter, a search and
// sort_type=clicks). Each answer is checked off the clock against PostgreSQL (total_results) and
// against its own order; a difference is an error.
//
// Seeding, as bench:stats does it: the links go into PostgreSQL through SQL (here with notes and
// words in their URLs, so that searches have something to find); then bench/stats-seed.js (a
// short-lived child process on the service's chDB folder) mirrors them from PostgreSQL and
// generates the clicks and conversions inside the engine; then the service starts on that folder.
//
//   npm run bench:list                               # 1M links, 10M clicks
//   BENCH_KEEP_DATABASE=1 npm run bench:list         # keep the seeded data, then time it again:
//   BENCH_REUSE_DATABASE=svc_bench_xxxxxxxx npm run bench:list
//   BENCH_LINKS=100000 BENCH_CLICKS=1000000 npm run bench:list
const path = require('node:path');
const { rm, mkdir, readFile, writeFile } = require('node:fs/promises');
const { Client } = require('pg');
const lib = require('./lib');

const LINKS = Number(process.env.BENCH_LINKS ?? 1_000_000);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 10_000_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? Math.round(CLICKS * 0.3));
const OPTIMIZE = process.env.BENCH_OPTIMIZE !== '0';
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const DAYS = 90;
const TARGET_MS = 100;

const CHANNELS = ['twitter', 'facebook-post', 'email', 'copypaste', 'linkedin', 'facebook-share', 'whatsapp', 'reddit', 'pinterest', 'sms'];
const SERVICES = ['twitter', 'facebook', 'email', 'copypaste', 'linkedin', 'facebook', 'whatsapp', 'reddit', 'pinterest', 'sms'];
const HOSTS = ['example.com', 'blog.example.com', 'shop.example.org', 'news.example.net', 'docs.example.io', 'www.acme.test', 'store.acme.test', 'media.example.com'];
// Words of the notes and URL slugs, drawn with a skew (the first ones most often). No word is part
// of another, so a word's matches are the links that hold it.
const WORDS = `amber anchor apricot arcade atlas avocado badger ballad bamboo banjo barley basil beacon beetle biscuit blossom
  bonfire bramble breeze bucket buffalo cabin cactus canyon caramel carpet cascade castle cedar cello cherry chimney cinder
  citrus clover cobalt comet copper coral cotton coyote crystal cymbal dahlia daisy delta desert dolphin dragon drizzle
  eagle ebony echo eclipse ember emerald falcon feather fennel fiddle fjord flamingo forest fossil fountain galaxy garlic
  garnet geyser ginger glacier goblet granite gravel harbor harvest hazel hedgehog helmet heron hickory honey horizon
  iceberg indigo island ivory jackal jasmine jigsaw juniper kayak kettle kiwi lagoon lantern lava lemon leopard lilac
  lobster lotus lumber magnet mango maple marble meadow melon meteor mimosa mineral mirror monsoon mosaic muffin nectar
  needle nutmeg oasis octopus olive onyx orbit orchid otter oyster paddle panther papaya parsley pebble pepper pigeon
  pillow pistachio planet plum pollen poppy prairie pretzel puffin pumpkin quartz quill quiver rabbit radish raven reef
  ribbon river rocket saffron salmon sapphire satchel scarlet sequoia shadow sherbet silver sparrow spinach spruce summit
  sunset swallow tadpole tangerine teapot thistle thunder tiger timber tornado tulip tundra turnip velvet violet volcano
  walnut walrus willow windmill yonder zephyr zinnia`.split(/\s+/).filter(Boolean);

const form = (fields) =>
  Object.entries(fields)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');

const seconds = (t) => ((Date.now() - t) / 1000).toFixed(0);

// The searched text, as the migration's index holds it (src/database/migrations/1764000000000-links-list.ts).
const { LINK_SEARCH_TEXT } = require('../dist/database/migrations/1764000000000-links-list');

/**
 * Links, straight into PostgreSQL, set-based, reproducible (setseed): as bench:stats' (created over
 * the 90 days before `endHour`, ids in creation order, channels skewed, 50 campaigns, 1000 tags),
 * plus an original_url of one of 8 hosts with two words in its path, and notes of three words on
 * two links in three. The search index is built once the rows are in (faster than row by row).
 */
async function seedLinks(db, projectId, endHour) {
  const t0 = Date.now();
  await db.query(`SET work_mem = '256MB'`);
  await db.query(`SET maintenance_work_mem = '1GB'`);
  await db.query(`SET session_replication_role = replica`);
  const [index] = (await db.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_links_search'`)).rows;
  if (index) await db.query(`DROP INDEX ix_links_search`);
  await db.query(`SELECT setseed(0.42)`);
  const word = (n) => `($6::text[])[1 + floor(${WORDS.length} * w${n} ^ 2)::int]`;
  await db.query(
    `INSERT INTO links (project_id, svc_id, domain, path, original_url, redirect_url, channel, service, tool, application,
                        campaign, tag, notes, service_postid, service_postid_shared_at, created_at, updated_at)
     SELECT $1, 'bench.svc_b' || i, 'bench.svc', 'b' || i, url, url,
            ($4::text[])[c], ($5::text[])[c], 'bench-tool', 'bench',
            CASE WHEN i % 10 = 0 THEN NULL ELSE 'campaign-' || lpad(((i * 7) % 50)::text, 2, '0') END,
            'tag-' || lpad(t::text, 4, '0'),
            CASE WHEN i % 3 = 0 THEN NULL ELSE initcap(${word(3)}) || ' ' || ${word(4)} || ' ' || ${word(5)} END,
            CASE WHEN i % 20 = 0 THEN 'twitter:' || i END,
            CASE WHEN i % 20 = 0 THEN created + interval '10 minutes' END,
            created, created
     FROM (
       SELECT *, 'https://' || ($7::text[])[1 + (i * 13) % ${HOSTS.length}] || '/' || ${word(1)} || '/' || ${word(2)} || '-' || i AS url
       FROM (
         SELECT i, 1 + floor(10 * random() ^ 1.5)::int AS c, floor(1000 * random() ^ 2)::int AS t,
                random() AS w1, random() AS w2, random() AS w3, random() AS w4, random() AS w5,
                $2::timestamptz - make_interval(days => ${DAYS}) + (i - 1 + random()) * (make_interval(days => ${DAYS}) / $3) AS created
         FROM generate_series(1, $3::int) i
       ) r
     ) s`,
    [projectId, endHour, LINKS, CHANNELS, SERVICES, WORDS, HOSTS],
  );
  await db.query(`SET session_replication_role = DEFAULT`);
  console.log(`  links: ${LINKS} in PostgreSQL in ${seconds(t0)} s`);
  if (index) {
    const t1 = Date.now();
    await db.query(index.indexdef);
    console.log(`  search index (pg_trgm) in ${seconds(t1)} s`);
  }
  await db.query(`VACUUM ANALYZE links`);
}


async function time(task) {
  const started = process.hrtime.bigint();
  await task();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** `total_results` as PostgreSQL counts it: the project's links with the column values and every search word. */
async function pgCount(db, projectId, { filters = {}, search = [] } = {}) {
  const params = [projectId];
  const conditions = Object.entries(filters).map(([column, value]) => {
    params.push(value);
    return `${column} = $${params.length}`;
  });
  for (const w of search) {
    params.push(`%${w}%`);
    conditions.push(`${LINK_SEARCH_TEXT} ILIKE $${params.length}`);
  }
  const sql = `SELECT count(*)::int AS n FROM links WHERE project_id = $1${conditions.map((c) => ` AND ${c}`).join('')}`;
  return (await db.query(sql, params)).rows[0].n;
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
    let sizes;
    if (reuse) {
      ({ key, sizes } = JSON.parse(await readFile(sizesFile, 'utf8')));
    } else {
      const t0 = Date.now();
      await mkdir(dataDir, { recursive: true });
      await db.query(`ALTER DATABASE "${name}" SET timezone = 'UTC'`);
      service = await lib.startService(serviceEnv);
      key = await lib.createProject(service.port, subscriptionKey, applicationKey);
      await service.stop();
      service = undefined;
      const projectId = (await db.query('SELECT id FROM projects WHERE api_key = $1', [key])).rows[0].id;
      const endHour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
      console.log(`bench:list — seeding ${LINKS} links, ${CLICKS} clicks (${EVENTS} bursts) over ${DAYS} days`);
      await seedLinks(db, projectId, endHour);
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
        baseline: false,
        optimize: OPTIMIZE,
      });
      sizes.links = LINKS;
      sizes.clicks = CLICKS;
      await writeFile(sizesFile, JSON.stringify({ key, sizes }));
      console.log(`  seeded in ${seconds(t0)} s`);
    }
    const projectId = (await db.query('SELECT id FROM projects WHERE api_key = $1', [key])).rows[0].id;
    service = await lib.startService(serviceEnv);

    const get = async (params) => {
      const res = await lib.request({ port: service.port, method: 'GET', path: `/url/list.json?${form({ v: '3', key, ...params })}` });
      if (res.status !== 200) throw new Error(`url/list.json ${res.status} ${res.body.slice(0, 300)}`);
      return res.body;
    };
    // A word found in about 1% of the links, and one found with it in some of them.
    const one = WORDS[60];
    const two = [WORDS[60], WORDS[8]];
    const broad = 'shop.example.org';
    const queries = [
      { name: 'default page (newest first)', params: {}, count: {}, target: true },
      { name: 'page 50', params: { page: '50' }, count: {}, target: true },
      { name: 'filter channel=email', params: { channel: 'email' }, count: { filters: { channel: 'email' } }, target: true },
      { name: `search one word (${one})`, params: { search: one }, count: { search: [one] }, target: true },
      { name: `search two words (${two.join(' ')})`, params: { search: two.join(' ') }, count: { search: two }, target: true },
      { name: 'sort_type=clicks desc', params: { sort_type: 'clicks' }, count: {}, target: true },
      { name: 'sort_type=clicks asc', params: { sort_type: 'clicks', sort_order: 'asc' }, count: {} },
      { name: 'sort_type=clicks, channel=email', params: { sort_type: 'clicks', channel: 'email' }, count: { filters: { channel: 'email' } } },
      { name: `sort_type=clicks, search ${one}`, params: { sort_type: 'clicks', search: one }, count: { search: [one] } },
      { name: 'filter channel=email, page 50', params: { channel: 'email', page: '50' }, count: { filters: { channel: 'email' } } },
      { name: `search broad (${broad}, 1 link in 8)`, params: { search: broad }, count: { search: [broad] } },
      { name: 'per_page=1000', params: { per_page: '1000' }, count: {} },
    ];
    const only = process.env.BENCH_QUERIES?.split(',').map(Number);
    const results = [];
    for (const [i, q] of queries.entries()) {
      if (only && !only.includes(i + 1)) continue;
      // Off the clock: the answer against PostgreSQL's count and its own order.
      const body = JSON.parse(await get(q.params));
      const expected = await pgCount(db, projectId, q.count);
      if (body.total_results !== expected) errors.push(`${q.name}: total_results ${body.total_results}, PostgreSQL counts ${expected}`);
      const perPage = Number(q.params.per_page ?? 10);
      const offset = (Number(q.params.page ?? 1) - 1) * perPage;
      if (body.links.length !== Math.max(0, Math.min(perPage, expected - offset)))
        errors.push(`${q.name}: ${body.links.length} links on the page`);
      const desc = q.params.sort_order !== 'asc';
      const keys = body.links.map((l) => (q.params.sort_type === 'clicks' ? l.clicks : Date.parse(l.created_at)));
      if (keys.some((k, j) => j > 0 && (desc ? k > keys[j - 1] : k < keys[j - 1]))) errors.push(`${q.name}: the page is out of order`);
      const warmUntil = Date.now() + WARMUP_SECONDS * 1000;
      for (let w = 1; w < WARMUP || Date.now() < warmUntil; w++) await get(q.params);
      const times = [];
      for (let r = 0; r < RUNS; r++) times.push(await time(() => get(q.params)));
      results.push({ ...q, total: body.total_results, p50: lib.percentile(times, 0.5), p95: lib.percentile(times, 0.95) });
    }

    console.log(`data: ${sizes.links} links, ${sizes.clicks} human clicks (${sizes.clickRows} raw click rows with bots), ${sizes.parts} active parts`);
    console.log(`${RUNS} sequential keep-alive runs each after ${WARMUP} warm-up(s) and at least ${WARMUP_SECONDS} s of them; ms`);
    console.log(`${'query'.padEnd(48)} ${'total'.padStart(8)}  p50      p95`);
    const misses = [];
    for (const r of results) {
      const missed = r.target && r.p50 > TARGET_MS;
      if (missed) misses.push(r.name);
      console.log(
        `${r.name.padEnd(48)} ${String(r.total).padStart(8)} ${r.p50.toFixed(1).padStart(6)} ${r.p95.toFixed(1).padStart(8)}` +
          `${r.target ? '' : '  (no target)'}${missed ? `  MISSES TARGET (p50 > ${TARGET_MS} ms)` : ''}`,
      );
    }
    console.log(`target: p50 ≤ ${TARGET_MS} ms for the default page, page 50, the filter, both searches and sort_type=clicks; ${misses.length === 0 ? 'all met' : `missed: ${misses.join('; ')}`}`);
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
