import 'reflect-metadata';
import type request from 'supertest';
import { MAX_CHAIN_DEPTH } from '../../src/database/migrations/1764020000000-link-chains';
import { ChainMovesRepository, MOVE_BOUNDS_SQL } from '../../src/links/chain-moves.repository';
import { CHAIN_MOVE_MAX_SUBTREE } from '../../src/links/chain-moves.service';
import { TestApp, createTestApp } from '../support/app';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { eventually } from '../support/eventually';

const CYCLE = {
  error: 400,
  error_message: 'Invalid parameter parent: a link cannot become its own ancestor',
};

/** A link of the test: its svc_id and its row id. */
interface Made {
  svcId: string;
  id: string;
}

/** What the tests need of an app: making links, re-parenting them, reading their rows. */
function helpers(t: TestApp) {
  const make = async (key: string, parent?: Made): Promise<Made> => {
    const link = await createLink(t, key, parent ? { parent: parent.svcId } : {});
    const { rows } = await t.db.query<{ id: string }>(
      `SELECT id::text AS id FROM links WHERE svc_id = $1`,
      [link.svc_id],
    );
    return { svcId: link.svc_id, id: rows[0].id };
  };
  const update = (key: string, link: Made, parent: Made) =>
    t.http
      .post(`/url/update/${link.svcId}.json`)
      .type('form')
      .send({ v: '3', key, tool: 'publisher-updater', parent: parent.svcId });
  /** A link's ancestors (ids, parent first) and depth in PostgreSQL. */
  const chainOf = async (link: Made) =>
    (
      await t.db.query<{ ancestors: string[]; depth: number }>(
        `SELECT ancestors::text[] AS ancestors, depth FROM links WHERE id = $1`,
        [link.id],
      )
    ).rows[0];
  /** The parents (svc_ids) of the links, in their order. */
  const parentsOf = async (...links: Made[]) =>
    Promise.all(
      links.map(
        async (link) =>
          (
            await t.db.query<{ parent: string | null }>(`SELECT parent FROM links WHERE id = $1`, [
              link.id,
            ])
          ).rows[0].parent,
      ),
    );
  /** Backends of the app waiting for a lock (the test's own connection excluded). */
  const lockWaiters = async () =>
    (
      await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      )
    ).rows[0].n;
  return { make, update, chainOf, parentsOf, lockWaiters };
}

/**
 * Re-parents take the project's lock before their checks (docs/api.md, "Security"): two at once
 * that would each make the other link their parent cannot both pass the cycle check.
 */
