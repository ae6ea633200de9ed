// Shared pieces of the benchmarks: a scratch database, the service in a child process, a
// keep-alive HTTP load loop, an autocannon load that drains its connections, a link's clicks as the
// service counts them. Plain JavaScript so `npm run bench:*` needs no compile step of its own.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const { randomBytes } = require('node:crypto');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');
const Redis = require('ioredis');
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
  const start = startWords();
  return start.slice(start.indexOf('node') + 1, start.indexOf('dist/main.js'));
}

/** The words of `npm start`'s command. */
function startWords() {
  return require('../package.json').scripts.start.split(' ');
}

/**
 * The environment `npm start` sets before `node` (`NAME=${NAME:-default}`: the caller's value, else
 * the default), for the service's process; none with BENCH_START_ENV=0 (to compare without it).
 */
function startEnv() {
  const env = {};
  if (process.env.BENCH_START_ENV === '0') return env;
  const words = startWords();
  for (const word of words.slice(0, words.indexOf('node'))) {
    const [, name, fallback] = /^(\w+)=\$\{\w+:-(.*)\}$/.exec(word) ?? [];
    if (!name) throw new Error(`npm start: an assignment not read: ${word}`);
    env[name] = process.env[name] || fallback;
  }
  return env;
}

/** Starts dist/main.js (as `npm start` does) on its own database and port; resolves when /health answers. */
async function startService(env) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(process.execPath, [...startArgs(), ...nodeArgs(), 'dist/main.js'], {
    env: { ...process.env, ...startEnv(), PORT: String(port), LOG_LEVEL: 'warn', ...env },
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

/**
 * One autocannon run of `seconds` with `connections` keep-alive connections. At the end no request
 * is left in flight: autocannon's own stop destroys its sockets with requests outstanding, which the
 * server may still have answered (and counted) without autocannon seeing the response. So each
 * connection is told to stop after the response it is waiting for, and the round ends when all have
 * drained; req/s is the completed responses over that whole time. With `rate`, the connections
 * together send at most that many requests a second (autocannon's overallRate).
 */
function load(port, path, headers, seconds, connections, rate) {
  return drainedRun(
    {
      url: `http://127.0.0.1:${port}${path}`,
      method: 'GET',
      headers,
      connections,
      ...(rate ? { overallRate: rate } : {}),
    },
    seconds,
  );
}

/**
 * One autocannon run of `options` (pipelining 1): for `seconds`, each connection then stopped after
 * the response it waits for (load), or, without `seconds`, until `options.amount` requests.
 */
function drainedRun(options, seconds) {
  return new Promise((resolve, reject) => {
    const clients = [];
    const started = process.hrtime.bigint();
    // A run of `amount` ends at its last response: autocannon reports its end on its next
    // one-second tick, which would add up to a second to a short run.
    let last = started;
    const instance = autocannon(
      {
        pipelining: 1,
        ...options,
        ...(seconds === undefined ? {} : { duration: seconds + 60 }),
        setupClient: (client) => clients.push(client),
      },
      (error, result) => {
        if (error) return reject(error);
        const ended = seconds === undefined ? last : process.hrtime.bigint();
        const elapsed = Number(ended - started) / 1e9;
        const completed = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
        const redirects = result.statusCodeStats['302']?.count ?? 0;
        resolve({
          rps: completed / elapsed,
          p50: result.latency.p50,
          p99: result.latency.p99,
          redirects,
          notFound: result.statusCodeStats['404']?.count ?? 0,
          completed,
          other: completed - redirects,
          errors: result.errors,
          timeouts: result.timeouts,
        });
      },
    );
    if (seconds !== undefined) {
      setTimeout(() => {
        for (const client of clients) client.responseMax = Math.max(1, client.reqsMade);
      }, seconds * 1000);
    }
    if (seconds === undefined) instance.on('response', () => (last = process.hrtime.bigint()));
    instance.on('error', reject);
  });
}

/** The link's clicks as the service counts them (stats/{svc_id}.json, bots included), from its analytics store. */
async function clickTotals(port, key, svcId) {
  const res = await request({ port, method: 'GET', path: `/stats/${encodeURIComponent(svcId)}.json?v=3&key=${key}&with_bots=true` });
  if (res.status !== 200) throw new Error(`stats/${svcId}.json ${res.status} ${res.body.slice(0, 300)}`);
  return { clicks: Number(JSON.parse(res.body).clicks), bots: 0 };
}

/** Polls the store until it holds `expected` clicks or stops growing for `quietMs`. */
async function settledClicks(port, key, svcId, expected, quietMs = 10_000) {
  let last = await clickTotals(port, key, svcId);
  let changed = Date.now();
  for (;;) {
    if (last.clicks + last.bots >= expected) {
      // Reached: one more look after the buffer interval and a batch, in case of extra clicks.
      await new Promise((r) => setTimeout(r, 1000));
      return clickTotals(port, key, svcId);
    }
    await new Promise((r) => setTimeout(r, 250));
    const now = await clickTotals(port, key, svcId);
    if (now.clicks + now.bots !== last.clicks + last.bots) changed = Date.now();
    else if (Date.now() - changed > quietMs) return now;
    last = now;
  }
}

/** Seconds until the store counts `expected` clicks of the link (polled every 100 ms; at most 120 s). */
async function caughtUp(port, key, svcId, expected) {
  const started = Date.now();
  for (;;) {
    const now = await clickTotals(port, key, svcId);
    if (now.clicks + now.bots >= expected || Date.now() - started > 120_000) return (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The run's Redis keys: completed click jobs keep their data (up to 1,000 batches of 1,000 clicks). */
async function dropRedisKeys(prefix) {
  const redis = new Redis(REDIS_URL);
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 1000 })) {
      if (keys.length > 0) await redis.del(...keys);
    }
  } finally {
    redis.disconnect();
  }
}

/**
 * Runs a seed script of the analytics store (bench/stats-seed.js, bench/chains-seed.js) as a
 * short-lived child process with its JSON config, passing its output through; resolves with the
 * sizes it reports on its `SIZES {json}` line.
 */
function runSeed(script, config) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, script), JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let sizes = null;
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.startsWith('SIZES ')) sizes = JSON.parse(line.slice(6));
        else console.log(line);
      }
    });
    child.once('exit', (code) => (code === 0 && sizes ? resolve(sizes) : reject(new Error(`${script} exited with ${code}`))));
  });
}

