// npm run bench:redirect — the redirect hot path of the built service (on real PostgreSQL and Redis)
// against a bare Node `http` server that answers every request with a 302, both in their own child
// processes and driven by the same autocannon load from this process. Alternating rounds, medians
// of req/s, p50 and p99; then every click must have reached the analytics store: clicks counted must
// equal the 302 responses completed.
const os = require('node:os');
const { randomBytes } = require('node:crypto');
const lib = require('./lib');

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const { DOMAIN } = lib.REDIRECT;

/** One drained autocannon run of `seconds` (lib.load) with BENCH_CONNECTIONS connections. */
const load = (port, path, headers, seconds) => lib.load(port, path, headers, seconds, CONNECTIONS);

async function main() {
  const loadBefore = os.loadavg()[0];
  const scratch = await lib.scratchService();
  const { env, subscriptionKey, applicationKey } = scratch;
  // One process (ROLE=all) by default; BENCH_ROLES=split runs an API process and a worker process
  // as docker-compose.yml does (on 2 cores that measured slower: 0.31 against 0.51).
  const split = process.env.BENCH_ROLES === 'split';
  if (split && !env.CLICKHOUSE_URL) throw new Error('BENCH_ROLES=split needs a ClickHouse server (BENCH_CLICKHOUSE_URL): the embedded store serves one process');
  const service = await lib.startService({ ...env, ROLE: split ? 'api' : 'all' });
  const worker = split ? await lib.startService({ ...env, ROLE: 'worker' }) : null;
  const bare = await lib.startChild(['-e', lib.BARE_SERVER], 'bare server');
  try {
    const key = await lib.createProject(service.port, subscriptionKey, applicationKey);
    // Both answer the same thing; the service's first redirect counts as a click too.
    const { link, path, headers } = await lib.redirectLink(service.port, key);
    await lib.expectRedirect(bare.port, path, headers, 'bare');
    let redirects = 1;

    const warm = await load(service.port, path, headers, WARMUP);
    redirects += warm.redirects;
    await load(bare.port, path, headers, WARMUP);

    const results = { service: [], bare: [] };
    const catchUp = [];
    const cpu = [];
    const bareCpu = [];
    for (let round = 0; round < ROUNDS; round++) {
      const before = cpuSeconds(service.pid);
      const s = await load(service.port, path, headers, DURATION);
      redirects += s.redirects;
      results.service.push(s);
      // The service's click pipeline finishes its round's clicks before the bare server's round:
      // a backlog left for later would be work the service's rate did not pay for.
      catchUp.push(await lib.caughtUp(service.port, key, link.svc_id, redirects));
      const after = cpuSeconds(service.pid);
      cpu.push({ all: (after.all - before.all) / s.redirects, main: (after.main - before.main) / s.redirects, split: threadSplit(before, after, s.redirects) });
      const bareBefore = cpuSeconds(bare.pid);
      const b = await load(bare.port, path, headers, DURATION);
      results.bare.push(b);
      bareCpu.push((cpuSeconds(bare.pid).all - bareBefore.all) / b.completed);
    }
    const m = (runs, field) => lib.median(runs.map((r) => r[field]));
    const sum = (runs, field) => runs.reduce((n, r) => n + r[field], 0);
    const row = (label, runs) =>
      `${label.padEnd(14)}${m(runs, 'rps').toFixed(0).padStart(9)}${`${m(runs, 'p50')} ms`.padStart(9)}${`${m(runs, 'p99')} ms`.padStart(9)}` +
      `   errors ${sum(runs, 'errors')}, timeouts ${sum(runs, 'timeouts')}, non-302 ${sum(runs, 'other')}`;
    const ratio = m(results.service, 'rps') / m(results.bare, 'rps');

    console.log(`bench:redirect — GET ${path} (Host: ${DOMAIN}), autocannon ${CONNECTIONS} connections, ${DURATION} s per round,`);
    console.log(`${ROUNDS} alternating rounds (service, bare, …) after ${WARMUP} s warm-up each; medians`);
    console.log(
      `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), Node ${process.version} — autocannon, the service ` +
        `(${split ? 'ROLE=api and a ROLE=worker process' : 'ROLE=all: API and click worker in one process'}), PostgreSQL, Redis and the bare server all share them`,
    );
    console.log(
      `load average (1 min) at start ${loadBefore.toFixed(2)}, after the rounds ${os.loadavg()[0].toFixed(2)}: ` +
        'other work on the machine skews both sides, the bare server most',
    );
    console.log(`                  req/s      p50      p99`);
    console.log(row('service', results.service));
    console.log(row('bare node http', results.bare));
    console.log(
      `rounds (service/bare req/s): ${results.service.map((s, i) => `${s.rps.toFixed(0)}/${results.bare[i].rps.toFixed(0)}`).join(', ')}`,
    );
    console.log(`ratio service/bare req/s: ${ratio.toFixed(2)} (target ≥ 0.60, service p99 ≤ 8 ms)`);
    console.log(
      `service CPU per redirect (its round and the round's clicks stored): ${cpu.map((c) => `${(c.all * 1e6).toFixed(1)} µs`).join(', ')}` +
        ` (event loop: ${cpu.map((c) => `${(c.main * 1e6).toFixed(1)}`).join(', ')} µs; the rest is the embedded store's and Node's other threads)`,
    );
    console.log(
      `service CPU per redirect by thread, median of rounds: ${medianSplit(cpu)
        .map(([kind, us]) => `${kind} ${us.toFixed(1)} µs`)
        .join(', ')}`,
    );
    console.log(`bare server CPU per request: ${bareCpu.map((c) => `${(c * 1e6).toFixed(1)} µs`).join(', ')}`);
    console.log(`clicks of each service round all counted ${catchUp.map((t) => `${t.toFixed(1)} s`).join(', ')} after its end`);

    const started = Date.now();
    const counted = await lib.settledClicks(service.port, key, link.svc_id, redirects);
    const lost = redirects - (counted.clicks + counted.bots);
    console.log(`302 responses completed (check + warm-up + service rounds): ${redirects}`);
    console.log(
      `clicks counted in the analytics store (stats/{svc_id}.json with_bots=true): ${counted.clicks}` +
        (counted.bots ? ` (+ ${counted.bots} as bots)` : '') +
        ` (settled ${((Date.now() - started) / 1000).toFixed(1)} s after the last round)`,
    );
    console.log(`clicks lost: ${lost}`);
    if (lost !== 0) process.exitCode = 1;
    // Peak resident memory of the service process (the kernel's high-water mark), its embedded stores included.
    const peak = /^VmHWM:\s+(\d+) kB/m.exec(require('node:fs').readFileSync(`/proc/${service.pid}/status`, 'utf8'));
    if (peak) console.log(`service peak resident memory: ${(Number(peak[1]) / 1024).toFixed(0)} MB (target < 1024 MB)`);
    // One line for scripts: the medians above and the peak.
    console.log(
      `bench:redirect ratio=${ratio.toFixed(3)} service_rps=${m(results.service, 'rps').toFixed(0)} ` +
        `p50_ms=${m(results.service, 'p50')} p99_ms=${m(results.service, 'p99')} ` +
        `peak_mb=${peak ? (Number(peak[1]) / 1024).toFixed(0) : 'n/a'} lost=${lost}`,
    );
  } finally {
    await bare.stop();
    await service.stop();
    await worker?.stop();
    await scratch.remove();
  }
}

