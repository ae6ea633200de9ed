// bench:chains' seed. Two halves:
//
// - seedChainLinks (run by bench/chains.js): the links, with their share chains, into PostgreSQL.
//   The cascades are drawn in JavaScript (buildForest: deterministic, the same forest every run)
//   and written with their chain columns (ancestors parent first, root_id, depth) computed here, in
//   chunks of INSERT … SELECT FROM unnest(…). The session runs with session_replication_role =
//   replica, so neither the links_chain trigger nor the foreign-key triggers fire (nothing to switch
//   back on if the seed stops half-way); a check afterwards compares every reshare's chain with its
//   parent's, as the trigger would have computed it.
// - this file run as a short-lived child process (the embedded store is one process's, as for
//   bench/stats-seed.js, whose steps it reuses): the links mirror and `link_chains` from PostgreSQL
//   (postgresql() table function), the clicks and conversions as bench:stats seeds them, the shape
//   of the cascades as the store holds them, and the largest cascade's figures that chain.json
//   must answer.
//
// Usage (from bench/chains.js): node bench/chains-seed.js '<json config>'
const stats = require('./stats-seed');

// The forest: 40% of the links are reshares. The reshares go to cascades by a Zipf law over
// CASCADE_RANKS ranks (the k-th cascade gets a share ∝ 1/k^ZIPF): with 1M links a few cascades of
// 10,000+ links, most of a few links. Within a cascade a reshare's parent is the root with
// probability PARENT_ROOT, else any link made before it in that cascade (a random recursive tree:
// depth grows with the log of the cascade's size), never deeper than MAX_DEPTH. A reshare is made
// after its parent (an exponential delay of RESHARE_DELAY_HOURS on average, squeezed into the time
// left before the end).
const RESHARE_SHARE = 0.4;
const CASCADE_RANKS = 100_000;
const ZIPF = 1.05;
const PARENT_ROOT = 0.4;
const MAX_DEPTH = 12;
const RESHARE_DELAY_HOURS = 8;
// Sharers: a few thousand, some far busier than others (index ∝ u²); 15% of links have none.
const SHARERS = 5000;
const NO_SHARER = 0.15;
const CHANNELS = ['twitter', 'facebook-post', 'email', 'copypaste', 'linkedin', 'facebook-share', 'whatsapp', 'reddit', 'pinterest', 'sms'];
const SERVICES = ['twitter', 'facebook', 'email', 'copypaste', 'linkedin', 'facebook', 'whatsapp', 'reddit', 'pinterest', 'sms'];
const CHUNK = 50_000;

const seconds = (t) => ((Date.now() - t) / 1000).toFixed(1);

