// npm run bench:ingest — click ingestion through the real queue into the embedded analytics store.
// The built service runs on a scratch PostgreSQL database, its own Redis key prefix (REDIS_URL set:
// jobs go through BullMQ, its `clicks` worker writes them) and the embedded chDB in a scratch
// folder. The bench enqueues click batches exactly as the service's ClickBuffer does (the `clicks`
// queue, job `ingest`, packClicks layout, 1,000 clicks a job, the same job options) and measures
// from the first enqueue until the store holds every click (the service's
// svc_analytics_rows_inserted_total{table="clicks"}, polled on /metrics); then the clicks are
// checked through the API (range totals). Clicks/s per round and their median.
const os = require('node:os');
const path = require('node:path');
const { rm } = require('node:fs/promises');
const { randomBytes, randomUUID } = require('node:crypto');
const { Queue } = require('bullmq');
const lib = require('./lib');
const { packClicks, nextClickSequence } = require('../dist/clicks/click-event');
const { QUEUES } = require('../dist/queue/queue-names');

const CLICKS = Number(process.env.BENCH_CLICKS ?? 1_000_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LINKS = 100;
const TARGET = 50_000;
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
];
const REFERRERS = [null, 'https://t.co/', 'https://www.facebook.com/', 'https://www.google.com/'];

const form = (fields) =>
  Object.entries(fields)
    .flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => `${encodeURIComponent(k)}=${encodeURIComponent(x)}`) : [`${encodeURIComponent(k)}=${encodeURIComponent(v)}`]))
    .join('&');

/** `count` clicks on the links, spread over the last hour, as the redirect layer records them, packed per job. */
function batches(count, projectId, linkIds) {
  const jobs = [];
  const now = Date.now();
  for (let start = 0; start < count; start += BATCH) {
    const clicks = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      const at = now - 3_600_000 + Math.floor((i / count) * 3_500_000);
      clicks.push({
        id: nextClickSequence(),
        linkId: linkIds[(i * 7919) % linkIds.length],
        projectId,
        clickedAt: at,
        referrer: REFERRERS[i % REFERRERS.length],
        userAgent: AGENTS[i % AGENTS.length],
        ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
        isBot: false,
      });
    }
    jobs.push(packClicks(clicks));
  }
  return jobs;
}

/** The service's count of click rows inserted into the store. */
async function insertedClicks(port) {
  const res = await lib.request({ port, method: 'GET', path: '/metrics' });
  const match = /^svc_analytics_rows_inserted_total\{table="clicks"\} (\d+)/m.exec(res.body);
  const inserts = /^svc_analytics_insert_duration_seconds_sum\{table="clicks",outcome="ok"\} ([\d.e+-]+)/m.exec(res.body);
  const count = /^svc_analytics_insert_duration_seconds_count\{table="clicks",outcome="ok"\} (\d+)/m.exec(res.body);
  return { rows: match ? Number(match[1]) : 0, insertSeconds: inserts ? Number(inserts[1]) : 0, inserts: count ? Number(count[1]) : 0 };
}