describe('share chains: concurrent re-parents', () => {
  let t: TestApp;
  let key: string;
  let h: ReturnType<typeof helpers>;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createProject(t)).api_key;
    h = helpers(t);
  });
  afterAll(() => t.close());

  /** The two answers of a pair sent at once, and the parents they left. */
  const race = async (a: Made, b: Made) => {
    const [toB, toA] = await Promise.all([h.update(key, a, b), h.update(key, b, a)]);
    return { statuses: [toB.status, toA.status], bodies: [toB.body, toA.body] };
  };

  it('refuses B under A while A under B, sent first, waits at its write', async () => {
    const a = await h.make(key);
    const b = await h.make(key);
    // A under B passes its checks and waits for A's row; B under A, sent next, would pass its own
    // checks on today's rows and wait for B's, unless it waits for A under B before its checks.
    await t.db.query('BEGIN');
    let first!: Promise<request.Response>;
    let second!: Promise<request.Response>;
    try {
      await t.db.query(`SELECT 1 FROM links WHERE id = ANY($1::bigint[]) FOR UPDATE`, [
        [a.id, b.id],
      ]);
      first = h.update(key, a, b).then((res) => res);
      expect(
        await eventually(
          'an update waiting for the lock',
          async () => (await h.lockWaiters()) === 1,
        ),
      ).toBe(true);
      second = h.update(key, b, a).then((res) => res);
      expect(
        await eventually('both updates waiting', async () => (await h.lockWaiters()) === 2),
      ).toBe(true);
    } finally {
      await t.db.query('COMMIT');
    }
    const [toB, toA] = await Promise.all([first, second]);
    expect([toB.status, toA.status]).toEqual([200, 400]);
    expect(toA.body).toEqual(CYCLE);
    expect(await h.parentsOf(a, b)).toEqual([b.svcId, null]);
    expect(await h.chainOf(a)).toEqual({ ancestors: [b.id], depth: 1 });
    expect(await h.chainOf(b)).toEqual({ ancestors: [], depth: 0 });
  });

  it('never leaves a cycle over 20 rounds sent at once: one of each pair is taken, the other refused', async () => {
    for (let round = 0; round < 20; round++) {
      const a = await h.make(key);
      const b = await h.make(key);
      const { statuses, bodies } = await race(a, b);
      const parents = await h.parentsOf(a, b);
      // Whichever came first is taken; the other sees it and is refused.
      const taken = statuses[0] === 200 ? 0 : 1;
      expect({ round, statuses: [...statuses].sort() }).toEqual({ round, statuses: [200, 400] });
      expect(bodies[1 - taken]).toEqual(CYCLE);
      expect(parents).toEqual(taken === 0 ? [b.svcId, null] : [null, a.svcId]);
    }
    await t.settle();
    const { rows } = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM links WHERE id = ANY(ancestors)`,
    );
    expect(rows[0].n).toBe(0);
  });
});

/**
 * Moves run per project, one project's at a time and in order, and a move whose link moved again
 * before it ran is skipped (docs/operations.md, "Moving a subtree"). A descendant the test holds
 * locked keeps one project's move (W's) waiting.
 */
describe.each([
  ['BullMQ (a worker)', true],
  ['in-process jobs', false],
])('share chains: moves per project, %s', (_name, redis) => {
  let t: TestApp;
  let h: ReturnType<typeof helpers>;
  let key1: string;
  let key2: string;
  beforeAll(async () => {
    t = await createTestApp({ redis });
    h = helpers(t);
    key1 = (await createProject(t)).api_key;
    key2 = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  /** Runs `during` while W's move waits for its child's row, which the test holds locked. */
  const whileHeldUp = async (during: () => Promise<void>) => {
    const w = await h.make(key1);
    const wChild = await h.make(key1, w);
    const wParent = await h.make(key1);
    await t.db.query('BEGIN');
    try {
      await t.db.query(`SELECT 1 FROM links WHERE id = $1 FOR UPDATE`, [wChild.id]);
      await h.update(key1, w, wParent).expect(200);
      expect(
        await eventually(
          'an update waiting for the lock',
          async () => (await h.lockWaiters()) === 1,
        ),
      ).toBe(true);
      await during();
      expect(await h.chainOf(wChild)).toEqual({ ancestors: [w.id], depth: 1 });
    } finally {
      await t.db.query('COMMIT');
    }
    await t.settle();
    expect(await h.chainOf(wChild)).toEqual({ ancestors: [w.id, wParent.id], depth: 2 });
  };
  const pendingMoves = async () =>
    (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM link_chain_moves`)).rows[0].n;

  it("runs another project's move while one project's move waits", async () => {
    const x = await h.make(key1);
    const xChild = await h.make(key1, x);
    const p = await h.make(key1);
    const y = await h.make(key2);
    const yChild = await h.make(key2, y);
    const q = await h.make(key2);
    await whileHeldUp(async () => {
      await h.update(key1, x, p).expect(200);
      await h.update(key2, y, q).expect(200);
      expect(
        await eventually(
          "the other project's move",
          async () => (await h.chainOf(yChild)).ancestors.join() === `${y.id},${q.id}`,
        ),
      ).toBe(true);
      // Project 1's next move waits for the one before it.
      expect(await h.chainOf(xChild)).toEqual({ ancestors: [x.id], depth: 1 });
    });
    expect(await h.chainOf(xChild)).toEqual({ ancestors: [x.id, p.id], depth: 2 });
    expect(await h.chainOf(yChild)).toEqual({ ancestors: [y.id, q.id], depth: 2 });
    expect(await pendingMoves()).toBe(0);
  });

  it('skips a move whose link moved again before it ran', async () => {
    const x = await h.make(key1);
    const xChild = await h.make(key1, x);
    const p1 = await h.make(key1);
    const p2 = await h.make(key1);
    const moveDescendants = jest.spyOn(t.app.get(ChainMovesRepository), 'moveDescendants');
    try {
      await whileHeldUp(async () => {
        await h.update(key1, x, p1).expect(200);
        await h.update(key1, x, p2).expect(200);
      });
      // Moved once, from X's latest place.
      const runs = moveDescendants.mock.calls.filter(
        ([, linkId, cursor]) => linkId === x.id && cursor === '0',
      );
      expect(runs.length).toBe(1);
    } finally {
      moveDescendants.mockRestore();
    }
    expect(await h.chainOf(xChild)).toEqual({ ancestors: [x.id, p2.id], depth: 2 });
    const stored = await t.analytics.query<{ ancestors: string[] }>(
      `SELECT arrayMap(a -> toString(a), ancestors) AS ancestors
       FROM ${t.analytics.database}.link_chains FINAL WHERE toString(link_id) = {id:String}`,
      { id: xChild.id },
    );
    expect(stored).toEqual([{ ancestors: [x.id, p2.id] }]);
    expect(await pendingMoves()).toBe(0);
  });
});