/**
 * CPU seconds a process has used: all its threads, its main thread (the event loop), and by thread
 * kind (the thread's name as /proc gives it, digits dropped: `node`, `V8 DefaultWorke`, `libuv-worker`, chDB's pools…).
 */
function cpuSeconds(pid) {
  const fs = require('node:fs');
  const read = (file) => {
    const text = fs.readFileSync(file, 'utf8');
    const fields = text.slice(text.lastIndexOf(') ') + 2).split(' ');
    return { name: text.slice(text.indexOf('(') + 1, text.lastIndexOf(') ')), seconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS };
  };
  const threads = {};
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const { name, seconds } = read(`/proc/${pid}/task/${tid}/stat`);
      const kind = tid === String(pid) ? 'event loop' : name.replace(/[\d:]+$/, '').trim() || name;
      threads[kind] = (threads[kind] ?? 0) + seconds;
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return { all: read(`/proc/${pid}/stat`).seconds, main: read(`/proc/${pid}/task/${pid}/stat`).seconds, threads };
}

/** Per thread kind, the CPU µs per redirect between two readings, largest first (threads that ended are not counted). */
function threadSplit(before, after, redirects) {
  return Object.entries(after.threads)
    .map(([kind, seconds]) => [kind, ((seconds - (before.threads[kind] ?? 0)) * 1e6) / redirects])
    .filter(([, us]) => us >= 0.05)
    .sort((a, b) => b[1] - a[1]);
}
/** The rounds' thread splits merged: each kind's median µs per redirect. */
function medianSplit(cpu) {
  const kinds = new Set(cpu.flatMap((c) => c.split.map(([kind]) => kind)));
  return [...kinds]
    .map((kind) => [kind, lib.median(cpu.map((c) => c.split.find(([k]) => k === kind)?.[1] ?? 0))])
    .sort((a, b) => b[1] - a[1]);
}
/** The kernel's clock ticks per second (USER_HZ), 100 on Linux. */
const CLOCK_TICKS = 100;

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