/** A deterministic uniform generator in [0, 1) (mulberry32). */
function random(seed) {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `n` links created between `startMs` and `endMs`, in creation order (index 0 the oldest): each
 * one's parent (index, -1 for a root), root (index, its own for a root), depth, creation time (ms),
 * sharer (index, -1 for none), channel (0 to 9), campaign (0 to 49, -1 for none; a reshare has its
 * root's) and tag (0 to 999). Roots: uniform over the period; channels skewed towards the first,
 * tags skewed, every tenth root without a campaign, as bench:stats' links.
 */
function buildForest(n, startMs, endMs) {
  const rnd = random(42);
  const reshares = Math.round(n * RESHARE_SHARE);
  const roots = n - reshares;
  // Cascade sizes by rank (inverse of the Zipf law's cumulative weights).
  const ranks = Math.min(CASCADE_RANKS, roots);
  const cumulative = new Float64Array(ranks);
  let sum = 0;
  for (let k = 0; k < ranks; k++) cumulative[k] = sum += 1 / Math.pow(k + 1, ZIPF);
  const size = new Int32Array(ranks);
  for (let j = 0; j < reshares; j++) {
    const u = rnd() * sum;
    let lo = 0;
    let hi = ranks - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    size[lo]++;
  }
  // Generation order: the roots (0 … roots-1), then each cascade's reshares after its root. The
  // k-th rank's root is a random one (a partial shuffle), so big cascades start anywhere in time.
  const gParent = new Int32Array(n).fill(-1);
  const gRoot = new Int32Array(n);
  const gDepth = new Uint8Array(n);
  const gTime = new Float64Array(n);
  const shuffled = Int32Array.from({ length: roots }, (_, i) => i);
  for (let i = 0; i < roots; i++) {
    gRoot[i] = i;
    gTime[i] = startMs + rnd() * (endMs - startMs);
  }
  let next = roots;
  for (let k = 0; k < ranks; k++) {
    const swap = k + Math.floor(rnd() * (roots - k));
    [shuffled[k], shuffled[swap]] = [shuffled[swap], shuffled[k]];
    const root = shuffled[k];
    const start = next;
    for (let j = 0; j < size[k]; j++) {
      let parent = root;
      if (j > 0 && rnd() >= PARENT_ROOT) {
        const r = Math.floor(rnd() * (j + 1));
        parent = r === j ? root : start + r;
      }
      while (gDepth[parent] >= MAX_DEPTH) parent = gParent[parent];
      gParent[next] = parent;
      gRoot[next] = root;
      gDepth[next] = gDepth[parent] + 1;
      const delay = -Math.log(1 - rnd()) * RESHARE_DELAY_HOURS * 3_600_000;
      const left = endMs - 1 - gTime[parent];
      gTime[next] = gTime[parent] + (delay < left ? delay : rnd() * left);
      next++;
    }
  }
  // Creation order: by time, a parent before its child on a tie (it comes first in generation order).
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => gTime[a] - gTime[b] || a - b);
  const position = new Int32Array(n);
  for (let i = 0; i < n; i++) position[order[i]] = i;
  const forest = {
    n,
    parent: new Int32Array(n),
    root: new Int32Array(n),
    depth: new Uint8Array(n),
    created: new Float64Array(n),
    sharer: new Int32Array(n),
    channel: new Uint8Array(n),
    campaign: new Int8Array(n),
    tag: new Int16Array(n),
  };
  for (let i = 0; i < n; i++) {
    const g = order[i];
    forest.parent[i] = gParent[g] < 0 ? -1 : position[gParent[g]];
    forest.root[i] = position[gRoot[g]];
    forest.depth[i] = gDepth[g];
    forest.created[i] = Math.floor(gTime[g]);
    forest.sharer[i] = rnd() < NO_SHARER ? -1 : Math.floor(SHARERS * rnd() ** 2);
    forest.channel[i] = Math.floor(CHANNELS.length * rnd() ** 1.5);
    forest.tag[i] = Math.floor(1000 * rnd() ** 2);
  }
  // A reshare's campaign is its root's (the root comes first in creation order).
  for (let i = 0; i < n; i++) {
    forest.campaign[i] = forest.root[i] !== i ? forest.campaign[forest.root[i]] : i % 10 === 0 ? -1 : (i * 7) % 50;
  }
  return forest;
}

/** The forest's shape: roots, reshares, cascades by size, the largest cascade, depths. */
function forestShape(forest) {
  const descendants = new Int32Array(forest.n);
  const byDepth = new Array(MAX_DEPTH + 1).fill(0);
  for (let i = 0; i < forest.n; i++) {
    byDepth[forest.depth[i]]++;
    if (forest.root[i] !== i) descendants[forest.root[i]]++;
  }
  let largest = 0;
  let cascades = 0;
  let short = 0;
  let big = 0;
  let huge = 0;
  for (let i = 0; i < forest.n; i++) {
    const d = descendants[i];
    if (d > descendants[largest]) largest = i;
    if (d > 0) cascades++;
    if (d > 0 && d <= 3) short++;
    if (d >= 1000) big++;
    if (d >= 10_000) huge++;
  }
  let maxDepth = 0;
  while (maxDepth < MAX_DEPTH && byDepth[maxDepth + 1] > 0) maxDepth++;
  return { roots: byDepth[0], reshares: forest.n - byDepth[0], cascades, short, big, huge, largest, largestSize: descendants[largest], maxDepth, byDepth };
}

/**
 * Non-constraint indexes of `links` are dropped while the rows go in and built again afterwards
 * (faster than row by row); returns their definitions.
 */
async function dropLinkIndexes(db) {
  const { rows } = await db.query(
    `SELECT i.indexname, i.indexdef FROM pg_indexes i
     WHERE i.schemaname = current_schema() AND i.tablename = 'links'
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
  );
  for (const { indexname } of rows) await db.query(`DROP INDEX "${indexname}"`);
  return rows.map((r) => r.indexdef);
}

/**
 * The forest's links into PostgreSQL, in project `projectId`, created over `days` days before
 * `endHour`; ids in creation order from the identity sequence's next value. Returns the first id
 * and the forest's shape (checked against the rows).
 */
async function seedChainLinks(db, projectId, endHour, n, days) {
  const t0 = Date.now();
  const forest = buildForest(n, endHour.getTime() - days * 86_400_000, endHour.getTime());
  const shape = forestShape(forest);
  console.log(`  forest of ${n} links drawn in ${seconds(t0)} s`);
  await db.query(`SET work_mem = '256MB'`);
  await db.query(`SET maintenance_work_mem = '1GB'`);
  // No trigger fires in this session (links_chain, the foreign keys): the rows carry their chains.
  await db.query(`SET session_replication_role = replica`);
  const indexes = await dropLinkIndexes(db);
  const [{ first }] = (await db.query(`SELECT nextval(pg_get_serial_sequence('links', 'id'))::text AS first`)).rows;
  const id = (i) => BigInt(first) + BigInt(i);
  const t1 = Date.now();
  for (let from = 0; from < n; from += CHUNK) {
    const to = Math.min(n, from + CHUNK);
    const cols = { i: [], ms: [], p: [], r: [], d: [], a: [], s: [], c: [], k: [], t: [] };
    for (let i = from; i < to; i++) {
      const ancestors = [];
      for (let up = forest.parent[i]; up >= 0; up = forest.parent[up]) ancestors.push(id(up));
      cols.i.push(i);
      cols.ms.push(forest.created[i]);
      cols.p.push(forest.parent[i]);
      cols.r.push(forest.root[i]);
      cols.d.push(forest.depth[i]);
      cols.a.push(`{${ancestors.join(',')}}`);
      cols.s.push(forest.sharer[i]);
      cols.c.push(forest.channel[i] + 1);
      cols.k.push(forest.campaign[i]);
      cols.t.push(forest.tag[i]);
    }
    await db.query(
      `INSERT INTO links (id, project_id, svc_id, domain, path, original_url, redirect_url, channel, service, tool, application,
                          parent, sharer_id, campaign, tag, service_postid, service_postid_shared_at, created_at, updated_at,
                          ancestors, root_id, depth)
       OVERRIDING SYSTEM VALUE
       SELECT $1::bigint + i, $2, 'bench.svc_c' || (i + 1), 'bench.svc', 'c' || (i + 1),
              'https://example.com/a/' || (r + 1), 'https://example.com/a/' || (r + 1),
              ($3::text[])[c], ($4::text[])[c], 'bench-tool', 'bench',
              CASE WHEN p >= 0 THEN 'bench.svc_c' || (p + 1) END,
              CASE WHEN s >= 0 THEN md5('bench-sharer-' || s)::uuid END,
              CASE WHEN k >= 0 THEN 'campaign-' || lpad(k::text, 2, '0') END,
              'tag-' || lpad(t::text, 4, '0'),
              CASE WHEN (i + 1) % 20 = 0 THEN 'twitter:' || (i + 1) END,
              CASE WHEN (i + 1) % 20 = 0 THEN created + interval '10 minutes' END,
              created, created, a::bigint[], $1::bigint + r, d
       FROM (SELECT *, to_timestamp(ms / 1000.0) AS created
             FROM unnest($5::int[], $6::float8[], $7::int[], $8::int[], $9::smallint[], $10::text[], $11::int[], $12::int[], $13::int[], $14::int[])
                  AS u(i, ms, p, r, d, a, s, c, k, t)) u`,
      [first, projectId, CHANNELS, SERVICES, cols.i, cols.ms, cols.p, cols.r, cols.d, cols.a, cols.s, cols.c, cols.k, cols.t],
    );
  }
  await db.query(`SELECT setval(pg_get_serial_sequence('links', 'id'), $1::bigint)`, [String(id(n - 1))]);
  await db.query(`SET session_replication_role = DEFAULT`);
  console.log(`  links: ${n} in PostgreSQL in ${seconds(t1)} s`);
  const t2 = Date.now();
  for (const indexdef of indexes) await db.query(indexdef);
  await db.query(`VACUUM ANALYZE links`);
  console.log(`  ${indexes.length} indexes and ANALYZE in ${seconds(t2)} s`);

  // The chains as the trigger computes them: a reshare's are its parent's plus one generation.
  const t3 = Date.now();
  const [check] = (
    await db.query(
      `SELECT count(*) FILTER (WHERE c.depth = 0)::int AS roots,
              count(*) FILTER (WHERE c.depth > 0)::int AS reshares,
              max(c.depth)::int AS max_depth,
              count(*) FILTER (WHERE c.parent IS NULL AND (c.ancestors <> '{}' OR c.root_id <> c.id OR c.depth <> 0))::int AS bad_roots,
              count(*) FILTER (WHERE c.parent IS NOT NULL AND (p.id IS NULL OR c.ancestors <> p.id || p.ancestors
                                OR c.root_id <> p.root_id OR c.depth <> p.depth + 1 OR c.created_at < p.created_at))::int AS bad_reshares
       FROM links c LEFT JOIN links p ON p.project_id = c.project_id AND p.svc_id = c.parent
       WHERE c.project_id = $1`,
      [projectId],
    )
  ).rows;
  const [largest] = (
    await db.query(`SELECT root_id::text AS id, (count(*) - 1)::int AS descendants FROM links WHERE project_id = $1 GROUP BY root_id ORDER BY 2 DESC, 1 LIMIT 1`, [
      projectId,
    ])
  ).rows;
  const problems = [];
  if (check.bad_roots > 0 || check.bad_reshares > 0) problems.push(`${check.bad_roots} roots and ${check.bad_reshares} reshares with a chain not their parent's`);
  if (check.roots !== shape.roots || check.reshares !== shape.reshares || check.max_depth !== shape.maxDepth) {
    problems.push(`PostgreSQL holds ${check.roots} roots, ${check.reshares} reshares, depth ≤ ${check.max_depth}; the forest ${shape.roots}, ${shape.reshares}, ${shape.maxDepth}`);
  }
  if (largest.id !== String(id(shape.largest)) || largest.descendants !== shape.largestSize) {
    problems.push(`largest cascade in PostgreSQL ${largest.id} (${largest.descendants}), in the forest ${id(shape.largest)} (${shape.largestSize})`);
  }
  if (problems.length > 0) throw new Error(`chains seeded wrong: ${problems.join('; ')}`);
  console.log(`  chains checked against their parents' in ${seconds(t3)} s`);
  console.log(
    `  cascades: ${shape.roots} roots, ${shape.reshares} reshares in ${shape.cascades} cascades (${shape.short} of 1 to 3 reshares, ` +
      `${shape.big} of 1,000+, ${shape.huge} of 10,000+); largest ${shape.largestSize} descendants; max depth ${shape.maxDepth}; ` +
      `links by depth ${shape.byDepth.join('/')}`,
  );
  return {
    first: Number(first),
    shape: { roots: shape.roots, reshares: shape.reshares, cascades: shape.cascades, huge: shape.huge, largestSize: shape.largestSize, maxDepth: shape.maxDepth },
    largestRootId: largest.id,
  };
}

/**
 * The reshares' chains into `link_chains` from PostgreSQL, at the version of their mirror row (as
 * LinkMirror.mirror writes them: chainRow; a root has no row, it is its own root); checks the count.
 */
async function mirrorChains({ db, projectId, shape, pgArgs, step, count }) {
  await step(
    `link_chains (${shape.reshares} chains of reshares from PostgreSQL)`,
    `INSERT INTO ${db}.link_chains (project_id, link_id, version, root_id, depth, ancestors, shared_at)
     SELECT project_id, id, toUInt64(toUnixTimestamp64Milli(toDateTime64(updated_at, 3, 'UTC'))) * 1000,
            root_id, depth, arrayMap(x -> toUInt64(x), ancestors),
            toDateTime64(coalesce(service_postid_shared_at, created_at), 3, 'UTC')
     FROM postgresql(${pgArgs('links')})
     WHERE project_id = toUUID({project:String}) AND depth > 0`,
    { project: projectId },
  );
  const chains = await count(`SELECT count() FROM ${db}.link_chains FINAL WHERE project_id = toUUID('${projectId}')`);
  if (chains !== shape.reshares) throw new Error(`mirrored ${chains} chains, expected ${shape.reshares}`);
}

/**
 * The cascades as the store holds them (checked against PostgreSQL's `shape`), and the figures
 * chain.json answers for the largest root over all time: its own human clicks, its descendants'
 * shares, sharers (sharer_id, else user_id, else the link), human clicks and generations, each
 * generation's shares and clicks, and its direct children.
 */
async function largestCascade({ ch, db, projectId, shape, largestRootId }) {
  const chains = `(SELECT link_id, root_id, depth, ancestors FROM ${db}.link_chains FINAL WHERE project_id = toUUID('${projectId}'))`;
  const [held] = await ch.query(
    `SELECT toString(countIf(depth > 0)) AS reshares, toString(max(depth)) AS max_depth FROM ${chains}`,
  );
  const [top] = await ch.query(
    `SELECT toString(root_id) AS root, toString(count()) AS descendants FROM ${chains} GROUP BY root_id ORDER BY count() DESC, root_id LIMIT 1`,
  );
  if (Number(held.reshares) !== shape.reshares || Number(held.max_depth) !== shape.maxDepth || top.root !== largestRootId) {
    throw new Error(`link_chains holds ${JSON.stringify({ ...held, ...top })}, PostgreSQL ${JSON.stringify({ ...shape, largestRootId })}`);
  }
  const root = largestRootId;
  const [own] = await ch.query(`SELECT toString(count()) AS clicks FROM ${db}.clicks WHERE link_id = ${root} AND is_bot = 0`);
  const generations = await ch.query(
    `SELECT toString(d.depth) AS generation, toString(count()) AS shares, toString(sum(c.clicks)) AS clicks
     FROM (SELECT link_id, depth FROM ${chains} WHERE root_id = ${root} AND link_id != ${root}) AS d
     LEFT JOIN (SELECT link_id, count() AS clicks FROM ${db}.clicks WHERE is_bot = 0 GROUP BY link_id) AS c ON c.link_id = d.link_id
     GROUP BY d.depth ORDER BY d.depth`,
  );
  const [sharers] = await ch.query(
    `SELECT toString(uniqExact(coalesce(l.sharer_id, l.user_id, concat('link ', toString(l.link_id))))) AS n
     FROM ${db}.links AS l FINAL
     WHERE l.project_id = toUUID('${projectId}') AND l.link_id IN (SELECT link_id FROM ${chains} WHERE root_id = ${root} AND link_id != ${root})`,
  );
  const [children] = await ch.query(`SELECT toString(count()) AS n FROM ${chains} WHERE root_id = ${root} AND depth = 1`);
  const figures = {
    rootId: root,
    ownClicks: Number(own.clicks),
    shares: generations.reduce((s, g) => s + Number(g.shares), 0),
    sharers: Number(sharers.n),
    clicks: generations.reduce((s, g) => s + Number(g.clicks), 0),
    generations: generations.map((g) => ({ generation: Number(g.generation), shares: Number(g.shares), clicks: Number(g.clicks) })),
    children: Number(children.n),
  };
  console.log(
    `  largest cascade (link ${root}): own ${figures.ownClicks} clicks; ${figures.shares} shares by ${figures.sharers} sharers, ` +
      `${figures.clicks} clicks over ${figures.generations.length} generations; ${figures.children} direct children`,
  );
  return figures;
}

async function main() {
  const seed = await stats.openSeed(JSON.parse(process.argv[2]));
  try {
    await stats.createSchema(seed);
    await stats.mirrorLinks(seed);
    await mirrorChains(seed);
    await stats.seedClicks(seed);
    await stats.seedConversions(seed);
    if (seed.optimize) await stats.optimizeTables(seed, ['clicks', 'conversions', 'links', 'link_chains', 'chain_clicks_hourly', 'chain_hourly']);
    const sizes = await stats.storeSizes(seed);
    sizes.largest = await largestCascade(seed);
    process.stdout.write(`SIZES ${JSON.stringify(sizes)}\n`);
  } finally {
    await seed.ch.close();
  }
}

module.exports = { buildForest, forestShape, seedChainLinks };

if (require.main === module) {
  main().catch((error) => {
    console.error(String(error?.message ?? error).slice(0, 2000));
    process.exit(1);
  });
}
