// npm run bench:webhooks — link.clicked webhooks of the built service, delivered to a local receiver.
// The service runs as docker-compose.yml runs it: an API process (ROLE=api) and a worker process
// (ROLE=worker) on a scratch PostgreSQL database, Redis (BullMQ) and an analytics store both reach
// (BENCH_CLICKHOUSE_URL, else bench/chdb-server.js: the embedded engine behind ClickHouse's HTTP
// interface). Each project's webhook listens to link.clicked and points at a receiver, a child
// process that answers 204 on keep-alive connections, counts every delivery by event id (the first
// arrival and how many), and checks one signature in 100 (Standard Webhooks, node:crypto). The
// phases, each on a link of its own project:
//   A1. autocannon redirects a link for BENCH_DURATION s as fast as the API answers, faster than one
//      worker delivers; then the receiver must get every click's event: events delivered per second
//      (distinct events over first to last arrival), the backlog when the redirects stopped.
//   A2. the same at BENCH_RATE redirects a second, a rate the worker keeps up with: click to
//      delivery latency (arrival − the event's clicked_at) p50 and p99. Under A1's load latency
//      only measures the backlog, which grows with the run's length.
//   Both report duplicates and missing events, the deepest queues and the processes' CPU.
//   B. bench:redirect's measure (service req/s against a bare Node 302 server, alternating rounds)
//      on a link whose project has the webhook and on one whose project has none.
//   C. during a load, the worker is killed with SIGKILL after BENCH_KILL_AFTER s and a new one
//      started; every click's event must still arrive at least once (duplicates are allowed).
// Targets (issue "Webhooks and a live feed", Speed and limits): ≥ 3,000 events/s, p99 ≤ 2 s, the
// two ratios within noise, no event lost across the SIGKILL. The last line is for scripts; the exit
// status is 1 when a target is missed or an event is missing.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { Queue } = require('bullmq');
const { Client } = require('pg');
const lib = require('./lib');
const { QUEUES } = require('../dist/queue/queue-names');

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const DURATION = Number(process.env.BENCH_DURATION ?? 20);
const RATE = Number(process.env.BENCH_RATE ?? 3000);
const RATIO_DURATION = Number(process.env.BENCH_RATIO_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const KILL_DURATION = Number(process.env.BENCH_KILL_DURATION ?? 20);
const KILL_AFTER = Number(process.env.BENCH_KILL_AFTER ?? 5);
/** Seconds without a new event after which the receiver's count is taken as final. */
const DRAIN_QUIET = Number(process.env.BENCH_DRAIN_QUIET ?? 30);
// The worker, and the processes that stand for other machines (the receiver, the analytics store's
// stand-in), run at a lower priority than the API on the shared cores, as docs/operations.md
// ("Webhooks") advises where API and worker processes share a host: deliveries take the CPU that
// redirects leave. BENCH_PRIORITY: `idle` (the default) puts them in the SCHED_IDLE class (chrt
// --idle: they run when a core has nothing else to run), a number is a nice value (os.setPriority),
// 0 runs everything at the same priority.
const PRIORITY = process.env.BENCH_PRIORITY ?? 'idle';
if (PRIORITY !== 'idle' && !/^(1?[0-9])$/.test(PRIORITY)) throw new Error('BENCH_PRIORITY must be idle or a nice value from 0 to 19');
const PRIORITY_LABEL = PRIORITY === 'idle' ? 'in the SCHED_IDLE class' : `at nice ${PRIORITY}`;
/** Lowers a process's priority (every thread of it, and the threads it makes later) to PRIORITY. */
const lower = (pid) => {
  if (PRIORITY === 'idle') execFileSync('chrt', ['--idle', '--all-tasks', '--pid', '0', String(pid)]);
  else if (Number(PRIORITY) > 0) os.setPriority(pid, Number(PRIORITY));
};
const PHASES = (process.env.BENCH_PHASES ?? 'A,B,C').split(',').map((p) => p.trim().toUpperCase());
const TARGET_RATE = 3000;
const TARGET_P99_MS = 2000;
/** Ratios closer than this are within noise whatever the rounds' spread. */
const RATIO_NOISE_FLOOR = 0.03;
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The receiver: POST /hook/<name> answers 204 at once, then counts the event by its webhook-id under
// its link (data.svc_id): first arrival time, latency from data.click.clicked_at, deliveries. One
// request in 100 has its signature checked with the secret set for <name> (POST /secret/<name>).
// GET /stats?svc_id=… reports a link's figures (with latencies=1, every first arrival's latency and
// the first arrivals in each second).
const RECEIVER = `
const http = require('node:http');
const { createHmac } = require('node:crypto');
const secrets = new Map();
const links = new Map();
let requests = 0, checked = 0, badSignatures = 0, malformed = 0;
function verify(secret, headers, body) {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(headers['webhook-id'] + '.' + headers['webhook-timestamp'] + '.' + body).digest('base64');
  return String(headers['webhook-signature'] ?? '').split(' ').some((s) => s === 'v1,' + expected);
}
function record(name, headers, body, at) {
  let event;
  try { event = JSON.parse(body); } catch { malformed++; return; }
  const id = headers['webhook-id'];
  if (!id || event.id !== id || event.type !== 'link.clicked' || !event.data?.click) { malformed++; return; }
  if (requests % 100 === 0 && secrets.has(name)) {
    checked++;
    if (!verify(secrets.get(name), headers, body)) badSignatures++;
  }
  let link = links.get(event.data.svc_id);
  if (!link) links.set(event.data.svc_id, (link = { ids: new Map(), total: 0, first: Infinity, last: 0, latencies: [], perSecond: new Map() }));
  link.total++;
  const seen = link.ids.get(id);
  if (seen) { link.ids.set(id, seen + 1); return; }
  link.ids.set(id, 1);
  const second = Math.floor(at / 1000);
  link.perSecond.set(second, (link.perSecond.get(second) ?? 0) + 1);
  link.first = Math.min(link.first, at);
  link.last = Math.max(link.last, at);
  link.latencies.push(at - Date.parse(event.data.click.clicked_at));
}
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://receiver');
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (req.method === 'POST' && url.pathname.startsWith('/hook/')) {
      const at = Date.now();
      res.writeHead(204).end();
      requests++;
      record(url.pathname.slice(6), req.headers, body, at);
    } else if (req.method === 'POST' && url.pathname.startsWith('/secret/')) {
      secrets.set(url.pathname.slice(8), body);
      res.writeHead(204).end();
    } else if (req.method === 'GET' && url.pathname === '/stats') {
      const link = links.get(url.searchParams.get('svc_id'));
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({
        distinct: link?.ids.size ?? 0, total: link?.total ?? 0, first: link?.first ?? null, last: link?.last ?? null,
        latencies: url.searchParams.get('latencies') ? link?.latencies ?? [] : undefined,
        perSecond: url.searchParams.get('latencies') ? [...(link?.perSecond ?? [])] : undefined,
        requests, checked, badSignatures, malformed,
      }));
    } else res.writeHead(404).end();
  });
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.on('SIGTERM', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
`;

/** Creates a webhook of the project (`key`) for link.clicked to `url` (webhooks/new); returns its record. */
async function createWebhook(port, subscriptionKey, applicationKey, key, url) {
  const res = await lib.request({
    port,
    method: 'POST',
    path: '/webhooks/new',
    headers: FORM,
    body: new URLSearchParams({
      subscription_key: subscriptionKey,
      application_key: applicationKey,
      json: JSON.stringify({ project: key, url, events: ['link.clicked'] }),
    }).toString(),
  });
  if (res.status !== 200) throw new Error(`webhooks/new ${res.status} ${res.body.slice(0, 300)}`);
  const webhook = JSON.parse(res.body).response?.webhook;
  if (!webhook?.id || !webhook.secret) throw new Error(`webhooks/new answered no id or secret: ${res.body.slice(0, 300)}`);
  return webhook;
}

/** CPU seconds a process has used (all its threads), from /proc; null once it has ended. */
function cpuSeconds(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(') ') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ
  } catch {
    return null;
  }
}