async function main() {
  const name = await lib.createDatabase();
  const dataDir = path.join(os.tmpdir(), name);
  const subscriptionKey = `bench_${randomBytes(12).toString('hex')}`;
  const applicationKey = `bench_${randomBytes(12).toString('hex')}`;
  const prefix = `bench:${randomBytes(3).toString('hex')}`;
  const service = await lib.startService({
    DATABASE_URL: lib.databaseUrl(name),
    REDIS_URL: lib.REDIS_URL,
    REDIS_PREFIX: prefix,
    DEFAULT_DOMAIN: 'bench.svc',
    BOOTSTRAP_SUBSCRIPTION_KEY: subscriptionKey,
    BOOTSTRAP_APPLICATION_KEY: applicationKey,
    DATA_DIR: dataDir,
    CHDB_DIR: '',
    CLICKHOUSE_URL: '',
  });
  // The service's own queue (QueueModule: prefix `${REDIS_PREFIX}:bull`).
  const queue = new Queue(QUEUES.clicks, { connection: { url: lib.REDIS_URL, maxRetriesPerRequest: null }, prefix: `${prefix}:bull` });
  try {
    const key = await lib.createProject(service.port, subscriptionKey, applicationKey);
    const urls = Array.from({ length: LINKS }, (_, i) => `https://example.com/ingest/${i}`);
    const created = await lib.request({
      port: service.port,
      method: 'POST',
      path: '/url/batch.json',
      headers: FORM,
      body: form({ v: '3', key, tool: 'bench-tool', channel: 'twitter', 'url[]': urls }),
    });
    if (created.status !== 200) throw new Error(`url/batch.json ${created.status} ${created.body.slice(0, 300)}`);
    const { Client } = require('pg');
    const db = new Client({ connectionString: lib.databaseUrl(name) });
    await db.connect();
    const { rows: linkRows } = await db.query(`SELECT id::text AS id, project_id FROM links ORDER BY id`);
    await db.end();
    const projectId = linkRows[0].project_id;
    const linkIds = linkRows.map((r) => r.id);

    // Each job as ClickBuffer.send enqueues it (src/clicks/click-buffer.ts, src/queue/bull-job-queue.ts).
    const jobOptions = () => ({
      jobId: randomUUID(),
      attempts: 500_000,
      backoff: { type: 'fixed', delay: 1000 },
      removeOnComplete: true,
      removeOnFail: { age: 7 * 24 * 3600 },
    });
    const round = async (count) => {
      const jobs = batches(count, projectId, linkIds);
      const before = await insertedClicks(service.port);
      const started = process.hrtime.bigint();
      for (let i = 0; i < jobs.length; i += 50) {
        await queue.addBulk(jobs.slice(i, i + 50).map((data) => ({ name: 'ingest', data, opts: jobOptions() })));
      }
      const enqueued = Number(process.hrtime.bigint() - started) / 1e9;
      let after;
      for (;;) {
        after = await insertedClicks(service.port);
        if (after.rows - before.rows >= count) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
      const inserts = after.inserts - before.inserts;
      return { rate: count / elapsed, elapsed, enqueued, inserts, insertMs: (1000 * (after.insertSeconds - before.insertSeconds)) / Math.max(1, inserts) };
    };

    console.log(`bench:ingest — ${ROUNDS} rounds of ${CLICKS} clicks in jobs of ${BATCH} through BullMQ into the embedded store (worker concurrency 32, live batches inserted together)`);
    await round(20 * BATCH); // warm-up
    const results = [];
    for (let r = 0; r < ROUNDS; r++) {
      const result = await round(CLICKS);
      results.push(result);
      console.log(
        `  round ${r + 1}: ${Math.round(result.rate).toLocaleString('en-US')} clicks/s (${result.elapsed.toFixed(1)} s; enqueued in ${result.enqueued.toFixed(1)} s; ` +
          `${result.inserts} inserts, ${result.insertMs.toFixed(1)} ms each on average)`,
      );
    }

    // Every click counted once, as the API sees them.
    const expected = 20 * BATCH + ROUNDS * CLICKS;
    const iso = (ms) => new Date(ms).toISOString().slice(0, 19) + 'Z';
    const res = await lib.request({
      port: service.port,
      method: 'GET',
      path: `/stats/range.json?${form({ v: '3', key, start_date: iso(Date.now() - 3 * 3_600_000), end_date: iso(Date.now() + 3_600_000) })}`,
    });
    const clicks = JSON.parse(res.body).totals?.clicks;
    const rates = results.map((r) => r.rate).sort((a, b) => a - b);
    const median = rates[Math.floor(rates.length / 2)];
    console.log(`median ${Math.round(median).toLocaleString('en-US')} clicks/s (target ≥ ${TARGET.toLocaleString('en-US')}); range totals: ${clicks} clicks, expected ${expected}`);
    if (clicks !== expected) throw new Error(`the API counts ${clicks} clicks, ${expected} were enqueued`);
    if (median < TARGET) console.log('MISSES TARGET');
  } finally {
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await service.stop();
    await lib.dropDatabase(name);
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
