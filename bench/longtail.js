// npm run bench:longtail — redirects beyond one hot link (docs/benchmarks.md, "Long tail"): the built
// service on real PostgreSQL and Redis, BENCH_LINKS links made through url/batch, then in one run,
// each with BENCH_CONNECTIONS connections: one hot link; a cold pass visiting every link once; a
// Zipf (s = 1) mix and a uniform mix over all links, warm; random unknown paths alone; and the hot
// link beside a flood of unknown paths (half the connections each, against the hot link alone on
// half), from one address and from many (X-Forwarded-For). Each figure is a ratio to the hot link
// of the same run; the floods beside the hot link run against the service restarted with the brake
// on not-found answers at its defaults, the rest without it. Every answered redirect must be
// counted by the analytics store.
const os = require('node:os');
const { randomBytes } = require('node:crypto');
const lib = require('./lib');

const LINKS = Number(process.env.BENCH_LINKS ?? 1_000_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
/** Links one url/batch call makes (its most). */
const BATCH = 1000;
const { DOMAIN, USER_AGENT, LOCATION } = lib.REDIRECT;
const HEADERS = { Host: DOMAIN, 'User-Agent': USER_AGENT };

/**
 * One autocannon run over many paths: `next()` names each request's path. Runs `seconds`, or until
 * `amount` requests were sent; no request is left in flight at the end (lib.drainedRun).
 */
async function run(port, next, { seconds, amount, connections = CONNECTIONS, spread = false }) {
  const result = await lib.drainedRun(
    {
      url: `http://127.0.0.1:${port}`,
      headers: HEADERS,
      connections,
      ...(amount !== undefined ? { amount } : {}),
      requests: [
        {
          setupRequest: (req) =>
            spread
              ? { ...req, path: next(), headers: { ...HEADERS, 'X-Forwarded-For': randomAddress() } }
              : { ...req, path: next() },
        },
      ],
    },
    amount !== undefined ? undefined : seconds,
  );
  return { ...result, errors: result.errors + result.timeouts };
}

/** A random public-looking IPv4 address: each request of a spread flood comes from another. */
function randomAddress() {
  const [a, b, c, d] = randomBytes(4);
  return `${(a % 200) + 11}.${b}.${c}.${d}`;
}

/** A Zipf (s = 1) sampler over ranks 0 … n-1: the cumulative weights, searched by bisection. */
function zipfSampler(n) {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 1);
  return () => {
    const x = Math.random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** Makes `count` links with url/batch (in parallel, four calls at a time); returns their paths. */
async function makeLinks(port, key, count) {
  const paths = new Array(count);
  const calls = Math.ceil(count / BATCH);
  const started = Date.now();
  await lib.runLoad(calls, 4, async (call) => {
    const size = Math.min(BATCH, count - call * BATCH);
    const body = new URLSearchParams({ v: '3', key, tool: 'bench-tool', channel: 'twitter' });
    for (let i = 0; i < size; i++) body.append('url[]', `${LOCATION}&n=${call * BATCH + i}`);
    const res = await lib.request({
      port,
      method: 'POST',
      path: '/url/batch.json',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
    if (res.status !== 200) throw new Error(`url/batch ${res.status} ${res.body.slice(0, 300)}`);
    JSON.parse(res.body).svc_urls.forEach((link, i) => (paths[call * BATCH + i] = `/${link.path}`));
    if (call % 100 === 99) console.log(`  ${(call + 1) * BATCH} links made (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  });
  return paths;
}

/** The project's clicks of the whole run as the statistics count them (stats/range.json). */
async function projectClicks(port, key, since) {
  const query = new URLSearchParams({ v: '3', key, start_date: since.toISOString(), end_date: new Date(Date.now() + 3600_000).toISOString() });
  const res = await lib.request({ port, method: 'GET', path: `/stats/range.json?${query}` });
  if (res.status !== 200) throw new Error(`stats/range ${res.status} ${res.body.slice(0, 300)}`);
  return Number(JSON.parse(res.body).totals.clicks);
}

/** Polls the project's clicks until they reach `expected` or stop growing for 15 s. */
async function settled(port, key, since, expected) {
  let last = -1;
  let changed = Date.now();
  for (;;) {
    const now = await projectClicks(port, key, since);
    if (now >= expected) return now;
    if (now !== last) changed = Date.now();
    else if (Date.now() - changed > 15_000) return now;
    last = now;
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main() {
  const loadBefore = os.loadavg()[0];
  const scratch = await lib.scratchService();
  const serviceEnv = {
    ...scratch.env,
    CREATE_RATE_LIMIT: '10000000',
    READ_RATE_LIMIT: '10000000',
    // One proxy hop: the spread flood's X-Forwarded-For names its clients.
    TRUST_PROXY: 'loopback',
  };
  // The cost of each kind of visit is measured without the brake on not-found answers (it would
  // hold a flood's answers, not answer them faster); the floods are then measured beside the hot
  // link against the service restarted with the brake's defaults.
  let service = await lib.startService({ ...serviceEnv, NOT_FOUND_RATE_LIMIT: '0', NOT_FOUND_INSTANCE_LIMIT: '0' });
  try {
    const since = new Date(Date.now() - 3600_000);
    const key = await lib.createProject(service.port, scratch.subscriptionKey, scratch.applicationKey);
    console.log(`making ${LINKS} links through url/batch…`);
    const paths = await makeLinks(service.port, key, LINKS);
    const hot = paths[0];
    const zipf = zipfSampler(paths.length);
    const unknown = () => `/${randomBytes(6).toString('base64url')}`;
    let redirects = 0;
    const measure = async (label, next, options) => {
      const result = await run(service.port, next, options);
      redirects += result.redirects;
      if (label) console.log(`  ${label.padEnd(44)}${result.rps.toFixed(0).padStart(8)} req/s  p99 ${String(result.p99).padStart(4)} ms  (302: ${result.redirects}, 404: ${result.notFound}, errors: ${result.errors})`);
      return result;
    };
    const half = Math.max(1, CONNECTIONS / 2);
    /** The hot link on half the connections alone, then beside a flood of unknown paths on the other half. */
    const besideFlood = async (label, spread) => {
      const alone = await measure(`hot link alone, ${half} connections`, () => hot, { seconds: DURATION, connections: half });
      const [beside] = await Promise.all([
        measure(`hot link beside ${label}, ${half}`, () => hot, { seconds: DURATION, connections: half }),
        measure(`${label}, ${half}`, unknown, { seconds: DURATION, connections: half, spread }),
      ]);
      return beside.rps / alone.rps;
    };

    console.log(`bench:longtail — ${LINKS} links on ${DOMAIN}, autocannon ${CONNECTIONS} connections, ${DURATION} s per figure`);
    console.log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), Node ${process.version}; load average at start ${loadBefore.toFixed(2)}`);
    console.log('without the brake on not-found answers (NOT_FOUND_RATE_LIMIT=0, NOT_FOUND_INSTANCE_LIMIT=0):');
    await measure(null, () => hot, { seconds: WARMUP });
    const hotFirst = await measure('one hot link', () => hot, { seconds: DURATION });
    let cursor = 0;
    const cold = await measure('cold pass (every link once)', () => paths[cursor++ % paths.length], { amount: paths.length });
    await measure(null, () => paths[zipf()], { seconds: WARMUP });
    const zipfMix = await measure('Zipf mix (s = 1), warm', () => paths[zipf()], { seconds: DURATION });
    await measure(null, () => paths[Math.floor(Math.random() * paths.length)], { seconds: WARMUP });
    const uniform = await measure('uniform mix, warm', () => paths[Math.floor(Math.random() * paths.length)], { seconds: DURATION });
    const unknownAlone = await measure('random unknown paths', unknown, { seconds: DURATION });
    // The hot link again: each ratio is to the faster of its two runs (the first may still share
    // the machine with the work the links' making left, such as merges and vacuum).
    const hotAgain = await measure('one hot link, again', () => hot, { seconds: DURATION });
    const hotAlone = hotAgain.rps > hotFirst.rps ? hotAgain : hotFirst;
    const unbraked = await besideFlood('a flood of unknown paths', false);

    console.log('restarted with the brake\'s defaults:');
    await service.stop();
    service = await lib.startService(serviceEnv);
    await measure(null, () => hot, { seconds: WARMUP });
    const braked = await besideFlood('a flood of unknown paths', false);
    const spread = await besideFlood('a flood from many addresses', true);

    const ratio = (r) => r.rps / hotAlone.rps;
    console.log(`ratios to the hot link: cold ${ratio(cold).toFixed(2)} (target ≥ 0.5), Zipf ${ratio(zipfMix).toFixed(2)} (≥ 0.8), uniform ${ratio(uniform).toFixed(2)} (≥ 0.5), unknown ${ratio(unknownAlone).toFixed(2)} (≥ 0.8)`);
    console.log(`hot link beside a flood ÷ alone: ${braked.toFixed(2)} (≥ 0.7; ${unbraked.toFixed(2)} without the brake); beside a flood from many addresses ${spread.toFixed(2)}`);
    console.log(`Zipf p99 ${zipfMix.p99} ms against the hot link's ${hotAlone.p99} ms (≤ 2×)`);

    // One click per answered redirect (the check redirects of makeLinks aside: it makes none).
    const counted = await settled(service.port, key, since, redirects);
    const lost = redirects - counted;
    console.log(`302 responses: ${redirects}; clicks counted (stats/range.json): ${counted}; lost: ${lost}`);
    if (lost !== 0) process.exitCode = 1;
    console.log(
      `bench:longtail cold_ratio=${ratio(cold).toFixed(3)} zipf_ratio=${ratio(zipfMix).toFixed(3)} uniform_ratio=${ratio(uniform).toFixed(3)} ` +
        `unknown_ratio=${ratio(unknownAlone).toFixed(3)} hot_beside_flood_ratio=${braked.toFixed(3)} ` +
        `hot_beside_spread_flood_ratio=${spread.toFixed(3)} hot_beside_flood_unbraked_ratio=${unbraked.toFixed(3)} ` +
        `zipf_p99_ms=${zipfMix.p99} hot_p99_ms=${hotAlone.p99} lost=${lost}`,
    );
  } finally {
    await service.stop();
    await scratch.remove();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
