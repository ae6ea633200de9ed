import { TestApp, createTestApp } from '../support/app';
import { outcome, runBackfill } from '../support/backfill';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { Chain, storedChains as storedChainsOf } from '../support/chains';

/** A chain as the tests compare it: links by name, parent first. */

const chain = (root: string, ...ancestors: string[]): Chain => ({
  ancestors,
  root,
  depth: ancestors.length,
});

/**
 * `npm run cli -- analytics:backfill`, its `chains` step: links made before share chains (no
 * ancestors, root or depth in PostgreSQL, no row in `link_chains`) get them, roots first, in both
 * stores; links that old data left in a cycle become roots; a rerun finds nothing left.
 */
describe('analytics:backfill chains', () => {
  let t: TestApp;
  let key: string;
  const ids = new Map<string, string>();
  const svcIds = new Map<string, string>();
  const names = new Map<string, string>();

  beforeAll(async () => {
    t = await createTestApp({ redis: false });
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  const make = async (name: string, parent?: string) => {
    const link = await createLink(t, key, parent ? { parent: svcIds.get(parent)! } : {});
    const { rows } = await t.db.query<{ id: string }>(
      `SELECT id::text AS id FROM links WHERE svc_id = $1`,
      [link.svc_id],
    );
    ids.set(name, rows[0].id);
    svcIds.set(name, link.svc_id);
    names.set(rows[0].id, name);
  };
  const idsOf = (of: string[]) => of.map((name) => ids.get(name)!);
  const named = (id: string) => names.get(id) ?? `#${id}`;

  /** Takes the named links back to before chains: none in PostgreSQL, none in the analytics store. */
  const forgetChains = async (...of: string[]) => {
    await t.db.query(
      `UPDATE links SET ancestors = NULL, root_id = NULL, depth = NULL WHERE id = ANY($1::bigint[])`,
      [idsOf(of)],
    );
    await t.analytics.command(
      `ALTER TABLE ${t.analytics.database}.link_chains DELETE WHERE toString(link_id) IN {ids:Array(String)}
       SETTINGS mutations_sync = 2`,
      { ids: idsOf(of) },
    );
    expect(await pgChains(...of)).toEqual({});
    const [left] = await t.analytics.query<{ n: string }>(
      `SELECT toString(count()) AS n FROM ${t.analytics.database}.link_chains FINAL
       WHERE toString(link_id) IN {ids:Array(String)}`,
      { ids: idsOf(of) },
    );
    expect(left.n).toBe('0');
  };
  const pgChains = async (...of: string[]): Promise<Record<string, Chain>> => {
    const { rows } = await t.db.query<{
      id: string;
      ancestors: string[];
      root_id: string;
      depth: number;
    }>(
      `SELECT id::text AS id, ancestors::text[] AS ancestors, root_id::text AS root_id, depth
       FROM links WHERE id = ANY($1::bigint[]) AND ancestors IS NOT NULL`,
      [idsOf(of)],
    );
    return Object.fromEntries(
      rows.map((r) => [
        named(r.id),
        { ancestors: r.ancestors.map(named), root: named(r.root_id), depth: r.depth },
      ]),
    );
  };
  /** The latest `link_chains` rows of the analytics store for the named links. */
  const storedChains = (...of: string[]) => storedChainsOf(t.analytics, { ids, named }, of);
  const chainsLine = (stdout: string) => /^chains: (\d+)$/m.exec(stdout)?.[1];

  it('gives the links made before chains theirs, roots first, in PostgreSQL and the analytics store, once', async () => {
    await make('A');
    await make('B', 'A');
    await make('C', 'B');
    await make('D', 'C');
    await make('E', 'A');
    await make('F');
    await make('G', 'F');
    const all = ['A', 'B', 'C', 'D', 'E', 'F', 'G'];
    const expected = {
      A: chain('A'),
      B: chain('A', 'A'),
      C: chain('A', 'B', 'A'),
      D: chain('A', 'C', 'B', 'A'),
      E: chain('A', 'A'),
      F: chain('F'),
      G: chain('F', 'F'),
    };
    expect(await pgChains(...all)).toEqual(expected);
    // A root, its descendants over three generations, and a child of a root that keeps its chain.
    await forgetChains('A', 'B', 'C', 'D', 'G');

    const run = await runBackfill(t);
    expect(outcome(run)).toBe('ok');
    expect(run.stdout).toMatch(/^links: \d+\nchains: 5\nclicks: \d+\nconversions: \d+\n/);
    expect(run.stderr).toContain('chains       [##############################] 100.0% 5/5');
    expect(await pgChains(...all)).toEqual(expected);
    expect(await storedChains(...all)).toEqual(expected);

    // Again: nothing is left to do.
    const again = await runBackfill(t);
    expect(outcome(again)).toBe('ok');
    expect(chainsLine(again.stdout)).toBe('0');
    expect(again.stderr).toContain('chains       [##############################] 100.0% 0/0');
    expect(await pgChains(...all)).toEqual(expected);

    // Interrupted part of the way: a rerun takes up what has no chain yet.
    await forgetChains('C', 'D');
    expect(chainsLine((await runBackfill(t)).stdout)).toBe('2');
    expect(await pgChains(...all)).toEqual(expected);
    expect(await storedChains(...all)).toEqual(expected);
  });

  it('makes roots of links that old data left in a cycle, of those whose parent is gone or too deep, and hangs the rest below them', async () => {
    for (const name of ['X', 'Y', 'Z', 'H', 'W', 'V', 'P']) await make(name);
    await make('Q', 'P');
    const all = ['X', 'Y', 'Z', 'H', 'W', 'V', 'P', 'Q'];
    // Parents as a version without the trigger could leave them: X and Y each other's parent, Z below
    // X and H below Z, W its own parent, V's parent a link that is gone.
    const parents: [string, string][] = [
      ['X', svcIds.get('Y')!],
      ['Y', svcIds.get('X')!],
      ['Z', svcIds.get('X')!],
      ['H', svcIds.get('Z')!],
      ['W', svcIds.get('W')!],
      ['V', 'gone-link'],
    ];
    await t.db.query(`ALTER TABLE links DISABLE TRIGGER links_chain`);
    try {
      for (const [name, parent] of parents)
        await t.db.query(`UPDATE links SET parent = $2 WHERE id = $1`, [ids.get(name), parent]);
    } finally {
      await t.db.query(`ALTER TABLE links ENABLE TRIGGER links_chain`);
    }
    // P as deep as a cascade goes (its chain stands for 255 generations): Q cannot be below it.
    await t.db.query(`UPDATE links SET depth = 255 WHERE id = $1`, [ids.get('P')]);
    await forgetChains('X', 'Y', 'Z', 'H', 'W', 'V', 'Q');

    const run = await runBackfill(t);
    expect(outcome(run)).toBe('ok');
    expect(chainsLine(run.stdout)).toBe('7');
    expect(run.stderr).toContain('chains       [##############################] 100.0% 7/7');
    const expected = {
      X: chain('X'),
      Y: chain('Y'),
      Z: chain('X', 'X'),
      H: chain('X', 'Z', 'X'),
      W: chain('W'),
      V: chain('V'),
      Q: chain('Q'),
    };
    expect(await pgChains(...all)).toEqual({
      ...expected,
      P: { ancestors: [], root: 'P', depth: 255 },
    });
    expect(await storedChains('X', 'Y', 'Z', 'H', 'W', 'V', 'Q')).toEqual(expected);
    // The parents stay as they were: the step writes chains only.
    const { rows } = await t.db.query<{ id: string; parent: string | null }>(
      `SELECT id::text AS id, parent FROM links WHERE id = ANY($1::bigint[])`,
      [idsOf(parents.map(([name]) => name))],
    );
    expect(Object.fromEntries(rows.map((r) => [named(r.id), r.parent]))).toEqual(
      Object.fromEntries(parents.map(([name, parent]) => [name, parent])),
    );
    expect(chainsLine((await runBackfill(t)).stdout)).toBe('0');
  });
});
