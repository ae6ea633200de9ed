// npm run bench:create — link creation throughput on real PostgreSQL (and Redis), against the same
// machine's bare INSERT rate through `pg` for the same rows, at the same concurrency.
// Prints links/s for single creates and batches of 100, and the ratio to the baseline.
const { Pool } = require('pg');
const { randomBytes, randomUUID } = require('node:crypto');
const lib = require('./lib');

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SINGLE = Number(process.env.BENCH_SINGLE ?? 4000);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 100);
const BATCH_SIZE = 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const form = (fields) =>
  Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => `${encodeURIComponent(k)}=${encodeURIComponent(x)}`) : [`${encodeURIComponent(k)}=${encodeURIComponent(v)}`]))
    .join('&');

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

async function main() {
  const name = await lib.createDatabase();
  const subscriptionKey = `bench_${randomBytes(12).toString('hex')}`;
  const applicationKey = `bench_${randomBytes(12).toString('hex')}`;
  const service = await lib.startService({
    DATABASE_URL: lib.databaseUrl(name),
    REDIS_URL: lib.REDIS_URL,
    REDIS_PREFIX: `bench:${randomBytes(3).toString('hex')}`,
    DEFAULT_DOMAIN: 'bench.svc',
    CREATE_RATE_LIMIT: '10000000',
    BOOTSTRAP_SUBSCRIPTION_KEY: subscriptionKey,
    BOOTSTRAP_APPLICATION_KEY: applicationKey,
  });
  const pool = new Pool({ connectionString: lib.databaseUrl(name), max: 10 });
  try {
    const key = await lib.createProject(service.port, subscriptionKey, applicationKey);
    const projectId = (await pool.query('SELECT id FROM projects WHERE api_key = $1', [key])).rows[0].id;
    const fields = (i) => ({ v: '3', key, tool: 'bench-tool', channel: 'twitter', url: `https://example.com/article/${i}`, tag: 'bench' });

    const serviceSingle = async () =>
      SINGLE /
      (await lib.runLoad(SINGLE, CONCURRENCY, async (i) => {
        const res = await lib.request({ port: service.port, method: 'POST', path: '/url.json', headers: FORM, body: form(fields(i)) });
        if (res.status !== 200) throw new Error(`url.json ${res.status} ${res.body}`);
      }));
    const serviceBatch = async () =>
      (BATCHES * BATCH_SIZE) /
      (await lib.runLoad(BATCHES, CONCURRENCY, async (b) => {
        const urls = Array.from({ length: BATCH_SIZE }, (_, j) => `https://example.com/article/${b}-${j}`);
        const res = await lib.request({ port: service.port, method: 'POST', path: '/url/batch.json', headers: FORM, body: form({ ...fields(0), url: undefined, 'url[]': urls }) });
        if (res.status !== 200) throw new Error(`url/batch.json ${res.status} ${res.body.slice(0, 300)}`);
      }));

    // The baseline writes the same rows straight into the same table.
    const COLUMNS = 'project_id, svc_id, domain, path, original_url, redirect_url, channel, service, tool, application, tag';
    const row = (i) => {
      const path = randomBytes(6).toString('base64url');
      const url = `https://example.com/article/${i}`;
      return [projectId, `bench.svc_${path}`, 'bench.svc', path, url, url, 'twitter', 'twitter', 'bench-tool', 'bench', 'bench'];
    };
    const bareSingle = async () =>
      SINGLE /
      (await lib.runLoad(SINGLE, CONCURRENCY, async (i) => {
        await pool.query(`INSERT INTO links (${COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) RETURNING *`, row(i));
      }));
    const bareBatch = async () =>
      (BATCHES * BATCH_SIZE) /
      (await lib.runLoad(BATCHES, CONCURRENCY, async (b) => {
        const params = [];
        const tuples = [];
        for (let j = 0; j < BATCH_SIZE; j++) {
          const values = row(`${b}-${j}`);
          tuples.push(`(${values.map((v) => (params.push(v), `$${params.length}`)).join(',')})`);
        }
        await pool.query(`INSERT INTO links (${COLUMNS}) VALUES ${tuples.join(',')} RETURNING *`, params);
      }));

    // Warm-up, then alternating rounds; the median of each is reported.
    await lib.runLoad(200, CONCURRENCY, async (i) => {
      await lib.request({ port: service.port, method: 'POST', path: '/url.json', headers: FORM, body: form(fields(i)) });
    });
    const results = { serviceSingle: [], bareSingle: [], serviceBatch: [], bareBatch: [] };
    for (let round = 0; round < ROUNDS; round++) {
      results.serviceSingle.push(await serviceSingle());
      results.bareSingle.push(await bareSingle());
      results.serviceBatch.push(await serviceBatch());
      results.bareBatch.push(await bareBatch());
    }
    const m = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, lib.median(v)]));
    const fmt = (n) => n.toFixed(0).padStart(8);
    console.log(`bench:create — concurrency ${CONCURRENCY}, ${ROUNDS} alternating rounds, medians (links/s)`);
    console.log(`                       service   bare INSERT   ratio`);
    console.log(`single (${SINGLE}/round) ${fmt(m.serviceSingle)}      ${fmt(m.bareSingle)}   ${(m.serviceSingle / m.bareSingle).toFixed(2)}`);
    console.log(`batch of ${BATCH_SIZE} (${BATCHES}/round) ${fmt(m.serviceBatch)}      ${fmt(m.bareBatch)}   ${(m.serviceBatch / m.bareBatch).toFixed(2)}`);
  } finally {
    await pool.end();
    await service.stop();
    await lib.dropDatabase(name);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
