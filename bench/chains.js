// npm run bench:chains — share-chain statistics latency (docs/api.md, "Share chains (extension)")
// on a seeded project: 1M links, 40% of them reshares in heavy-tailed cascades (most of a few
// links, a few roots with 10,000+ descendants, depths up to 12), 10M raw clicks and their
// conversions over 90 days, through the service's HTTP API on its analytics store (embedded chDB).
// Times range by sharer with chains, range by channel with first-touch attribution and chain.json
// of the largest root against their targets, and range by channel and totals without the new
// parameters (to compare with a run of the same queries on another build). Range by sharer with
// chains and range by channel by first touch are each timed side by side with the same query
// without the parameter, runs alternated, for the ratio of their p50s (issue 44). Then moves a
// subtree under another root and times how long until every statistic shows it (issue 44). Checks
// each answer against figures the seed knows; a wrong answer is an error. Prints p50 per query, the
// ratios, the move, and one line for scripts; exits 1 on an error or a missed target (a parameter or
// route the service does not have yet, answered 400 or 404 or ignored without its echo, counts as
// missed).
//
// Seeding (bench/chains-seed.js): the links with their chains go into PostgreSQL; then a
// short-lived child process opens the service's chDB folder, mirrors the links and their chains
// from PostgreSQL and generates the clicks and conversions inside the engine as bench:stats does;
// then the service starts on that folder.
const path = require('node:path');
const { rm, mkdir, readFile, writeFile } = require('node:fs/promises');
const { Client } = require('pg');
const lib = require('./lib');
const { seedChainLinks } = require('./chains-seed');

const LINKS = Number(process.env.BENCH_LINKS ?? 1_000_000);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 10_000_000);
// Click bursts (a link's clicks within one hour), as bench:stats.
const EVENTS = Number(process.env.BENCH_EVENTS ?? Math.round(CLICKS * 0.3));
// BENCH_OPTIMIZE=0: leave the store's parts as the inserts left them (no OPTIMIZE … FINAL).
const OPTIMIZE = process.env.BENCH_OPTIMIZE !== '0';
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
// Warm-up lasts at least this long per query (V8 optimises the request path after some hundreds of requests).
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const RANGE_DAYS = 30;
const DAYS = 90;
// Targets (p50, issue 35 "Speed"); the queries without the new parameters have none here: they are
// compared with a run of the same queries on the build before.
const TARGET_MS = { range_sharer_chain: 150, range_channel_first: 120, chain_root: 50 };
// Each new parameter against the query without it (issue 44): p50 with ÷ p50 without, at most.
const TARGET_RATIO = { chain_ratio: 1.5, first_ratio: 1.3 };
// The pairs timed side by side, the query without the parameter first: their runs alternate (one,
// the other, one, …) so that the ratio compares them under the same conditions of the machine.
const RATIOS = [
  { field: 'chain_ratio', plain: 'range_sharer', other: 'range_sharer_chain', name: 'range by sharer, with chains ÷ without' },
  { field: 'first_ratio', plain: 'range_channel', other: 'range_channel_first', name: 'range by channel, first touch ÷ last touch' },
];
// The move (issue 44): seconds from the re-parent's request until every statistic shows it, at most.
const TARGET_MOVE_S = 60;
// The statistics are polled this often while a move is under way, for at most MOVE_TIMEOUT_S.
const MOVE_POLL_MS = 250;
const MOVE_TIMEOUT_S = 600;
// The most links one move takes below the moved link (docs/api.md, "Share chains"): more is a 400.
const MOVE_MAX_SUBTREE = 10_000;
// url/update takes only links made within the last 30 days (docs/api.md, "Tracked links"): the
// moved link is chosen a day younger, so that it can still be moved back at the end of the run.
const MOVE_WINDOW_DAYS = 29;

const form = (fields) =>
  Object.entries(fields)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');

const seconds = (t) => ((Date.now() - t) / 1000).toFixed(0);