/** CPU seconds every process named `name` (its /proc comm) has used: PostgreSQL's backends, Redis. */
function cpuSecondsOf(name) {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')) !== name) continue;
      const fields = text.slice(text.lastIndexOf(') ') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // ended meanwhile
    }
  }
  return total;
}

/** CPU seconds the whole machine has been busy (all cores; /proc/stat less idle and iowait). */
function machineBusySeconds() {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 8).map(Number);
  return (fields.reduce((a, b) => a + b, 0) - fields[3] - fields[4]) / 100;
}

/** Jobs waiting, running or delayed in a BullMQ queue. */
async function depth(queue) {
  const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'paused');
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

/**
 * Samples, every half second until stopped, the deepest the webhooks and clicks queues got and the
 * CPU the worker (whatever process `workerPid()` names then: a new one counts from its start), the
 * API and the receiver used per wall second.
 */
function sampler(queues, workerPid, apiPid, receiverPid) {
  const peak = { webhooks: 0, clicks: 0 };
  const used = { worker: 0, api: 0, receiver: 0, machine: 0 };
  const read = () => ({ pid: workerPid(), worker: cpuSeconds(workerPid()), api: cpuSeconds(apiPid), receiver: cpuSeconds(receiverPid), machine: machineBusySeconds() });
  let last = read();
  const started = Date.now();
  let running = true;
  const loop = (async () => {
    while (running) {
      await sleep(500);
      const [webhooks, clicks] = await Promise.all([depth(queues.webhooks), depth(queues.clicks)]);
      peak.webhooks = Math.max(peak.webhooks, webhooks);
      peak.clicks = Math.max(peak.clicks, clicks);
      const now = read();
      for (const kind of ['worker', 'api', 'receiver', 'machine']) {
        const before = kind === 'worker' && now.pid !== last.pid ? 0 : last[kind];
        if (now[kind] !== null && before !== null) used[kind] += now[kind] - before;
      }
      last = now;
    }
  })();
  return async () => {
    running = false;
    await loop;
    const seconds = (Date.now() - started) / 1000;
    return { peak, cores: Object.fromEntries(Object.entries(used).map(([kind, cpu]) => [kind, cpu / seconds])) };
  };
}

