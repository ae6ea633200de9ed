import 'reflect-metadata';
import TestAgent from 'supertest/lib/agent';
import { DataSource } from 'typeorm';
import { AnalyticsClient } from '../../src/analytics/analytics-client';
import { CHAIN_MOVE_BATCH } from '../../src/links/chain-moves.service';
import { JobQueue } from '../../src/queue/job-queue';
import { TestApp, createTestApp } from '../support/app';
import { startEmbeddedApp } from '../support/embedded-app';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { Chain, storedChains as storedChainsOf } from '../support/chains';

/** What the scenario needs of a running service, whichever stores and transport it runs on. */
interface Service {
  http: TestAgent;
  /** A project's API key. */
  key: string;
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  analytics: AnalyticsClient;
  /** Waits until the queued jobs ran. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** The test app (PostgreSQL) on BullMQ or with in-process jobs. */
async function testService(redis: boolean): Promise<Service> {
  const t = await createTestApp({ redis });
  return {
    http: t.http,
    key: (await createProject(t)).api_key,
    query: async <T>(sql: string, params?: unknown[]) =>
      (await t.db.query(sql, params)).rows as T[],
    analytics: t.analytics,
    settle: () => t.settle(),
    close: () => t.close(),
  };
}

/** The embedded default: PGlite under DATA_DIR and in-process jobs. */
async function embeddedService(): Promise<Service> {
  const e = await startEmbeddedApp('chains');
  const dataSource = e.app.get(DataSource);
  const analytics = e.app.get(AnalyticsClient);
  return {
    http: e.http,
    key: e.key,
    query: <T>(sql: string, params?: unknown[]) => dataSource.query<T[]>(sql, params),
    analytics,
    settle: () => e.app.get(JobQueue).drain(10_000),
    close: async () => {
      await analytics.command(`DROP DATABASE IF EXISTS ${analytics.database}`);
      await e.close();
    },
  };
}

/** A chain as the tests compare it: links by name, parent first. */

/**
 * Share chains follow a re-parent (docs/api.md, "Share chains"): url/update gives the link its new
 * chain and a `chain-moves` job gives every descendant theirs, in PostgreSQL and in the analytics
 * store's `link_chains`; a parent that would make a link its own ancestor, or its cascade too deep,
 * is refused with 400 naming `parent` and changes nothing. On each transport the job may run on.
 */
describe.each([
  ['BullMQ (a worker)', () => testService(true)],
  ['in-process jobs', () => testService(false)],
  ['embedded (PGlite, in-process jobs)', embeddedService],
])('share chains: re-parent, %s', (_name, start) => {
  let s: Service;
  let key: string;
  /** Link ids and svc_ids by the names the test gives them. */
  const ids = new Map<string, string>();
  const svcIds = new Map<string, string>();
  const names = new Map<string, string>();

  beforeAll(async () => {
    s = await start();
    key = s.key;
  }, 60_000);
  afterAll(() => s?.close());

  const make = async (name: string, parent?: string) => {
    const link = await createLink(
      s as unknown as TestApp,
      key,
      parent ? { parent: svcIds.get(parent)! } : {},
    );
    const [row] = await s.query<{ id: string }>(
      `SELECT id::text AS id FROM links WHERE svc_id = $1`,
      [link.svc_id],
    );
    ids.set(name, row.id);
    svcIds.set(name, link.svc_id);
    names.set(row.id, name);
    return link;
  };
  const named = (id: string) => names.get(id) ?? `#${id}`;
  const update = (name: string, params: Record<string, string>) =>
    s.http
      .post(`/url/update/${svcIds.get(name)}.json`)
      .type('form')
      .send({ v: '3', key, tool: 'publisher-updater', ...params });

  /** The chains PostgreSQL holds for the named links. */
  const pgChains = async (...of: string[]): Promise<Record<string, Chain>> => {
    const rows = await s.query<{ id: string; ancestors: string[]; root_id: string; depth: number }>(
      `SELECT id::text AS id, ancestors::text[] AS ancestors, root_id::text AS root_id, depth
       FROM links WHERE id = ANY($1::bigint[])`,
      [of.map((name) => ids.get(name)!)],
    );
    return Object.fromEntries(
      rows.map((r) => [
        named(r.id),
        { ancestors: r.ancestors.map(named), root: named(r.root_id), depth: Number(r.depth) },
      ]),
    );
  };
  /** The latest `link_chains` rows of the analytics store for the named links. */
  const storedChains = (...of: string[]) => storedChainsOf(s.analytics, { ids, named }, of);
  const chain = (root: string, ...ancestors: string[]): Chain => ({
    ancestors,
    root,
    depth: ancestors.length,
  });

  it('gives each link its chain at creation, and moves the whole subtree when a parent changes', async () => {
    await make('A');
    await make('B', 'A');
    await make('C', 'B');
    await make('D', 'C');
    await make('E', 'A');
    const before = {
      A: chain('A'),
      B: chain('A', 'A'),
      C: chain('A', 'B', 'A'),
      D: chain('A', 'C', 'B', 'A'),
      E: chain('A', 'A'),
    };
    expect(await pgChains('A', 'B', 'C', 'D', 'E')).toEqual(before);
    expect(await storedChains('A', 'B', 'C', 'D', 'E')).toEqual(before);

    const moved = await update('B', { parent: svcIds.get('E')! }).expect(200);
    expect(moved.body.parent).toBe(svcIds.get('E'));
    await s.settle();
    const after = {
      A: chain('A'),
      B: chain('A', 'E', 'A'),
      C: chain('A', 'B', 'E', 'A'),
      D: chain('A', 'C', 'B', 'E', 'A'),
      E: chain('A', 'A'),
    };
    expect(after.D).toEqual({ ancestors: ['C', 'B', 'E', 'A'], root: 'A', depth: 4 });
    expect(await pgChains('A', 'B', 'C', 'D', 'E')).toEqual(after);
    expect(await storedChains('A', 'B', 'C', 'D', 'E')).toEqual(after);

    // To a root of its own: the subtree leaves A's cascade.
    await make('R');
    await update('C', { parent: svcIds.get('R')! }).expect(200);
    await s.settle();
    const elsewhere = { C: chain('R', 'R'), D: chain('R', 'C', 'R'), B: chain('A', 'E', 'A') };
    expect(await pgChains('B', 'C', 'D')).toEqual(elsewhere);
    expect(await storedChains('B', 'C', 'D')).toEqual(elsewhere);
    await update('C', { parent: svcIds.get('B')! }).expect(200);
    await s.settle();
    expect(await pgChains('C', 'D')).toEqual({ C: after.C, D: after.D });
    expect(await storedChains('C', 'D')).toEqual({ C: after.C, D: after.D });
  });

  it('refuses a cycle and a parent equal to the link with 400 naming parent, changing nothing', async () => {
    const all = ['A', 'B', 'C', 'D', 'E'];
    const rows = () =>
      s.query(`SELECT id, parent, updated_at FROM links WHERE id = ANY($1::bigint[]) ORDER BY id`, [
        all.map((name) => ids.get(name)!),
      ]);
    const [pgBefore, storedBefore, rowsBefore] = [
      await pgChains(...all),
      await storedChains(...all),
      await rows(),
    ];
    for (const [name, parent] of [
      ['A', 'D'],
      ['B', 'D'],
      ['E', 'B'],
      ['B', 'B'],
      ['D', 'D'],
    ]) {
      const res = await update(name, { parent: svcIds.get(parent)!, tag: 'not-taken' }).expect(400);
      expect(res.body).toEqual({
        error: 400,
        error_message: 'Invalid parameter parent: a link cannot become its own ancestor',
      });
    }
    await s.settle();
    expect(await rows()).toEqual(rowsBefore);
    expect(await pgChains(...all)).toEqual(pgBefore);
    expect(await storedChains(...all)).toEqual(storedBefore);
  });

  it('finds a cycle through parents where the stored chains do not show it (links made before chains)', async () => {
    await make('P');
    await make('Q', 'P');
    await make('S', 'Q');
    // Q and S as links made before chains hold them: the trigger cannot see S below P from S's chain.
    await s.query(
      `UPDATE links SET ancestors = NULL, root_id = NULL, depth = NULL WHERE id = ANY($1::bigint[])`,
      [[ids.get('Q'), ids.get('S')]],
    );
    const res = await update('P', { parent: svcIds.get('S')! }).expect(400);
    expect(res.body.error_message).toBe(
      'Invalid parameter parent: a link cannot become its own ancestor',
    );
    const [p] = await s.query<{ parent: string | null }>(`SELECT parent FROM links WHERE id = $1`, [
      ids.get('P'),
    ]);
    expect(p.parent).toBeNull();
  });

  it('refuses a parent under which the cascade would pass 255 generations, and takes one that reaches 255', async () => {
    await make('Deep');
    await make('M');
    await make('M1', 'M');
    await make('M2', 'M1');
    // A parent 253 generations below its root, as a long cascade would leave it.
    await s.query(`UPDATE links SET depth = 253 WHERE id = $1`, [ids.get('Deep')]);
    // M's subtree is 2 generations deep: under Deep, M2 would be 256 deep.
    const res = await update('M', { parent: svcIds.get('Deep')! }).expect(400);
    expect(res.body.error_message).toBe(
      "Invalid parameter parent: the link's cascade would reach 256 generations below its root, more than the 255 a cascade holds",
    );
    expect(await pgChains('M', 'M1', 'M2')).toEqual({
      M: chain('M'),
      M1: chain('M', 'M'),
      M2: chain('M', 'M1', 'M'),
    });
    // M1's subtree is 1 generation deep: M2 ends 255 deep.
    await update('M1', { parent: svcIds.get('Deep')! }).expect(200);
    await s.settle();
    const deep = {
      M1: { ancestors: ['Deep'], root: 'Deep', depth: 254 },
      M2: { ancestors: ['M1', 'Deep'], root: 'Deep', depth: 255 },
    };
    expect(await pgChains('M1', 'M2')).toEqual(deep);
    expect(await storedChains('M1', 'M2')).toEqual(deep);
  });

  it(`moves a subtree larger than a batch (${CHAIN_MOVE_BATCH} links) whole`, async () => {
    await make('Big');
    await make('Top', 'Big');
    await make('Mid', 'Top');
    await make('NewTop');
    const size = 2 * CHAIN_MOVE_BATCH + 7;
    // Children of Mid made straight in PostgreSQL: the trigger gives them their chains.
    await s.query(
      `INSERT INTO links (project_id, svc_id, domain, path, original_url, redirect_url, tool, application, parent)
       SELECT project_id, svc_id || '-' || g, domain, path || '-' || g, original_url, redirect_url,
              tool, application, svc_id
       FROM links, generate_series(1, $2::int) g WHERE id = $1`,
      [ids.get('Mid'), size],
    );
    const [made] = await s.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM links WHERE ancestors = ARRAY[$1, $2, $3]::bigint[] AND depth = 3`,
      [ids.get('Mid'), ids.get('Top'), ids.get('Big')],
    );
    expect(made.n).toBe(String(size));

    await update('Top', { parent: svcIds.get('NewTop')! }).expect(200);
    await s.settle();
    const expected = [ids.get('Mid'), ids.get('Top'), ids.get('NewTop')];
    const [pg] = await s.query<{ n: string; roots: string }>(
      `SELECT count(*)::text AS n, string_agg(DISTINCT root_id::text, ',') AS roots FROM links
       WHERE parent = $1 AND ancestors = $2::bigint[] AND depth = 3`,
      [svcIds.get('Mid'), expected],
    );
    expect(pg).toEqual({ n: String(size), roots: ids.get('NewTop') });
    const [stored] = await s.analytics.query<{ n: string; roots: string[] }>(
      `SELECT toString(count()) AS n, arrayMap(r -> toString(r), groupUniqArray(root_id)) AS roots
       FROM ${s.analytics.database}.link_chains FINAL
       WHERE arrayMap(a -> toString(a), ancestors) = {chain:Array(String)} AND depth = 3`,
      { chain: expected },
    );
    expect(stored).toEqual({ n: String(size), roots: [ids.get('NewTop')] });
  });
});

/**
 * A move the queue cannot take is not lost: when the `chain-moves` queue refuses it (its Redis
 * unreachable: BullJobQueue's failFast), it runs before url/update answers.
 */
describe('share chains: re-parent the queue refuses', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  it('moves the subtree before answering', async () => {
    const a = await createLink(t, key);
    const b = await createLink(t, key, { parent: a.svc_id });
    const c = await createLink(t, key, { parent: b.svc_id });
    const e = await createLink(t, key, { parent: a.svc_id });
    const idOf = async (svcId: string) =>
      (
        await t.db.query<{ id: string }>(`SELECT id::text AS id FROM links WHERE svc_id = $1`, [
          svcId,
        ])
      ).rows[0].id;
    const [aId, bId, cId, eId] = [
      await idOf(a.svc_id),
      await idOf(b.svc_id),
      await idOf(c.svc_id),
      await idOf(e.svc_id),
    ];
    const queue = t.app.get(JobQueue);
    const add = jest
      .spyOn(queue, 'add')
      .mockRejectedValueOnce(new Error('Redis is unreachable (reconnecting)'));
    try {
      await t.http
        .post(`/url/update/${b.svc_id}.json`)
        .type('form')
        .send({ v: '3', key, tool: 'publisher-updater', parent: e.svc_id })
        .expect(200);
      expect(add).toHaveBeenCalledTimes(1);
      expect(add.mock.calls[0].slice(0, 3)).toEqual([
        'chain-moves',
        'move',
        { projectId: expect.any(String), linkId: bId, move: expect.stringMatching(/^\d+$/) },
      ]);
    } finally {
      add.mockRestore();
    }
    // No waiting on the queue: the answer came after the move.
    const { rows } = await t.db.query<{ ancestors: string[]; root_id: string; depth: number }>(
      `SELECT ancestors::text[] AS ancestors, root_id::text AS root_id, depth FROM links WHERE id = $1`,
      [cId],
    );
    expect(rows).toEqual([{ ancestors: [bId, eId, aId], root_id: aId, depth: 3 }]);
    const stored = await t.analytics.query<{ ancestors: string[]; depth: number }>(
      `SELECT arrayMap(x -> toString(x), ancestors) AS ancestors, depth
       FROM ${t.analytics.database}.link_chains FINAL WHERE toString(link_id) = {id:String}`,
      { id: cId },
    );
    expect(stored).toEqual([{ ancestors: [bId, eId, aId], depth: 3 }]);
  });
});