async function time(task) {
  const started = process.hrtime.bigint();
  await task();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

// ---- what each answer must hold ----

const amplification = (chain, clicks) => (clicks === 0 ? null : Math.round((chain / clicks) * 10000) / 10000);

/** range by sharer with chains: a chain on the totals and every group with its amplification. */
function checkSharerChain(body) {
  const rows = [['totals', body.totals], ...body.groups.map((g) => [`sharer ${g.sharer_id}`, g])];
  for (const [label, row] of rows) {
    const chain = row.chain;
    if (!chain || typeof chain.shares !== 'number' || typeof chain.clicks !== 'number') return `${label}: chain ${JSON.stringify(chain)}`;
    if (chain.amplification !== amplification(chain.clicks, row.clicks)) {
      return `${label}: amplification ${chain.amplification}, chain.clicks / clicks = ${chain.clicks} / ${row.clicks}`;
    }
  }
  if (body.total_results < 1000) return `${body.total_results} sharers: were the sharers seeded?`;
  if (body.totals.chain.clicks === 0) return 'no chain clicks in the period';
  return null;
}

/** range by channel, first touch: the totals of last touch (a click moves to its root, never out). */
function checkChannelFirst(body, lastTouch) {
  if (body.totals.clicks !== lastTouch.totals.clicks) return `totals ${body.totals.clicks} clicks, ${lastTouch.totals.clicks} by last touch`;
  if (body.totals.shares !== lastTouch.totals.shares) return `totals ${body.totals.shares} shares, ${lastTouch.totals.shares} by last touch (shares stay with their link)`;
  const sum = body.groups.reduce((s, g) => s + g.clicks, 0);
  if (body.total_results === body.groups.length && sum !== body.totals.clicks) return `its channels add up to ${sum} clicks, not ${body.totals.clicks}`;
  return null;
}

/** chain.json of the largest root, all time: the figures the seed counted in the store. */
function checkChain(body, rootSvcId, expected) {
  const want = {
    svc_id: rootSvcId,
    root: rootSvcId,
    depth: 0,
    own_clicks: expected.ownClicks,
    shares: expected.shares,
    sharers: expected.sharers,
    clicks: expected.clicks,
    generations: expected.generations.length,
    by_generation: expected.generations,
    total_results: expected.children,
  };
  const got = {
    svc_id: body.svc_id,
    root: body.root,
    depth: body.depth,
    own_clicks: body.own?.clicks,
    shares: body.downstream?.shares,
    sharers: body.downstream?.sharers,
    clicks: body.downstream?.clicks,
    generations: body.downstream?.generations,
    by_generation: body.generations?.map((g) => ({ generation: g.generation, shares: g.shares, clicks: g.clicks })),
    total_results: body.total_results,
  };
  return JSON.stringify(got) === JSON.stringify(want) ? null : `answered ${JSON.stringify(got).slice(0, 700)}\n  expected ${JSON.stringify(want).slice(0, 700)}`;
}

// ---- the move ----

/**
 * The link to move ($1 project, $2 MOVE_MAX_SUBTREE, $3 MOVE_WINDOW_DAYS): among the roots made
 * within the window (their children are made after them, so url/update takes every one), the one
 * with the most descendants; its child with the most links below it, up to what one move takes;
 * and the root with the most descendants besides, to move it under. A child's links below it are
 * those whose ancestors hold it (`ancestors @> ARRAY[id]`): the descendants at depth 2 and more
 * whose ancestor one generation below the root (ancestors[depth - 1]) is the child, counted for
 * every child in one pass.
 */
const MOVE_PICK_SQL = `WITH roots AS MATERIALIZED (
         SELECT root_id, (count(*) - 1)::int AS descendants FROM links WHERE project_id = $1 GROUP BY root_id
       ), below AS (
         SELECT ancestors[depth - 1] AS child, count(*)::int AS links FROM links
         WHERE project_id = $1 AND depth >= 2 GROUP BY 1
       ), moved AS (
         SELECT c.id, c.svc_id, c.root_id, coalesce(b.links, 0) AS below, r.descendants AS root_descendants
         FROM roots r
         JOIN links o ON o.id = r.root_id AND o.created_at > now() - make_interval(days => $3)
         JOIN links c ON c.project_id = $1 AND c.root_id = r.root_id AND c.depth = 1
                     AND c.created_at > now() - make_interval(days => $3)
         LEFT JOIN below b ON b.child = c.id
         WHERE coalesce(b.links, 0) <= $2
         ORDER BY r.descendants DESC, below DESC, c.id
         LIMIT 1
       )
       SELECT m.svc_id, m.below, m.root_descendants, o.svc_id AS from_root, t.svc_id AS to_root, t.descendants AS to_descendants
       FROM moved m
       JOIN links o ON o.id = m.root_id
       CROSS JOIN LATERAL (
         SELECT l.svc_id, r.descendants FROM roots r JOIN links l ON l.id = r.root_id
         WHERE r.root_id <> m.root_id ORDER BY r.descendants DESC, r.root_id LIMIT 1) t`;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sameFigures = (a, b) => a.shares === b.shares && a.clicks === b.clicks;
const figuresText = (f) => `${f.shares} shares, ${f.clicks} clicks`;

/**
 * Moves a subtree under another root (url/update with `parent`; its descendants follow in a
 * `chain-moves` job, docs/api.md "Share chains") and times, from the request, until every statistic
 * shows it: chain.json of both roots, all time (their downstream shares and clicks lose and gain
 * the subtree's: its descendants', plus the moved link itself, a share, with its own clicks, as
 * chain.json of the moved link answers them before the move), and first touch per root (range with
 * `attribution=first` filtered by the root's svc_id over all the seeded days: the subtree's clicks
 * move from one root to the other). Polled every MOVE_POLL_MS. While the move is under way each
 * moment must be right: the two roots' figures add up to their sum before the move (a part of the
 * subtree counted under both roots or under neither is an error); as the two chain.json are read
 * one after the other, a moment whose sum is off is read again on the old root, and judged only
 * when that root did not change meanwhile (a batch of the job that lands between the two reads is
 * no error). Once shown, range by sharer with chains must answer the totals it answered before (a
 * move keeps every descendant a descendant). A kept store (`kept`) gets the subtree back under its
 * root, waiting for the job, so that it stays the seed's. Returns what was moved and the seconds;
 * `unavailable` when the service refuses the move or has no chain.json, `skipped` when the store
 * has no link to move.
 */
async function measureMove({ db, key, get, post, allTime, chainParams, chainTotalsBefore, kept, errors }) {
  const [{ id: projectId }] = (await db.query('SELECT id FROM projects WHERE api_key = $1', [key])).rows;
  const [pick] = (await db.query(MOVE_PICK_SQL, [projectId, MOVE_MAX_SUBTREE, MOVE_WINDOW_DAYS])).rows;
  if (!pick) return { skipped: `no root made in the last ${MOVE_WINDOW_DAYS} days has a child with at most ${MOVE_MAX_SUBTREE} links below it, or no other root` };
  const moved = { svcId: pick.svc_id, below: pick.below, from: pick.from_root, fromSize: pick.root_descendants, to: pick.to_root, toSize: pick.to_descendants };
  const label = `move of ${moved.svcId} from ${moved.from} to ${moved.to}`;

  /** chain.json of a link, all time: null when the service has none (400 or 404). */
  const chainOf = async (svcId) => {
    const res = await get(`/stats/${encodeURIComponent(svcId)}/chain.json`, {});
    if (res.status === 400 || res.status === 404) return null;
    if (res.status !== 200) throw new Error(`chain.json of ${svcId}: ${res.status} ${res.body.slice(0, 300)}`);
    const body = JSON.parse(res.body);
    return { root: body.root, depth: body.depth, own: body.own?.clicks, shares: body.downstream?.shares, clicks: body.downstream?.clicks };
  };
  /** chain.json of a link while the move is under way: every answer must be there. */
  const chainNow = async (svcId) => {
    const figures = await chainOf(svcId);
    if (!figures) throw new Error(`${label}: chain.json of ${svcId} no longer answered`);
    return figures;
  };
  /** The clicks first touch credits to a root over all the seeded days: null without the parameter's echo. */
  const firstTouchOf = async (svcId) => {
    const res = await get('/stats/range.json', { ...allTime, svc_id: svcId, attribution: 'first' });
    if (res.status === 400 || res.status === 404) return null;
    if (res.status !== 200) throw new Error(`range of ${svcId} by first touch: ${res.status} ${res.body.slice(0, 300)}`);
    const body = JSON.parse(res.body);
    return body.attribution === 'first' ? body.totals.clicks : null;
  };
  /** The totals of range by sharer with chains (its timed query's parameters): null without the echo. */
  const chainTotals = async () => {
    const res = await get('/stats/range.json', chainParams);
    if (res.status !== 200) return null;
    const body = JSON.parse(res.body);
    return body.with_chain === true ? JSON.stringify(body.totals) : null;
  };

  // Before: the figures that must change, and those that must not.
  const from = await chainOf(moved.from);
  const to = await chainOf(moved.to);
  const link = await chainOf(moved.svcId);
  if (!from || !to || !link) return { ...moved, unavailable: 'chain.json answered 400 or 404' };
  if (link.root !== moved.from || link.depth !== 1) errors.push(`${label}: chain.json of the link answers root ${link.root}, depth ${link.depth} before the move`);
  const subtree = { shares: link.shares + 1, clicks: link.own + link.clicks };
  const expected = {
    from: { shares: from.shares - subtree.shares, clicks: from.clicks - subtree.clicks },
    to: { shares: to.shares + subtree.shares, clicks: to.clicks + subtree.clicks },
  };
  const sum = { shares: from.shares + to.shares, clicks: from.clicks + to.clicks };
  const firstFrom = await firstTouchOf(moved.from);
  const firstTo = firstFrom === null ? null : await firstTouchOf(moved.to);
  const firstTouch = firstFrom === null || firstTo === null ? null : { from: firstFrom - subtree.clicks, to: firstTo + subtree.clicks };
  const totalsBefore = chainTotalsBefore ?? (await chainTotals());

  const update = (parent) => post(`/url/update/${encodeURIComponent(moved.svcId)}.json`, { tool: 'bench-tool', parent });
  const started = Date.now();
  const res = await update(moved.to);
  if (res.status >= 400 && res.status < 500) return { ...moved, unavailable: `${res.status} ${res.body.slice(0, 300)}` };
  if (res.status !== 200) throw new Error(`${label}: ${res.status} ${res.body.slice(0, 300)}`);
  const result = { ...moved, subtree, firstTouch: firstTouch !== null, polls: 0, judged: 0 };
  try {
    if (JSON.parse(res.body).parent !== moved.to) errors.push(`${label}: url/update answered parent ${JSON.parse(res.body).parent}`);
    let chainShown = false;
    let wrong = null;
    let last = null;
    for (;;) {
      result.polls++;
      if (!chainShown) {
        const old = await chainNow(moved.from);
        const now = await chainNow(moved.to);
        last = `${moved.from} ${figuresText(old)}, ${moved.to} ${figuresText(now)}`;
        const both = { shares: old.shares + now.shares, clicks: old.clicks + now.clicks };
        if (sameFigures(both, sum)) result.judged++;
        else if (sameFigures(await chainNow(moved.from), old)) {
          result.judged++;
          wrong ??= { at: (Date.now() - started) / 1000, moments: 0, text: `${last}: together ${figuresText(both)}, ${figuresText(sum)} before the move` };
          wrong.moments++;
        }
        chainShown = sameFigures(old, expected.from) && sameFigures(now, expected.to);
      }
      if (chainShown) {
        if (!firstTouch) break;
        const [firstOld, firstNew] = [await firstTouchOf(moved.from), await firstTouchOf(moved.to)];
        last = `first touch ${moved.from} ${firstOld} clicks, ${moved.to} ${firstNew}`;
        if (firstOld === firstTouch.from && firstNew === firstTouch.to) break;
      }
      if (Date.now() - started > MOVE_TIMEOUT_S * 1000) {
        errors.push(
          `${label}: not shown by every statistic within ${MOVE_TIMEOUT_S} s; last answered ${last}; expected ${moved.from} ${figuresText(expected.from)}, ` +
            `${moved.to} ${figuresText(expected.to)}${firstTouch ? `, first touch ${firstTouch.from} and ${firstTouch.to} clicks` : ''}`,
        );
        result.timeout = true;
        break;
      }
      await sleep(MOVE_POLL_MS);
    }
    if (!result.timeout) result.seconds = (Date.now() - started) / 1000;
    if (wrong) errors.push(`${label}: at ${wrong.at.toFixed(1)} s (and ${wrong.moments - 1} more moments) ${wrong.text}: part of the subtree counted under both roots or neither`);
    if (!result.timeout) {
      const after = await chainNow(moved.svcId);
      if (after.root !== moved.to || after.depth !== 1) errors.push(`${label}: chain.json of the link answers root ${after.root}, depth ${after.depth} after the move`);
      if (totalsBefore !== null) {
        const totalsAfter = await chainTotals();
        if (totalsAfter !== totalsBefore) errors.push(`${label}: range by sharer with chains answers totals ${totalsAfter} after the move, ${totalsBefore} before`);
      }
    }
  } finally {
    if (kept) {
      // Back under its root, waiting for the job: the kept store stays the seed's.
      const back = Date.now();
      const res = await update(moved.from);
      if (res.status !== 200) errors.push(`moving ${moved.svcId} back under ${moved.from}: ${res.status} ${res.body.slice(0, 300)}; the kept store is changed`);
      else {
        for (;;) {
          const [old, now] = [await chainNow(moved.from), await chainNow(moved.to)];
          if (sameFigures(old, from) && sameFigures(now, to)) {
            result.backSeconds = (Date.now() - back) / 1000;
            break;
          }
          if (Date.now() - back > MOVE_TIMEOUT_S * 1000) {
            errors.push(`moving ${moved.svcId} back under ${moved.from}: not shown within ${MOVE_TIMEOUT_S} s (${figuresText(old)} and ${figuresText(now)}); the kept store is changed`);
            break;
          }
          await sleep(MOVE_POLL_MS);
        }
      }
    }
  }
  return result;
}

async function main() {
  const { reuse, name, dataDir, sizesFile, subscriptionKey, applicationKey, serviceEnv } = await lib.seededStore();
  let service;
  const db = new Client({ connectionString: lib.databaseUrl(name) });
  const errors = [];
  try {
    await db.connect();
    let key;
    let endHour;
    let sizes;
    if (reuse) {
      ({ key, endHour, sizes } = JSON.parse(await readFile(sizesFile, 'utf8')));
      if (!sizes.largest) throw new Error(`${name} was not seeded by bench:chains`);
      endHour = new Date(endHour);
    } else {
      const t0 = Date.now();
      await mkdir(dataDir, { recursive: true });
      await db.query(`ALTER DATABASE "${name}" SET timezone = 'UTC'`);
      // The service runs the migrations on start, and makes the project.
      service = await lib.startService(serviceEnv);
      key = await lib.createProject(service.port, subscriptionKey, applicationKey, { conversions: { enabled: true, goal_1_label: 'Signup' } });
      await service.stop();
      service = undefined;
      const projectId = (await db.query('SELECT id FROM projects WHERE api_key = $1', [key])).rows[0].id;
      endHour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
      console.log(`bench:chains — seeding ${LINKS} links (${Math.round(LINKS * 0.4)} reshares in cascades), ${CLICKS} clicks (${EVENTS} bursts) over ${DAYS} days`);
      const { first, shape, largestRootId } = await seedChainLinks(db, projectId, endHour, LINKS, DAYS);
      const url = new URL(lib.databaseUrl(name));
      sizes = await lib.runSeed('chains-seed.js', {
        chdbDir: path.join(dataDir, 'chdb'),
        db: serviceEnv.CLICKHOUSE_DATABASE,
        pg: { host: `${url.hostname}:${url.port || 5432}`, database: name, user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) },
        projectId,
        first,
        links: LINKS,
        clicks: CLICKS,
        events: EVENTS,
        endHour: endHour.toISOString().slice(0, 19).replace('T', ' '),
        optimize: OPTIMIZE,
        shape,
        largestRootId,
      });
      sizes.links = LINKS;
      sizes.clicks = CLICKS;
      sizes.shape = shape;
      await writeFile(sizesFile, JSON.stringify({ key, endHour, sizes }));
      console.log(`  seeded in ${seconds(t0)} s`);
    }
    // The move's polls read far more often than a client of the project would: a read budget
    // (READ_RATE_LIMIT) above them, unless one is given.
    service = await lib.startService({ ...serviceEnv, READ_RATE_LIMIT: process.env.READ_RATE_LIMIT ?? '1000000' });
    const root = (await db.query(`SELECT svc_id FROM links WHERE id = $1`, [sizes.largest.rootId])).rows[0].svc_id;

    const iso = (d) => d.toISOString().slice(0, 19) + 'Z';
    const period = { start_date: iso(new Date(endHour.getTime() - RANGE_DAYS * 86_400_000)), end_date: iso(endHour) };
    // The answer's status and body text: a run's clock stops at the response's last byte; the body
    // is parsed (for the checks) off the clock.
    const get = (path, params) => lib.request({ port: service.port, method: 'GET', path: `${path}?${form({ v: '3', key, ...params })}` });
    const post = (path, params) =>
      lib.request({ port: service.port, method: 'POST', path, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form({ v: '3', key, ...params }) });
    const sharerChainParams = { ...period, group_by: 'sharer_id', with_chain: 'true' };
    const answers = {};
    const queries = [
      // Without the new parameters first: their answers are what the checks of the others compare with.
      { kind: 'range_channel', name: `range (group_by=channel, ${RANGE_DAYS} days)`, path: '/stats/range.json', params: { ...period, group_by: 'channel' } },
      {
        kind: 'totals',
        name: `totals (group_by=campaign, with_conversions, ${RANGE_DAYS} days)`,
        path: '/stats/totals.json',
        params: { ...period, group_by: 'campaign', with_conversions: 'true' },
      },
      // The grouping range with chains adds its chains to, alone: what the chains cost on top.
      { kind: 'range_sharer', name: `range (group_by=sharer_id, ${RANGE_DAYS} days)`, path: '/stats/range.json', params: { ...period, group_by: 'sharer_id' } },
      {
        kind: 'range_sharer_chain',
        name: `range (group_by=sharer_id, with_chain, ${RANGE_DAYS} days)`,
        path: '/stats/range.json',
        params: sharerChainParams,
        echo: ['with_chain', true],
        check: checkSharerChain,
      },
      {
        kind: 'range_channel_first',
        name: `range (group_by=channel, attribution=first, ${RANGE_DAYS} days)`,
        path: '/stats/range.json',
        params: { ...period, group_by: 'channel', attribution: 'first' },
        echo: ['attribution', 'first'],
        check: async (body) =>
          checkChannelFirst(body, answers.range_channel ?? JSON.parse((await get('/stats/range.json', { ...period, group_by: 'channel' })).body)),
      },
      {
        kind: 'chain_root',
        name: `chain.json (largest root, ${sizes.largest.shares} descendants, all time)`,
        path: `/stats/${encodeURIComponent(root)}/chain.json`,
        params: {},
        check: (body) => checkChain(body, root, sizes.largest),
      },
    ];

    // BENCH_QUERIES=range_channel,chain_root,… (a subset, by kind; `move` for the move).
    const only = process.env.BENCH_QUERIES?.split(',');
    const selected = queries.filter((q) => !only || only.includes(q.kind));
    const results = [];
    const timed = (q, ms, bytes, alternated) => ({ ...q, p50: lib.percentile(ms, 0.5), p90: lib.percentile(ms, 0.9), bytes, alternated });
    const timeAlone = async ({ q, run, bytes }) => {
      const ms = [];
      for (let i = 0; i < RUNS; i++) ms.push(await time(run));
      results.push(timed(q, ms, bytes, false));
    };
    // A pair's runs alternate, the query without the parameter first.
    const timeAlternated = async (plain, other) => {
      const ms = [[], []];
      for (let i = 0; i < RUNS; i++) {
        ms[0].push(await time(plain.run));
        ms[1].push(await time(other.run));
      }
      results.push(timed(plain.q, ms[0], plain.bytes, true), timed(other.q, ms[1], other.bytes, true));
    };
    // The other query of a kind's pair (RATIOS), when it runs too.
    const partnerOf = (kind) => {
      const pair = RATIOS.find((r) => r.plain === kind || r.other === kind);
      const partner = pair && (pair.plain === kind ? pair.other : pair.plain);
      return partner && selected.some((q) => q.kind === partner) ? partner : undefined;
    };
    // A query of a pair, checked and warmed up, waits here until its partner is, to be timed with it.
    const waiting = new Map();
    const unavailable = async (q, what) => {
      results.push({ ...q, unavailable: what });
      // Its partner, if it waits, is timed alone.
      const partner = waiting.get(partnerOf(q.kind));
      if (partner) {
        waiting.delete(partner.q.kind);
        await timeAlone(partner);
      }
    };
    for (const q of selected) {
      const first = await get(q.path, q.params);
      if (first.status !== 200) {
        // A parameter or route the service does not have yet (400 naming it, or 404): not timed.
        if (first.status !== 400 && first.status !== 404) throw new Error(`${q.name}: ${first.status} ${first.body.slice(0, 300)}`);
        console.log(`${q.name}: NOT AVAILABLE, answered ${first.status} ${first.body.slice(0, 300)}`);
        await unavailable(q, first.status);
        continue;
      }
      const body = JSON.parse(first.body);
      if (q.echo && body[q.echo[0]] !== q.echo[1]) {
        // A service before the parameter ignores it, as any unknown parameter: no echo.
        console.log(`${q.name}: NOT AVAILABLE, answered 200 without "${q.echo[0]}": ${JSON.stringify(q.echo[1])} (parameter ignored)`);
        await unavailable(q, `200, ${q.echo[0]} ignored`);
        continue;
      }
      answers[q.kind] = body;
      const problem = q.check ? await q.check(body) : null;
      if (problem) errors.push(`${q.name}: ${problem}`);
      const run = async () => {
        const res = await get(q.path, q.params);
        if (res.status !== 200) throw new Error(`${q.name}: ${res.status} ${res.body.slice(0, 300)}`);
      };
      const warmUntil = Date.now() + WARMUP_SECONDS * 1000;
      for (let i = 1; i < WARMUP || Date.now() < warmUntil; i++) await run();
      const ready = { q, run, bytes: first.body.length };
      const partner = partnerOf(q.kind);
      if (partner && waiting.has(partner)) {
        const other = waiting.get(partner);
        waiting.delete(partner);
        await (RATIOS.some((r) => r.plain === q.kind) ? timeAlternated(ready, other) : timeAlternated(other, ready));
      } else if (partner && !results.some((r) => r.kind === partner)) waiting.set(q.kind, ready);
      else await timeAlone(ready);
    }
    // In the order of the queries, whichever was timed first.
    results.sort((a, b) => queries.findIndex((q) => q.kind === a.kind) - queries.findIndex((q) => q.kind === b.kind));

    // The move, after every timed query: it changes the data they read.
    let move = null;
    if (!only || only.includes('move')) {
      move = await measureMove({
        db,
        key,
        get,
        post,
        allTime: { start_date: iso(new Date(endHour.getTime() - (DAYS + 1) * 86_400_000)), end_date: iso(new Date(endHour.getTime() + 86_400_000)) },
        chainParams: sharerChainParams,
        chainTotalsBefore: answers.range_sharer_chain ? JSON.stringify(answers.range_sharer_chain.totals) : null,
        kept: Boolean(reuse || process.env.BENCH_KEEP_DATABASE),
        errors,
      });
    }

    const { shape, largest } = sizes;
    console.log(
      `data: ${sizes.links} links (${shape.roots} roots, ${shape.reshares} reshares in ${shape.cascades} cascades, ${shape.huge} of 10,000+; ` +
        `largest ${shape.largestSize} descendants, max depth ${shape.maxDepth}), ${sizes.clicks} human clicks (${sizes.clickRows} raw click rows with bots), ` +
        `${sizes.conversionRows} conversion events, ${sizes.parts} active parts; largest root ${root}: own ${largest.ownClicks} clicks, ` +
        `downstream ${largest.clicks} clicks over ${largest.generations.length} generations`,
    );
    console.log(`${RUNS} sequential keep-alive runs each after ${WARMUP} warm-up(s) and at least ${WARMUP_SECONDS} s of them; ms`);
    const alternated = RATIOS.filter((r) => results.some((x) => x.kind === r.other && x.alternated));
    if (alternated.length > 0) console.log(`runs alternated, each pair side by side: ${alternated.map((r) => `${r.plain} with ${r.other}`).join(', ')}`);
    console.log(`${'query'.padEnd(60)}  API p50  API p90   target    bytes`);
    const misses = [];
    for (const r of results) {
      const target = TARGET_MS[r.kind];
      let note = '';
      if (r.unavailable) {
        note = `  NOT AVAILABLE (${r.unavailable})`;
        misses.push(`${r.kind}: answered ${r.unavailable}`);
      } else if (target !== undefined && r.p50 > target) {
        note = `  MISSES TARGET (p50 > ${target} ms)`;
        misses.push(`${r.kind}: p50 > ${target} ms`);
      }
      const fixed = (v) => (v === undefined ? '-' : v.toFixed(1)).padStart(8);
      console.log(
        `${r.name.padEnd(60)} ${fixed(r.p50)} ${fixed(r.p90)} ${(target === undefined ? '-' : `≤ ${target}`).padStart(8)} ${String(r.bytes ?? '-').padStart(8)}${note}`,
      );
    }
    // Each pair's ratio of p50s: - when either query was not run, n/a when either is not available
    // (counted as missed above).
    const ratios = RATIOS.map((pair) => {
      const [plain, other] = [pair.plain, pair.other].map((kind) => results.find((r) => r.kind === kind));
      if (!plain || !other) return { ...pair, text: '-' };
      if (plain.unavailable || other.unavailable) return { ...pair, text: 'n/a' };
      const value = other.p50 / plain.p50;
      return { ...pair, value, text: value.toFixed(3) };
    });
    for (const r of ratios) {
      const target = TARGET_RATIO[r.field];
      let note = '';
      if (r.value !== undefined && r.value > target) {
        note = '  MISSES TARGET';
        misses.push(`${r.field} > ${target}`);
      }
      const runs = r.value === undefined ? '' : ', runs alternated';
      console.log(`ratio of p50s, ${r.name}: ${r.text} (target ≤ ${target}${runs})${note}`);
    }
    // The move: seconds, - when not run (or no link to move), n/a when refused, timeout.
    let moveVisible = '-';
    if (move?.skipped) {
      console.log(`move: not measured, ${move.skipped}`);
      misses.push(`move: ${move.skipped}`);
    } else if (move) {
      const what = `${move.svcId} (${move.below} links below it) from root ${move.from} (${move.fromSize} descendants) to root ${move.to} (${move.toSize} descendants)`;
      if (move.unavailable) {
        console.log(`move of ${what}: NOT AVAILABLE, answered ${move.unavailable}`);
        misses.push(`move: answered ${move.unavailable}`);
        moveVisible = 'n/a';
      } else if (move.timeout) {
        console.log(`move of ${what}: NOT SHOWN within ${MOVE_TIMEOUT_S} s (target ≤ ${TARGET_MOVE_S} s)`);
        misses.push(`move: not shown within ${MOVE_TIMEOUT_S} s`);
        moveVisible = 'timeout';
      } else {
        const missed = move.seconds > TARGET_MOVE_S;
        if (missed) misses.push(`move: > ${TARGET_MOVE_S} s`);
        moveVisible = move.seconds.toFixed(1);
        console.log(
          `move of ${what}: ${move.subtree.shares} shares and ${move.subtree.clicks} clicks moved, shown by chain.json of both roots` +
            `${move.firstTouch ? ' and first touch per root' : ''} in ${moveVisible} s (target ≤ ${TARGET_MOVE_S} s; ${move.polls} polls, ` +
            `${move.judged} of them judged: the two roots adding up to their figures before)${missed ? '  MISSES TARGET' : ''}`,
        );
      }
      if (move.backSeconds !== undefined) {
        // The chains are the seed's again, but the link was updated after its clicks: it stays in
        // link_updates (docs/operations.md, "Links updated after their clicks").
        console.log(
          `  moved back under ${move.from} for the kept store, shown in ${move.backSeconds.toFixed(1)} s; ${move.svcId} stays listed in link_updates while clicks ` +
            `stamped before the move are its (until analytics:backfill restamps them): range and totals on this store test their events against it`,
        );
      }
    }
    console.log(
      `targets: p50 range by sharer with chains ≤ ${TARGET_MS.range_sharer_chain} ms, range by channel first touch ≤ ${TARGET_MS.range_channel_first} ms, ` +
        `chain.json of the largest root ≤ ${TARGET_MS.chain_root} ms; ratios with chains ÷ without ≤ ${TARGET_RATIO.chain_ratio}, ` +
        `first touch ÷ last touch ≤ ${TARGET_RATIO.first_ratio}; a move shown ≤ ${TARGET_MOVE_S} s; range by channel and totals: compare with a run on the build before; ` +
        `${misses.length === 0 ? 'all met' : `missed: ${misses.join('; ')}`}`,
    );
    // One line for scripts: each query's p50 in ms (n/a when the service does not answer it, - when
    // not run), the two ratios, the move's seconds.
    console.log(
      `bench:chains ${['range_sharer_chain', 'range_channel_first', 'chain_root', 'range_channel', 'totals', 'range_sharer']
        .map((kind) => {
          const r = results.find((x) => x.kind === kind);
          return `${kind}_p50_ms=${!r ? '-' : r.unavailable ? 'n/a' : r.p50.toFixed(1)}`;
        })
        .join(' ')} ${ratios.map((r) => `${r.field}=${r.text}`).join(' ')} move_visible_s=${moveVisible} missed=${misses.length}`,
    );
    if (misses.length > 0) process.exitCode = 1;
  } finally {
    await db.end().catch(() => undefined);
    if (service) await service.stop();
    if (!process.env.BENCH_KEEP_DATABASE && !reuse) {
      await lib.dropDatabase(name);
      await rm(dataDir, { recursive: true, force: true });
    } else console.log(`database kept: BENCH_REUSE_DATABASE=${name} (store in ${dataDir})`);
  }
  if (errors.length > 0) {
    for (const e of errors) console.error(`ERROR ${e}`);
    process.exit(1);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
