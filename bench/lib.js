// Shared pieces of the benchmarks: a scratch database, the service in a child process, a
// keep-alive HTTP load loop. Plain JavaScript so `npm run bench:*` needs no compile step of its own.
const { spawn } = require('node:child_process');
const http = require('node:http');
const { randomBytes } = require('node:crypto');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function databaseUrl(name) {
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function adminQuery(sql) {
  const client = new Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function createDatabase() {
  const name = `svc_bench_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  return name;
}

async function dropDatabase(name) {
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

/** BENCH_NODE_ARGS: extra Node options for the service, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
function nodeArgs() {
  return (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
}

/** The Node options `npm start` runs the service with (package.json), so the benchmarks run it alike. */
function startArgs() {
  const start = require('../package.json').scripts.start.split(' ');
  return start.slice(1, start.indexOf('dist/main.js'));
}

/** Starts dist/main.js (as `npm start` does) on its own database and port; resolves when /health answers. */
async function startService(env) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(process.execPath, [...startArgs(), ...nodeArgs(), 'dist/main.js'], {
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited (${child.exitCode}): ${output}`);
    try {
      const res = await request({ port, method: 'GET', path: '/health' });
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('service did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    port,
    pid: child.pid,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

function request({ port, method, path, body, headers = {} }) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path, agent, headers: { ...headers, ...(body ? { 'Content-Length': Buffer.byteLength(body) } : {}) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

/** Runs `task` with `concurrency` loops until `total` tasks ran; returns seconds elapsed. */
async function runLoad(total, concurrency, task) {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        await task(i);
      }
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Creates a project through the service's admin API (projects/new) and returns its api_key. */
async function createProject(port, subscriptionKey, applicationKey, settings = {}) {
  const res = await request({
    port,
    method: 'POST',
    path: '/projects/new',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      subscription_key: subscriptionKey,
      application_key: applicationKey,
      json: JSON.stringify({ name: 'bench', ...settings }),
    }).toString(),
  });
  if (res.status !== 200) throw new Error(`projects/new ${res.status} ${res.body}`);
  return JSON.parse(res.body).response.project.api_key;
}

/**
 * The store a seeded benchmark (stats, list) times: a new PostgreSQL database, or with
 * BENCH_REUSE_DATABASE=<name> (kept by an earlier run with BENCH_KEEP_DATABASE=1) that database and
 * the service's data folder beside it, the seed skipped; and the service's environment on it (the
 * embedded analytics store in that folder, Redis, bootstrap keys).
 */
async function seededStore() {
  const reuse = process.env.BENCH_REUSE_DATABASE;
  const name = reuse ?? (await createDatabase());
  const dataDir = path.join(process.env.BENCH_DATA_DIR ?? os.tmpdir(), name);
  const subscriptionKey = `bench_${randomBytes(12).toString('hex')}`;
  const applicationKey = `bench_${randomBytes(12).toString('hex')}`;
  const serviceEnv = {
    DATABASE_URL: databaseUrl(name),
    REDIS_URL,
    REDIS_PREFIX: `bench:${randomBytes(3).toString('hex')}`,
    DEFAULT_DOMAIN: 'bench.svc',
    BOOTSTRAP_SUBSCRIPTION_KEY: subscriptionKey,
    BOOTSTRAP_APPLICATION_KEY: applicationKey,
    // The embedded store, in the bench's own folder.
    DATA_DIR: dataDir,
    CHDB_DIR: '',
    CLICKHOUSE_URL: '',
    CLICKHOUSE_DATABASE: 'svc',
  };
  return {
    reuse,
    name,
    dataDir,
    sizesFile: path.join(dataDir, 'bench-sizes.json'),
    subscriptionKey,
    applicationKey,
    serviceEnv,
  };
}

module.exports = { DATABASE_URL, REDIS_URL, databaseUrl, createDatabase, dropDatabase, startService, request, createProject, runLoad, median, seededStore };
