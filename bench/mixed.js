// npm run bench:mixed — redirects while statistics are read, in the default single process
// (ROLE=all). On bench:stats' seeded store (BENCH_REUSE_DATABASE, else seeded by bench:stats
// itself), the service redirects one link of the seeded project under autocannon's load; rounds
// alternate between redirects alone and redirects while a dashboard-like loop asks for range
// (channel × tag, the store's last 30 days) one query after another, about BENCH_RANGE_RATE a
// second. Medians of each; the ratio mixed/alone of redirects' req/s is what statistics cost them.
// Every range answer must equal the first, and every redirect's click must be counted.
const { spawn } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const { readFile, rm } = require('node:fs/promises');
const lib = require('./lib');

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RANGE_RATE = Number(process.env.BENCH_RANGE_RATE ?? 5);
const RANGE_DAYS = Number(process.env.BENCH_RANGE_DAYS ?? 30);
const { DOMAIN } = lib.REDIRECT;
// Targets: redirects keep this share of their req/s alone, and this p99, while range runs.
const TARGET_RATIO = 0.75;
const TARGET_P99_MS = 10;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Seeds a store as bench:stats does, by running it (BENCH_KEEP_DATABASE=1, no baseline, no query
 * timed); returns the kept database's name.
 */
function seedWithStats() {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, BENCH_KEEP_DATABASE: '1', BENCH_BASELINE: '0', BENCH_QUERIES: 'none' };
    const child = spawn(process.execPath, [path.join(__dirname, 'stats.js')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.once('close', (code) => {
      const kept = /BENCH_REUSE_DATABASE=(\S+)/.exec(output)?.[1];
      if (code === 0 && kept) return resolve(kept);
      const error = new Error(`bench/stats.js (seeding) exited with ${code}`);
      // What a failed seed kept goes, as the seed's own failure would drop it.
      if (!kept) return reject(error);
      Promise.all([lib.dropDatabase(kept), rm(path.join(process.env.BENCH_DATA_DIR ?? os.tmpdir(), kept), { recursive: true, force: true })]).then(
        () => reject(error),
        reject,
      );
    });
  });
}

/**
 * Requests range with `get` one at a time until `running()` is false, each started at least
 * 1/RANGE_RATE s after the previous one started (the remainder waited after its answer; never two
 * at once). Returns each answer's time (ms) and the loop's seconds.
 */
