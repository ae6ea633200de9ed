// npm run bench:export — an export of a seeded project's clicks (10M human clicks by default,
// BENCH_CLICKS) as CSV through the service's HTTP API (docs/api.md, "Export"), on its analytics
// store (embedded chDB): rows a second, from the request to the last byte, and the service
// process's resident memory (VmRSS in /proc/<pid>/status) when idle and at its peak during the
// export, sampled every 20 ms. Targets (issue 45): at least 300,000 rows a second, and at most
// 150 MB above idle.
//
// Idle is the service started on the seeded store, once it has answered one small export (a
// thousand clicks: the engine's code and caches that any export loads, paged in), then left alone
// for BENCH_IDLE seconds. The export asks every human click (no filter, no period, as the store
// holds them), read by the bench as fast as it comes; its lines are counted (header excluded) and
// must be the seeded clicks.
//
// Seeding is bench:stats' (its seedLinks into PostgreSQL, then bench/stats-seed.js in a child
// process: links mirrored, clicks and conversions generated in the engine), without the PostgreSQL
// baseline. Prints one line for scripts:
//   bench:export rows=… rows_per_s=… rss_idle_mb=… rss_peak_mb=… rss_above_idle_mb=…
// and exits 1 on a wrong count or a missed target.
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { rm, mkdir, readFile, writeFile } = require('node:fs/promises');
const { Client } = require('pg');
const lib = require('./lib');
const { seedLinks } = require('./stats');

const LINKS = Number(process.env.BENCH_LINKS ?? 1_000_000);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 10_000_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? Math.round(CLICKS * 0.3));
const OPTIMIZE = process.env.BENCH_OPTIMIZE !== '0';
const IDLE_SECONDS = Number(process.env.BENCH_IDLE ?? 5);
const TARGET_ROWS_PER_S = 300_000;
const TARGET_ABOVE_IDLE_MB = 150;

/** VmRSS of a process, in MB. */
function rssMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)[1]) / 1024;
}

/** GET `path` on the service, its body read and dropped as it comes: lines, bytes and seconds. */
function download(port, path) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.get({ host: '127.0.0.1', port, path }, (res) => {
      if (res.statusCode !== 200) {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => reject(new Error(`${path}: ${res.statusCode} ${body.slice(0, 300)}`)));
        return;
      }
      let lines = 0;
      let bytes = 0;
      res.on('data', (chunk) => {
        bytes += chunk.length;
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      });
      res.on('end', () =>
        resolve({ lines, bytes, seconds: Number(process.hrtime.bigint() - started) / 1e9 }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function main() {
  const { reuse, name, dataDir, sizesFile, subscriptionKey, applicationKey, serviceEnv } =
    await lib.seededStore();
  let service;
  const db = new Client({ connectionString: lib.databaseUrl(name) });
  const missed = [];
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
      console.log(`bench:export — seeding ${LINKS} links, ${CLICKS} clicks (${EVENTS} bursts)`);
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
      sizes.clicks = CLICKS;
      await writeFile(sizesFile, JSON.stringify({ key, sizes }));
      console.log(`  seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
    service = await lib.startService(serviceEnv);
    const exportPath = (query) => `/export/clicks.csv?v=3&key=${encodeURIComponent(key)}${query}`;
    // One small export (the busiest link's clicks), then idle.
    const busy = (await db.query('SELECT svc_id FROM links WHERE id = $1', [sizes.busyLinkId])).rows[0].svc_id;
    await download(service.port, exportPath(`&svc_id=${encodeURIComponent(busy)}`));
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const idle = rssMb(service.pid);
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(service.pid));
    }, 20);
    let result;
    try {
      result = await download(service.port, exportPath(''));
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, rssMb(service.pid));
    const rows = result.lines - 1;
    const perSecond = Math.round(rows / result.seconds);
    console.log(
      `  ${rows} rows, ${(result.bytes / 1e6).toFixed(0)} MB of CSV in ${result.seconds.toFixed(1)} s`,
    );
    if (rows !== sizes.clicks) missed.push(`exported ${rows} rows, the store holds ${sizes.clicks} human clicks`);
    if (perSecond < TARGET_ROWS_PER_S) missed.push(`${perSecond} rows/s, target ≥ ${TARGET_ROWS_PER_S}`);
    if (peak - idle > TARGET_ABOVE_IDLE_MB)
      missed.push(`${(peak - idle).toFixed(0)} MB above idle, target ≤ ${TARGET_ABOVE_IDLE_MB}`);
    console.log(
      `bench:export rows=${rows} rows_per_s=${perSecond} rss_idle_mb=${idle.toFixed(0)} ` +
        `rss_peak_mb=${peak.toFixed(0)} rss_above_idle_mb=${(peak - idle).toFixed(0)}`,
    );
  } finally {
    if (service) await service.stop();
    await db.end();
    if (!process.env.BENCH_KEEP_DATABASE && !reuse) {
      await lib.dropDatabase(name);
      await rm(dataDir, { recursive: true, force: true });
    } else console.log(`database kept: BENCH_REUSE_DATABASE=${name} (store in ${dataDir})`);
  }
  if (missed.length > 0) {
    for (const m of missed) console.error(`MISSED ${m}`);
    process.exit(1);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
