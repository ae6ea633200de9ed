// npm run bench:memory — resident memory of the built service when idle, as `npm start` runs it.
// Embedded (no DATABASE_URL, REDIS_URL or CLICKHOUSE_URL: PGlite, chDB and in-process jobs under a
// fresh DATA_DIR): the first start, which creates the databases, then a restart on the same folder.
// Then with PostgreSQL and Redis external (a scratch database) and the analytics store embedded, or
// a ClickHouse server too with BENCH_CLICKHOUSE_URL. Each start: wait for /health/ready, let it
// settle (BENCH_IDLE seconds), read VmRSS and VmHWM from /proc/<pid>/status, stop it (SIGTERM).
// BENCH_RUNS runs of the whole sequence; medians.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const lib = require('./lib');

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE ?? 15);
const EXTERNAL = process.env.BENCH_EXTERNAL !== '0';
const TARGET_EMBEDDED_MB = 450;
const TARGET_EXTERNAL_MB = 250;

/** VmRSS and VmHWM of a process, in MB, and its resident memory split as smaps_rollup counts it. */
function memory(pid) {
  const field = (text, name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) / 1024;
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return {
    rss: field(status, 'VmRSS'),
    hwm: field(status, 'VmHWM'),
    anon: field(status, 'RssAnon'),
    file: field(status, 'RssFile'),
    pss: field(rollup, 'Pss'),
  };
}

/** Starts the service with `env`, waits until it is ready and idle, measures, stops it. */
async function measure(env) {
  const service = await lib.startService({ ...env, LOG_LEVEL: 'warn' });
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await lib.request({ port: service.port, method: 'GET', path: '/health/ready' }).catch(() => null);
      if (res?.status === 200) break;
      if (Date.now() > deadline) throw new Error(`/health/ready: ${res?.status} ${res?.body}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    return memory(service.pid);
  } finally {
    await service.stop();
  }
}

async function main() {
  const keys = {
    BOOTSTRAP_SUBSCRIPTION_KEY: `bench_${randomBytes(12).toString('hex')}`,
    BOOTSTRAP_APPLICATION_KEY: `bench_${randomBytes(12).toString('hex')}`,
  };
  const embedded = { ...keys, DATABASE_URL: '', REDIS_URL: '', CLICKHOUSE_URL: '', CHDB_DIR: '', GEOIP_DB: '' };
  const runs = { first: [], restart: [], external: [] };
  for (let run = 0; run < RUNS; run++) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-memory-'));
    try {
      runs.first.push(await measure({ ...embedded, DATA_DIR: dataDir }));
      runs.restart.push(await measure({ ...embedded, DATA_DIR: dataDir }));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    if (!EXTERNAL) continue;
    const name = await lib.createDatabase();
    const dataDir2 = path.join(os.tmpdir(), name);
    try {
      runs.external.push(
        await measure({
          ...embedded,
          DATABASE_URL: lib.databaseUrl(name),
          REDIS_URL: lib.REDIS_URL,
          REDIS_PREFIX: `bench:${randomBytes(3).toString('hex')}`,
          CLICKHOUSE_URL: process.env.BENCH_CLICKHOUSE_URL ?? '',
          CLICKHOUSE_DATABASE: `bench_${randomBytes(4).toString('hex')}`,
          DATA_DIR: dataDir2,
        }),
      );
    } finally {
      await lib.dropDatabase(name);
      fs.rmSync(dataDir2, { recursive: true, force: true });
    }
  }

  const mb = (value) => value.toFixed(0);
  const med = (list, field) => lib.median(list.map((m) => m[field]));
  const label = {
    first: 'embedded, first start',
    restart: 'embedded, restart',
    external: `PostgreSQL + Redis external, ${process.env.BENCH_CLICKHOUSE_URL ? 'ClickHouse server' : 'chDB embedded'}`,
  };
  console.log(`bench:memory — dist/main.js as \`npm start\` runs it, idle ${IDLE_SECONDS} s after /health/ready; ${RUNS} runs, medians (MB)`);
  console.log(`${''.padEnd(52)}  VmRSS  (anon   file)   VmHWM   runs' VmRSS`);
  for (const key of Object.keys(runs)) {
    const list = runs[key];
    if (list.length === 0) continue;
    console.log(
      `${label[key].padEnd(52)}${mb(med(list, 'rss')).padStart(7)}  (${mb(med(list, 'anon')).padStart(4)} ${mb(med(list, 'file')).padStart(6)})` +
        `${mb(med(list, 'hwm')).padStart(8)}   ${list.map((m) => mb(m.rss)).join(', ')}`,
    );
  }
  console.log(`targets: embedded ≤ ${TARGET_EMBEDDED_MB} MB after the first start and after a restart; external ≤ ${TARGET_EXTERNAL_MB} MB`);
  const figure = (key) => (runs[key].length ? mb(med(runs[key], 'rss')) : 'n/a');
  const peak = (key) => (runs[key].length ? mb(med(runs[key], 'hwm')) : 'n/a');
  console.log(
    `bench:memory first_start_mb=${figure('first')} restart_mb=${figure('restart')} external_mb=${figure('external')}` +
      ` first_start_peak_mb=${peak('first')} restart_peak_mb=${peak('restart')} external_peak_mb=${peak('external')}`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