async function rangeLoop(get, running) {
  const times = [];
  const started = process.hrtime.bigint();
  while (running()) {
    const t0 = process.hrtime.bigint();
    await get();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    times.push(ms);
    const rest = 1000 / RANGE_RATE - ms;
    if (rest > 0 && running()) await sleep(rest);
  }
  return { times, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

async function main() {
  const loadBefore = os.loadavg()[0];
  const seeded = !process.env.BENCH_REUSE_DATABASE;
  if (seeded) process.env.BENCH_REUSE_DATABASE = await seedWithStats();
  const { name, dataDir, sizesFile, serviceEnv } = await lib.seededStore();
  const { key, endHour } = JSON.parse(await readFile(sizesFile, 'utf8'));
  const service = await lib.startService({ ...serviceEnv, ROLE: 'all' });
  try {
    // The redirect, checked once (a click too).
    const { link, path: linkPath, headers } = await lib.redirectLink(service.port, key);
    let redirects = 1;

    // Range as bench:stats asks for it: the seeded store's last RANGE_DAYS days (the bench's own
    // clicks come after them, so every answer is the same).
    const end = new Date(endHour);
    const iso = (d) => d.toISOString().slice(0, 19) + 'Z';
    const rangePath =
      '/stats/range.json?' +
      new URLSearchParams({
        v: '3',
        key,
        start_date: iso(new Date(end.getTime() - RANGE_DAYS * 86_400_000)),
        end_date: iso(end),
        group_by: 'channel',
        pivot: 'tag',
      }).toString();
    const first = await lib.request({ port: service.port, method: 'GET', path: rangePath });
    if (first.status !== 200) throw new Error(`range ${first.status} ${first.body.slice(0, 300)}`);
    const differing = [];
    const range = async () => {
      const answer = await lib.request({ port: service.port, method: 'GET', path: rangePath });
      if (answer.status !== 200 || answer.body !== first.body) differing.push(`${answer.status} ${answer.body.slice(0, 300)}`);
    };

    // Warm-up: redirects, then range alone (its idle time, for reference).
    redirects += (await lib.load(service.port, linkPath, headers, WARMUP, CONNECTIONS)).redirects;
    await lib.caughtUp(service.port, key, link.svc_id, redirects);
    const idle = [];
    for (let i = 0; i < 8; i++) {
      const t0 = process.hrtime.bigint();
      await range();
      idle.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }

    const alone = [];
    const mixed = [];
    const loops = [];
    const catchUp = [];
    for (let round = 0; round < ROUNDS; round++) {
      const a = await lib.load(service.port, linkPath, headers, DURATION, CONNECTIONS);
      redirects += a.redirects;
      alone.push(a);
      catchUp.push(await lib.caughtUp(service.port, key, link.svc_id, redirects));

      let running = true;
      const loop = rangeLoop(range, () => running);
      const m = await lib.load(service.port, linkPath, headers, DURATION, CONNECTIONS);
      running = false;
      const l = await loop;
      redirects += m.redirects;
      mixed.push(m);
      loops.push({ ...l, perSecond: l.times.length / l.seconds });
      catchUp.push(await lib.caughtUp(service.port, key, link.svc_id, redirects));
    }

    const med = (runs, field) => lib.median(runs.map((r) => r[field]));
    const sum = (runs, field) => runs.reduce((n, r) => n + r[field], 0);
    const row = (label, runs) =>
      `${label.padEnd(24)}${med(runs, 'rps').toFixed(0).padStart(9)}${`${med(runs, 'p50')} ms`.padStart(9)}${`${med(runs, 'p99')} ms`.padStart(9)}` +
      `   errors ${sum(runs, 'errors')}, timeouts ${sum(runs, 'timeouts')}, non-302 ${sum(runs, 'other')}`;
    const ratio = med(mixed, 'rps') / med(alone, 'rps');
    const rangeTimes = loops.flatMap((l) => l.times);
    const rangeP50 = lib.median(rangeTimes);
    const rangesPerSecond = med(loops, 'perSecond');

    console.log(
      `bench:mixed — GET ${linkPath} (Host: ${DOMAIN}), autocannon ${CONNECTIONS} connections, ${DURATION} s per round; ` +
        `range (group_by=channel, pivot=tag, ${RANGE_DAYS} days) one at a time, at most ${RANGE_RATE}/s`,
    );
    console.log(`${ROUNDS} rounds of each (alone, with range, …) after ${WARMUP} s of warm-up; store ${name}, service ROLE=all; medians`);
    console.log(
      `machine: ${os.cpus().length} cores, Node ${process.version}; load average (1 min) at start ${loadBefore.toFixed(2)}, ` +
        `after the rounds ${os.loadavg()[0].toFixed(2)}`,
    );
    console.log(`                            req/s      p50      p99`);
    console.log(row('redirects alone', alone));
    console.log(row('redirects with range', mixed));
    console.log(`rounds (alone/with range req/s): ${alone.map((a, i) => `${a.rps.toFixed(0)}/${mixed[i].rps.toFixed(0)}`).join(', ')}`);
    console.log(`rounds (alone/with range p99 ms): ${alone.map((a, i) => `${a.p99}/${mixed[i].p99}`).join(', ')}`);
    console.log(
      `range: idle p50 ${lib.median(idle).toFixed(1)} ms; with redirects p50 ${rangeP50.toFixed(1)} ms, ` +
        `max ${Math.max(...rangeTimes).toFixed(1)} ms, ${rangeTimes.length} answers, ${rangesPerSecond.toFixed(2)}/s (rounds ${loops.map((l) => l.perSecond.toFixed(2)).join(', ')})`,
    );
    console.log(
      `ratio with range/alone req/s: ${ratio.toFixed(2)} (target ≥ ${TARGET_RATIO}, p99 with range ≤ ${TARGET_P99_MS} ms); ` +
        `clicks of each round all counted ${catchUp.map((t) => `${t.toFixed(1)} s`).join(', ')} after its end`,
    );

    const counted = await lib.settledClicks(service.port, key, link.svc_id, redirects);
    const lost = redirects - (counted.clicks + counted.bots);
    console.log(`302 responses completed: ${redirects}; clicks counted: ${counted.clicks}; clicks lost: ${lost}`);
    if (differing.length > 0) {
      console.error(`ERROR ${differing.length} range answers differ from the first: ${differing[0]}`);
      process.exitCode = 1;
    }
    if (lost !== 0) process.exitCode = 1;
    // One line for scripts: the medians above.
    console.log(
      `bench:mixed ratio=${ratio.toFixed(3)} alone_rps=${med(alone, 'rps').toFixed(0)} mixed_rps=${med(mixed, 'rps').toFixed(0)} ` +
        `alone_p99_ms=${med(alone, 'p99')} mixed_p99_ms=${med(mixed, 'p99')} range_p50_ms=${rangeP50.toFixed(1)} ` +
        `ranges_per_s=${rangesPerSecond.toFixed(2)} lost=${lost}`,
    );
  } finally {
    await service.stop();
    await lib.dropRedisKeys(serviceEnv.REDIS_PREFIX);
    if (seeded && !process.env.BENCH_KEEP_DATABASE) {
      await lib.dropDatabase(name);
      await rm(dataDir, { recursive: true, force: true });
    } else if (seeded) console.log(`database kept: BENCH_REUSE_DATABASE=${name} (store in ${dataDir})`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