/**
 * A move has a cap (docs/api.md, "Share chains"): a link with more than CHAIN_MOVE_MAX_SUBTREE links
 * below it is not re-parented, and counting them reads no more than the cap plus one.
 */
describe('share chains: the subtree cap', () => {
  let t: TestApp;
  let key: string;
  let h: ReturnType<typeof helpers>;
  beforeAll(async () => {
    t = await createTestApp({ redis: false });
    key = (await createProject(t)).api_key;
    h = helpers(t);
  });
  afterAll(() => t.close());

  it(`refuses a link with more than ${CHAIN_MOVE_MAX_SUBTREE} links below it (400 naming parent), and takes one with ${CHAIN_MOVE_MAX_SUBTREE}`, async () => {
    const top = await h.make(key);
    const middle = await h.make(key, top);
    const target = await h.make(key);
    // Twice the cap below `top`: one child (`middle`) and the rest under it, made in PostgreSQL.
    const below = 2 * CHAIN_MOVE_MAX_SUBTREE;
    await t.db.query(
      `INSERT INTO links (project_id, svc_id, domain, path, original_url, redirect_url, tool, application, parent)
       SELECT project_id, svc_id || '-' || g, domain, path || '-' || g, original_url, redirect_url,
              tool, application, svc_id
       FROM links, generate_series(1, $2::int) g WHERE id = $1`,
      [middle.id, below - 1],
    );
    const { rows: project } = await t.db.query<{ project_id: string }>(
      `SELECT project_id::text AS project_id FROM links WHERE id = $1`,
      [top.id],
    );
    // The bounds' statement reads at most the cap plus one of the links below, whatever the size.
    const { rows: plan } = await t.db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${MOVE_BOUNDS_SQL}`,
      [project[0].project_id, target.svcId, top.id, CHAIN_MOVE_MAX_SUBTREE + 1, MAX_CHAIN_DEPTH],
    );
    expect(mostRows(plan[0]['QUERY PLAN'][0].Plan)).toBe(CHAIN_MOVE_MAX_SUBTREE + 1);

    const refused = await h.update(key, top, target).expect(400);
    expect(refused.body).toEqual({
      error: 400,
      error_message: `Invalid parameter parent: the link has more than ${CHAIN_MOVE_MAX_SUBTREE} links below it, the most one move takes`,
    });
    expect(await h.parentsOf(top)).toEqual([null]);
    const pending = async () =>
      (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM link_chain_moves`)).rows[0]
        .n;
    expect(await pending()).toBe(0);

    // Down to the cap: taken, and the whole subtree moves.
    await t.db.query(
      `DELETE FROM links WHERE id IN (
         SELECT id FROM links WHERE parent = $1 ORDER BY id DESC LIMIT $2)`,
      [middle.svcId, below - CHAIN_MOVE_MAX_SUBTREE],
    );
    await h.update(key, top, target).expect(200);
    await t.settle();
    const { rows } = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM links WHERE root_id = $1 AND ancestors @> ARRAY[$2::bigint]`,
      [target.id, top.id],
    );
    expect(rows[0].n).toBe(CHAIN_MOVE_MAX_SUBTREE);
    expect(await pending()).toBe(0);
  }, 60_000);
});

/** A node of EXPLAIN's JSON plan. */
interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/** The most rows any node of a plan produced over all its loops. */
function mostRows(node: PlanNode): number {
  return Math.max(node['Actual Rows'] * node['Actual Loops'], ...(node.Plans ?? []).map(mostRows));
}