/** The `p` quantile (0 to 1) of `values`, by rank (p 0.5: the median of an odd count). */
function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
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
/** The redirect the redirect benches load: a link on DOMAIN to LOCATION, visited by a browser. */
const REDIRECT = {
  DOMAIN: 'bench.svc',
  LOCATION: 'https://example.com/landing?utm_source=bench',
  // A browser, so every click goes through the crawler check and counts as a human click.
  USER_AGENT: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
};

/**
 * Creates the link the redirect benches load (url.json with the project's key) and checks that the
 * service answers its path with a 302 to LOCATION; that first redirect counts as a click. Returns
 * the link record, its path and the request headers.
 */
async function redirectLink(port, key) {
  const res = await request({
    port,
    method: 'POST',
    path: '/url.json',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ v: '3', key, tool: 'bench-tool', channel: 'twitter', url: REDIRECT.LOCATION }).toString(),
  });
  if (res.status !== 200) throw new Error(`url.json ${res.status} ${res.body}`);
  const link = JSON.parse(res.body);
  if (link.domain !== REDIRECT.DOMAIN) throw new Error(`link on ${link.domain}, expected ${REDIRECT.DOMAIN}`);
  const path = `/${link.path}`;
  const headers = { Host: REDIRECT.DOMAIN, 'User-Agent': REDIRECT.USER_AGENT };
  await expectRedirect(port, path, headers, 'service');
  return { link, path, headers };
}