async function main() {
  const loadBefore = os.loadavg()[0];
  const name = await lib.createDatabase();
  const dataDir = path.join(process.env.BENCH_DATA_DIR ?? os.tmpdir(), name);
  const subscriptionKey = `bench_${randomBytes(12).toString('hex')}`;
  const applicationKey = `bench_${randomBytes(12).toString('hex')}`;
  const redisPrefix = `bench:${randomBytes(3).toString('hex')}`;
  const clickhouseDatabase = `bench_${randomBytes(4).toString('hex')}`;
  const started = [];
  const queues = {
    webhooks: new Queue(QUEUES.webhooks, { connection: { url: lib.REDIS_URL, maxRetriesPerRequest: null }, prefix: `${redisPrefix}:bull` }),
    clicks: new Queue(QUEUES.clicks, { connection: { url: lib.REDIS_URL, maxRetriesPerRequest: null }, prefix: `${redisPrefix}:bull` }),
  };
  let storeUrl = process.env.BENCH_CLICKHOUSE_URL;
  let worker = null;
  try {
    if (!storeUrl) {
      const store = await lib.startChild([path.join(__dirname, 'chdb-server.js'), path.join(dataDir, 'store')], 'bench/chdb-server.js');
      started.push(store);
      storeUrl = `http://127.0.0.1:${store.port}`;
      lower(store.pid);
    }
    const env = {
      DATABASE_URL: lib.databaseUrl(name),
      REDIS_URL: lib.REDIS_URL,
      REDIS_PREFIX: redisPrefix,
      DEFAULT_DOMAIN: lib.REDIRECT.DOMAIN,
      BOOTSTRAP_SUBSCRIPTION_KEY: subscriptionKey,
      BOOTSTRAP_APPLICATION_KEY: applicationKey,
      CHDB_DIR: '',
      CLICKHOUSE_URL: storeUrl,
      CLICKHOUSE_DATABASE: clickhouseDatabase,
      // The receiver is a plain-http loopback URL.
      WEBHOOK_ALLOW_LOOPBACK: 'true',
    };
    const api = await lib.startService({ ...env, ROLE: 'api', DATA_DIR: path.join(dataDir, 'api') });
    started.push(api);
    const startWorker = async () => {
      const w = await lib.startService({ ...env, ROLE: 'worker', DATA_DIR: path.join(dataDir, 'worker') });
      lower(w.pid);
      return w;
    };
    worker = await startWorker();
    const receiver = await lib.startChild(['-e', RECEIVER], 'receiver');
    started.push(receiver);
    lower(receiver.pid);
    const bare = PHASES.includes('B') ? await lib.startChild(['-e', lib.BARE_SERVER], 'bare server') : null;
    if (bare) started.push(bare);

    const receiverStats = async (svcId, latencies = false) => {
      const res = await lib.request({ port: receiver.port, method: 'GET', path: `/stats?svc_id=${encodeURIComponent(svcId)}${latencies ? '&latencies=1' : ''}` });
      return JSON.parse(res.body);
    };
    /** Polls the receiver until it has `expected` events of the link or none came for DRAIN_QUIET s. */
    const drained = async (svcId, expected) => {
      let last = await receiverStats(svcId);
      let changed = Date.now();
      while (last.distinct < expected && Date.now() - changed < DRAIN_QUIET * 1000) {
        await sleep(250);
        const now = await receiverStats(svcId);
        if (now.distinct !== last.distinct || now.total !== last.total) changed = Date.now();
        last = now;
      }
      return last;
    };
    /** A project with a link.clicked webhook to the receiver (POST /hook/<label>), and a link of it. */
    const projectWithWebhook = async (label) => {
      const key = await lib.createProject(api.port, subscriptionKey, applicationKey, { name: `bench-${label}` });
      const webhook = await createWebhook(api.port, subscriptionKey, applicationKey, key, `http://127.0.0.1:${receiver.port}/hook/${label}`);
      await lib.request({ port: receiver.port, method: 'POST', path: `/secret/${label}`, body: webhook.secret });
      return { key, webhook, ...(await lib.redirectLink(api.port, key)) };
    };

    console.log(
      `bench:webhooks — an API process (ROLE=api) and a worker (ROLE=worker) on PostgreSQL, Redis and ` +
        `${process.env.BENCH_CLICKHOUSE_URL ? `ClickHouse at ${new URL(storeUrl).host}` : 'the embedded engine behind bench/chdb-server.js'}; ` +
        `autocannon ${CONNECTIONS} connections on GET /<path> (Host: ${lib.REDIRECT.DOMAIN}); ` +
        `the worker, receiver and store ${PRIORITY_LABEL} (BENCH_PRIORITY)`,
    );
    console.log(
      `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), Node ${process.version}: autocannon, the receiver, both ` +
        `service processes, the store, PostgreSQL and Redis share them; load average (1 min) at start ${loadBefore.toFixed(2)}`,
    );
    const misses = [];
    const line = { delivered_per_s: 'n/a', p99_ms: 'n/a', ratio_with: 'n/a', ratio_without: 'n/a', lost_after_sigkill: 'n/a' };
    let missing = 0;

    /**
     * Redirects of a new link of a project with the webhook for `seconds` (at most `rate` a second
     * when given), then until the receiver has every click's event; the figures of its deliveries.
     */
    const deliveryRun = async (label, seconds, rate) => {
      const run = await projectWithWebhook(label);
      const stop = sampler(queues, () => worker?.pid, api.pid, receiver.pid);
      const loadStart = Date.now();
      const loaded = await lib.load(api.port, run.path, run.headers, seconds, CONNECTIONS, rate);
      const loadEnd = Date.now();
      const expected = 1 + loaded.redirects;
      const atEnd = await receiverStats(run.link.svc_id);
      const backlog = await depth(queues.webhooks);
      await drained(run.link.svc_id, expected);
      const usage = await stop();
      const got = await receiverStats(run.link.svc_id, true);
      const spanSeconds = (got.last - got.first) / 1000;
      missing += Math.max(0, expected - got.distinct);
      // Whole seconds of arrivals while the redirects ran, and after (the backlog, the worker alone).
      const during = got.perSecond.filter(([t]) => t * 1000 >= loadStart && (t + 1) * 1000 <= loadEnd);
      const after = got.perSecond.filter(([t]) => t * 1000 >= loadEnd && (t + 1) * 1000 <= got.last);
      const perSecond = (list) => (list.length > 0 ? list.reduce((n, [, count]) => n + count, 0) / list.length : 0);
      return {
        during: perSecond(during),
        after: after.length >= 3 ? perSecond(after) : null,
        loaded,
        expected,
        got,
        usage,
        backlog: { jobs: backlog, events: expected - atEnd.distinct },
        spanSeconds,
        rate: spanSeconds > 0 ? got.distinct / spanSeconds : 0,
        p50: lib.percentile(got.latencies, 0.5),
        p99: lib.percentile(got.latencies, 0.99),
        max: got.latencies.reduce((a, b) => Math.max(a, b), 0),
      };
    };
    const report = (r) => {
      console.log(
        `  redirects: ${r.loaded.redirects} (${r.loaded.rps.toFixed(0)} req/s, p99 ${r.loaded.p99} ms; errors ${r.loaded.errors}, non-302 ${r.loaded.other}) + 1 check`,
      );
      console.log(
        `  events: ${r.got.distinct} of ${r.expected} (missing ${r.expected - r.got.distinct}, duplicates ${r.got.total - r.got.distinct}), ` +
          `${r.rate.toFixed(0)} events/s over the ${r.spanSeconds.toFixed(1)} s from first to last arrival ` +
          `(${r.during.toFixed(0)} a second while the redirects ran${r.after === null ? '' : `, ${r.after.toFixed(0)} after`})`,
      );
      console.log(`  click → delivery: p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms`);
      console.log(
        `  when the redirects stopped: ${r.backlog.events} events not yet delivered, ${r.backlog.jobs} jobs in the webhooks queue; deepest queues: ` +
          `webhooks ${r.usage.peak.webhooks} jobs (up to 100 events each), clicks ${r.usage.peak.clicks} jobs`,
      );
      console.log(
        `  CPU per wall second, load and delivery: worker ${r.usage.cores.worker.toFixed(2)}, API ${r.usage.cores.api.toFixed(2)}, receiver ${r.usage.cores.receiver.toFixed(2)} cores; ` +
          `the machine ${r.usage.cores.machine.toFixed(2)} of ${os.cpus().length} cores busy`,
      );
    };

    if (PHASES.includes('A')) {
      // A1: as many redirects as the API answers, more than a worker delivers: what it delivers a second.
      const full = await deliveryRun('a1', DURATION);
      console.log(`\nA1. throughput: ${DURATION} s of redirects as fast as the API answers, then until every event arrived (or none for ${DRAIN_QUIET} s)`);
      report(full);
      console.log(`  delivered: ${full.rate.toFixed(0)} events/s (target ≥ ${TARGET_RATE})${full.rate < TARGET_RATE ? '  MISSES TARGET' : ''}`);
      // A2: clicks at a rate the worker keeps up with: how long an event takes.
      const paced = await deliveryRun('a2', DURATION, RATE);
      console.log(`\nA2. latency: ${DURATION} s of redirects at ${RATE} a second, then until every event arrived`);
      report(paced);
      console.log(`  p99 ${paced.p99} ms (target ≤ ${TARGET_P99_MS} ms)${paced.p99 > TARGET_P99_MS ? '  MISSES TARGET' : ''}`);
      line.delivered_per_s = full.rate.toFixed(0);
      line.p99_ms = String(paced.p99);
      if (full.rate < TARGET_RATE) misses.push(`${full.rate.toFixed(0)} events/s < ${TARGET_RATE}`);
      if (paced.p99 > TARGET_P99_MS) misses.push(`p99 ${paced.p99} ms > ${TARGET_P99_MS} ms at ${RATE} clicks/s`);
    }

    if (PHASES.includes('B')) {
      const w = await projectWithWebhook('b');
      const nKey = await lib.createProject(api.port, subscriptionKey, applicationKey, { name: 'bench-none' });
      const n = { key: nKey, ...(await lib.redirectLink(api.port, nKey)) };
      await lib.expectRedirect(bare.port, w.path, w.headers, 'bare');
      const counts = { with: 1, without: 1 };
      const sides = { with: w, without: n };
      /** One service round on a side; then its clicks stored and, with the webhook, its events received. */
      const serviceRound = async (side, seconds) => {
        const s = sides[side];
        const before = cpuSeconds(api.pid);
        const machineBefore = machineBusySeconds();
        const others = { worker: cpuSeconds(worker.pid), postgres: cpuSecondsOf('postgres'), redis: cpuSecondsOf('redis-server'), receiver: cpuSeconds(receiver.pid) };
        const result = await lib.load(api.port, s.path, s.headers, seconds, CONNECTIONS);
        result.apiMicros = ((cpuSeconds(api.pid) - before) * 1e6) / result.completed;
        result.machineCores = (machineBusySeconds() - machineBefore) / seconds;
        result.workerCores = (cpuSeconds(worker.pid) - others.worker) / seconds;
        result.postgresCores = (cpuSecondsOf('postgres') - others.postgres) / seconds;
        result.redisCores = (cpuSecondsOf('redis-server') - others.redis) / seconds;
        result.receiverCores = (cpuSeconds(receiver.pid) - others.receiver) / seconds;
        counts[side] += result.redirects;
        await lib.caughtUp(api.port, s.key, s.link.svc_id, counts[side]);
        if (side === 'with') await drained(s.link.svc_id, counts[side]);
        return result;
      };
      await serviceRound('with', WARMUP);
      await serviceRound('without', WARMUP);
      await lib.load(bare.port, w.path, w.headers, WARMUP, CONNECTIONS);
      const runs = { with: [], without: [], bare: [] };
      const perRound = { with: [], without: [] };
      for (let round = 0; round < ROUNDS; round++) {
        // Each round both sides, each followed by a bare round; which side goes first alternates.
        for (const side of round % 2 === 0 ? ['with', 'without'] : ['without', 'with']) {
          const s = await serviceRound(side, RATIO_DURATION);
          const b = await lib.load(bare.port, w.path, w.headers, RATIO_DURATION, CONNECTIONS);
          runs[side].push(s);
          runs.bare.push(b);
          perRound[side].push(s.rps / b.rps);
        }
      }
      const m = (list, field) => lib.median(list.map((r) => r[field]));
      const ratioWith = m(runs.with, 'rps') / m(runs.bare, 'rps');
      const ratioWithout = m(runs.without, 'rps') / m(runs.bare, 'rps');
      const spread = (list) => Math.max(...list) - Math.min(...list);
      const noise = Math.max(RATIO_NOISE_FLOOR, spread(perRound.with), spread(perRound.without));
      const withinNoise = Math.abs(ratioWith - ratioWithout) <= noise;
      const got = await receiverStats(w.link.svc_id);
      missing += Math.max(0, counts.with - got.distinct);
      const row = (label, list) =>
        `  ${label.padEnd(22)}${m(list, 'rps').toFixed(0).padStart(8)}${`${m(list, 'p50')} ms`.padStart(8)}${`${m(list, 'p99')} ms`.padStart(8)}` +
        `   errors ${list.reduce((s, r) => s + r.errors, 0)}, non-302 ${list.reduce((s, r) => s + r.other, 0)}`;
      console.log(
        `\nB. bench:redirect's measure: ${ROUNDS} rounds of ${RATIO_DURATION} s on each side after ${WARMUP} s warm-up, each service round ` +
          'followed by a bare Node 302 round; medians',
      );
      console.log(`                           req/s     p50     p99`);
      console.log(row('with the webhook', runs.with));
      console.log(row('without (no webhook)', runs.without));
      console.log(row('bare node http', runs.bare));
      console.log(
        `  ratio service/bare: with ${ratioWith.toFixed(2)}, without ${ratioWithout.toFixed(2)} ` +
          `(rounds with ${perRound.with.map((r) => r.toFixed(2)).join(', ')}; without ${perRound.without.map((r) => r.toFixed(2)).join(', ')})`,
      );
      console.log(
        `  difference ${(ratioWith - ratioWithout).toFixed(2)}: ${withinNoise ? 'within' : 'NOT within'} noise ` +
          `(the larger spread of either side's rounds, at least ${RATIO_NOISE_FLOOR}: ${noise.toFixed(2)})` +
          (withinNoise ? '' : '  MISSES TARGET'),
      );
      console.log(
        `  API CPU per redirect during the rounds: with ${m(runs.with, 'apiMicros').toFixed(1)} µs, without ${m(runs.without, 'apiMicros').toFixed(1)} µs; ` +
          `the machine busy: with ${m(runs.with, 'machineCores').toFixed(2)}, without ${m(runs.without, 'machineCores').toFixed(2)} of ${os.cpus().length} cores`,
      );
      const cores = (side) => ['worker', 'postgres', 'redis', 'receiver'].map((k) => `${k} ${m(runs[side], `${k}Cores`).toFixed(2)}`).join(', ');
      console.log(`  cores used during the rounds: with ${cores('with')}; without ${cores('without')}`);
      console.log(`  events of the rounds with the webhook: ${got.distinct} of ${counts.with} (duplicates ${got.total - got.distinct})`);
      line.ratio_with = ratioWith.toFixed(3);
      line.ratio_without = ratioWithout.toFixed(3);
      if (!withinNoise) misses.push(`ratio with ${ratioWith.toFixed(2)} against ${ratioWithout.toFixed(2)} without, beyond noise ${noise.toFixed(2)}`);
    }

    if (PHASES.includes('C')) {
      const c = await projectWithWebhook('c');
      const stop = sampler(queues, () => worker?.pid, api.pid, receiver.pid);
      const loading = lib.load(api.port, c.path, c.headers, KILL_DURATION, CONNECTIONS);
      await sleep(KILL_AFTER * 1000);
      const before = await receiverStats(c.link.svc_id);
      process.kill(worker.pid, 'SIGKILL');
      const killedAt = Date.now();
      worker = null;
      worker = await startWorker();
      const restartSeconds = (Date.now() - killedAt) / 1000;
      const loaded = await loading;
      const expected = 1 + loaded.redirects;
      await drained(c.link.svc_id, expected);
      const usage = await stop();
      const got = await receiverStats(c.link.svc_id);
      const lost = Math.max(0, expected - got.distinct);
      missing += lost;
      console.log(
        `\nC. SIGKILL: ${KILL_DURATION} s of redirects; after ${KILL_AFTER} s (${before.distinct} events received by then) the worker ` +
          `was killed and a new one answered /health ${restartSeconds.toFixed(1)} s later`,
      );
      console.log(`  redirects: ${loaded.redirects} (${loaded.rps.toFixed(0)} req/s; errors ${loaded.errors}, non-302 ${loaded.other}) + 1 check`);
      console.log(
        `  events: ${got.distinct} of ${expected}, lost ${lost}, duplicates ${got.total - got.distinct}; last arrival ` +
          `${((got.last - killedAt) / 1000).toFixed(1)} s after the kill; deepest queues: webhooks ${usage.peak.webhooks}, clicks ${usage.peak.clicks}; ` +
          `the machine ${usage.cores.machine.toFixed(2)} cores busy` +
          (lost > 0 ? '  MISSES TARGET' : ''),
      );
      if (lost > 0) {
        // Where the missing events might be: the queues by state, and the delivery log's failed attempts.
        const states = async (queue) => JSON.stringify(await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'failed', 'completed'));
        console.log(`  queues now: webhooks ${await states(queues.webhooks)}, clicks ${await states(queues.clicks)}`);
        for (const [kind, queue] of Object.entries(queues)) {
          const delayed = await queue.getDelayed(0, 2);
          for (const job of delayed) {
            console.log(`  a delayed ${kind} job: attempts made ${job.attemptsMade}, due in ${((job.timestamp + job.delay - Date.now()) / 1000).toFixed(0)} s, last failure: ${String(job.failedReason).slice(0, 300)}`);
          }
        }
        const stored = await lib.clickTotals(api.port, c.key, c.link.svc_id);
        console.log(`  clicks of the link in the analytics store: ${stored.clicks} of ${expected}`);
        const db = new Client({ connectionString: lib.databaseUrl(name) });
        await db.connect();
        try {
          const { rows } = await db.query(
            `SELECT coalesce(u.status_code::text, u.error) AS outcome, l.attempt, count(*)::int AS attempts,
                    count(*) FILTER (WHERE l.next_retry_at IS NOT NULL AND u.status_code IS DISTINCT FROM 204)::int AS retrying,
                    count(DISTINCT u.event_id)::int AS events
             FROM webhook_delivery_log l CROSS JOIN LATERAL unnest(l.event_ids, l.status_codes, l.errors) AS u(event_id, status_code, error)
             WHERE l.webhook_id = $1 GROUP BY 1, 2 ORDER BY 2, 1`,
            [c.webhook.id],
          );
          console.log(`  delivery log: ${rows.map((r) => `attempt ${r.attempt} ${r.outcome}: ${r.attempts} (${r.events} events)${r.retrying ? ` (${r.retrying} to retry)` : ''}`).join(', ')}`);
        } finally {
          await db.end();
        }
      }
      line.lost_after_sigkill = String(lost);
      if (lost > 0) misses.push(`${lost} events lost across the SIGKILL`);
    }

    const checks = await receiverStats('');
    console.log(
      `\nreceiver: ${checks.requests} deliveries, ${checks.checked} signatures checked, ${checks.badSignatures} wrong, ${checks.malformed} malformed`,
    );
    if (checks.badSignatures > 0 || checks.malformed > 0) misses.push(`${checks.badSignatures} wrong signatures, ${checks.malformed} malformed deliveries`);
    if (missing > 0 && !misses.some((m) => m.includes('lost'))) misses.push(`${missing} events missing`);
    console.log(`load average (1 min) at the end ${os.loadavg()[0].toFixed(2)}; ${misses.length === 0 ? 'all met' : `missed: ${misses.join('; ')}`}`);
    // One line for scripts.
    console.log(
      `bench:webhooks ${Object.entries(line)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')} missed=${misses.length}`,
    );
    if (misses.length > 0) process.exitCode = 1;
  } finally {
    await worker?.stop().catch(() => undefined);
    for (const child of started.reverse()) await child.stop().catch(() => undefined);
    await Promise.all(Object.values(queues).map((q) => q.close()));
    if (process.env.BENCH_CLICKHOUSE_URL) {
      const url = new URL(storeUrl);
      const auth = url.username ? { Authorization: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` } : {};
      await fetch(`${url.protocol}//${url.host}/`, { method: 'POST', headers: auth, body: `DROP DATABASE IF EXISTS ${clickhouseDatabase}` }).catch(() => undefined);
    }
    await lib.dropDatabase(name);
    await fs.promises.rm(dataDir, { recursive: true, force: true });
    await lib.dropRedisKeys(redisPrefix);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
