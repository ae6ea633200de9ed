// Profiling aid for bench:ingest (not a benchmark): bare inserts of click rows into a fresh embedded
// store with the service's schema, per variant (token, block size, views, async_insert, two
// inserters): rows/s, ms and CPU ms per insert. Usage: node bench/profile/ingest-inserts.js <new folder> [rows per variant]
const { openAnalyticsClient, chTime } = require('../../dist/analytics/analytics-client');
const { analyticsSchema } = require('../../dist/analytics/analytics-schema');
const { randomUUID } = require('node:crypto');
(async () => {
  const dir = process.argv[2];
  const c = await openAnalyticsClient({ url: null, embeddedDir: dir, database: 'svc' });
  for (const s of analyticsSchema('svc')) await c.command(s);
  const project = randomUUID();
  const rowsOf = (n) => Array.from({ length: n }, (_, i) => ({ project_id: project, link_id: String(1 + (i * 7919) % 100), clicked_at: chTime(Date.now() - 1000 + i), click_id: randomUUID(),
    referrer: i % 4 ? 'https://t.co/' : null, user_agent: 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0', ip: `10.0.${i >> 8 & 255}.${i & 255}`, is_bot: 0 }));
  const run = async (name, batch, total, insert) => {
    const blocks = Array.from({ length: total / batch }, () => rowsOf(batch));
    const u = process.cpuUsage(); const t = process.hrtime.bigint();
    if (insert) for (const b of blocks) await insert(b);
    else { let k = 0; await Promise.all([0, 1].map(async () => { while (k < blocks.length) await c.insert('clicks', blocks[k++], { token: randomUUID() }); })); }
    const s = Number(process.hrtime.bigint() - t) / 1e9; const du = process.cpuUsage(u);
    console.log(`${name.padEnd(58)} ${Math.round(total / s).toLocaleString('en-US').padStart(9)} rows/s  ${(1000 * s / blocks.length).toFixed(1)} ms/insert  cpu ${((du.user + du.system) / 1000 / blocks.length).toFixed(1)} ms/insert`);
  };
  const N = Number(process.argv[3] ?? 100000);
  await run('warm-up', 1000, 20000, (b) => c.insert('clicks', b, { token: randomUUID() }));
  const client = c['client'];
  const raw = (settings) => (b) => client.insert({ table: 'svc.clicks', values: b, format: 'JSONEachRow', clickhouse_settings: settings });
  await run('1000 rows, no token', 1000, N, (b) => c.insert('clicks', b));
  await run('1000 rows, token + dedup in views (as the worker)', 1000, N, (b) => c.insert('clicks', b, { token: randomUUID() }));
  await run('1000 rows, token, views not deduplicated', 1000, N, (b) => raw({ insert_deduplication_token: randomUUID(), deduplicate_blocks_in_dependent_materialized_views: 0 })(b));
  await run('1000 rows, token + dedup in views (again)', 1000, N, (b) => c.insert('clicks', b, { token: randomUUID() }));
  await run('1000 rows, no token (again)', 1000, N, (b) => c.insert('clicks', b));
  await run('2 concurrent inserters, token + views dedup', 1000, N, null);
  await c.close();
})().catch((e) => { console.error(String(e.message).slice(0, 1500)); process.exit(1); });