// The baseline of bench:redirect (and bench:webhooks' ratio): what Node itself does for a 302 with
// the same headers, nothing else. Run with startChild(['-e', BARE_SERVER], …).
const BARE_SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  res.writeHead(302, { Location: ${JSON.stringify(REDIRECT.LOCATION)}, 'Cache-Control': 'private, max-age=0', 'Content-Length': '0' });
  res.end();
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

/** A child process that prints its port first: `node -e source` or `node file args…`. */
function startChild(args, label) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${label} exited (${code})`)));
    child.stdout.once('data', (chunk) =>
      resolve({
        port: Number(String(chunk).trim()),
        pid: child.pid,
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            if (child.exitCode !== null) return done();
            child.once('exit', done);
            child.kill('SIGTERM');
          }),
      }),
    );
  });
}

/** Fails unless `port` answers GET `path` with a 302 to REDIRECT.LOCATION. */
async function expectRedirect(port, path, headers, label) {
  const check = await request({ port, method: 'GET', path, headers });
  if (check.status !== 302 || check.headers.location !== REDIRECT.LOCATION) {
    throw new Error(`${label}: ${check.status} ${check.headers.location}, expected 302 to ${REDIRECT.LOCATION}`);
  }
}

/**
 * A scratch service's surroundings on real PostgreSQL and Redis: its own database, data folder and
 * Redis key prefix, bootstrap keys, and the embedded analytics store in that folder (or the
 * ClickHouse server of BENCH_CLICKHOUSE_URL, in a database of its own). `env` is what
 * startService takes (more may be added); `remove()` drops them all.
 */
async function scratchService() {
  const name = await createDatabase();
  const dataDir = path.join(os.tmpdir(), name);
  const subscriptionKey = `bench_${randomBytes(12).toString('hex')}`;
  const applicationKey = `bench_${randomBytes(12).toString('hex')}`;
  const redisPrefix = `bench:${randomBytes(3).toString('hex')}`;
  const env = {
    DATABASE_URL: databaseUrl(name),
    REDIS_URL,
    REDIS_PREFIX: redisPrefix,
    DEFAULT_DOMAIN: REDIRECT.DOMAIN,
    BOOTSTRAP_SUBSCRIPTION_KEY: subscriptionKey,
    BOOTSTRAP_APPLICATION_KEY: applicationKey,
    DATA_DIR: dataDir,
    CHDB_DIR: '',
    CLICKHOUSE_URL: process.env.BENCH_CLICKHOUSE_URL ?? '',
    CLICKHOUSE_DATABASE: `bench_${randomBytes(4).toString('hex')}`,
  };
  return {
    env,
    subscriptionKey,
    applicationKey,
    async remove() {
      await dropDatabase(name);
      await require('node:fs/promises').rm(dataDir, { recursive: true, force: true });
      await dropRedisKeys(redisPrefix);
    },
  };
}

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

/**
 * A process's CPU seconds so far, from /proc (clock ticks of 10 ms): all its threads, those that
 * ended included, and its main thread (Node's event loop). What the others used is the embedded
 * store's threads, libuv's pool that calls it, and V8's helpers.
 */
function processCpu(pid) {
  const ticks = (file) => {
    const text = fs.readFileSync(file, 'utf8');
    // Fields after the command's closing parenthesis, from the third (state): utime and stime are the 14th and 15th.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  return { all: ticks(`/proc/${pid}/stat`) / 100, main: ticks(`/proc/${pid}/task/${pid}/stat`) / 100 };
}

// ---- Click traffic as bench:ingest and the insert profile (bench/profile/insert-costs.js) draw it.

// [user agent, weight]: desktop ≈ 45%, mobile ≈ 45%, tablet ≈ 7%, other ≈ 3% (TV, bots).
const AGENT_MIX = [
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%V.0.0.0 Safari/537.36', 20],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%V.0.0.0 Safari/537.36', 6],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.%v Safari/605.1.15', 7],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:%V.0) Gecko/20100101 Firefox/%V.0', 4],
  ['Mozilla/5.0 (X11; Linux x86_64; rv:%V.0) Gecko/20100101 Firefox/%V.0', 1],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%V.0.0.0 Safari/537.36 Edg/%V.0.2592.87', 6],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%V.0.0.0 Safari/537.36 OPR/111.0.0.0', 1],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_%v like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.%v Mobile/15E148 Safari/604.1', 20],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_%v like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/470.0.0.40.97]', 3],
  ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%V.0.6478.122 Mobile Safari/537.36', 14],
  ['Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/%V.0.0.0 Mobile Safari/537.36', 6],
  ['Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/%V.0.6478.122 Mobile Safari/537.36 Instagram 337.0.0.0.77 Android', 2],
  ['Mozilla/5.0 (iPad; CPU OS 17_%v like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.%v Mobile/15E148 Safari/604.1', 5],
  ['Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%V.0.0.0 Safari/537.36', 2],
  ['Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/538.1 (KHTML, like Gecko) Version/6.0 TV Safari/538.1', 1],
];
// Search-engine bots: 2 clicks in 100, flagged as bots (the redirect layer's isbot), so not in range's clicks.
const BOT_AGENTS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
];
// Each agent in a few versions (%V the major version, %v a minor one): ~60 distinct agents in all.
const VERSIONS = [124, 125, 126, 127];
const AGENTS = AGENT_MIX.flatMap(([agent, weight]) =>
  Array.from({ length: weight }, (_, k) => agent.replaceAll('%V', String(VERSIONS[k % VERSIONS.length])).replaceAll('%v', String(k % 6))),
);
// [referrer, weight] in 100: 40 direct (null), the rest from search, social, mail, news and apps.
const REFERRER_MIX = [
  [null, 40],
  ['https://www.google.com/', 14],
  ['https://t.co/%h', 8],
  ['https://www.facebook.com/', 5],
  ['https://l.facebook.com/l.php?u=https%3A%2F%2Fbench.svc%2F', 3],
  ['https://www.linkedin.com/feed/', 4],
  ['https://www.bing.com/', 3],
  ['https://duckduckgo.com/', 2],
  ['https://www.reddit.com/r/programming/comments/%h/', 3],
  ['https://news.ycombinator.com/item?id=%h', 2],
  ['https://mail.google.com/', 3],
  ['https://outlook.live.com/', 2],
  ['android-app://com.google.android.gm/', 1],
  ['https://www.instagram.com/', 2],
  ['https://lm.facebook.com/', 1],
  ['https://www.youtube.com/', 2],
  ['https://www.google.co.uk/', 1],
  ['https://www.google.de/', 1],
  ['https://search.yahoo.com/', 1],
  ['https://medium.com/@bench/%h', 1],
  ['https://substack.com/', 1],
];
// %h: a path or id the caller fills in.
const REFERRERS = REFERRER_MIX.flatMap(([referrer, weight]) => Array.from({ length: weight }, () => referrer));
// First octets of public IPv4 space: 1–223 less 10 (private), 127 (loopback) and those holding a
// reserved block (100.64/10, 169.254/16, 172.16/12, 192.x, 198.18/15, 203.0.113/24): none of the
// addresses is skipped as reserved.
const PUBLIC_V4 = Array.from({ length: 223 }, (_, k) => k + 1).filter((a) => ![10, 100, 127, 169, 172, 192, 198, 203].includes(a));

module.exports = { processCpu, AGENT_MIX, AGENTS, BOT_AGENTS, REFERRER_MIX, REFERRERS, PUBLIC_V4, REDIRECT, BARE_SERVER, drainedRun, startChild, redirectLink, expectRedirect, DATABASE_URL, REDIS_URL, databaseUrl, createDatabase, dropDatabase, startService, request, createProject, runLoad, load, runSeed, percentile, clickTotals, settledClicks, caughtUp, dropRedisKeys, median, seededStore, scratchService };
