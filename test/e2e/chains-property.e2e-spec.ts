import fc from 'fast-check';
import { TestApp, createTestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { clickRollup, conversionRollup } from '../factories/stats';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Moves between the checks: link `link` re-parented under link `to` (each modulo the forest's size;
 * a move that would make a cycle is left out), then clicks on link `clicked`.
 */
const moveLists = fc.array(
  fc.record({ link: fc.nat(), to: fc.nat(), clicked: fc.nat(), clicks: fc.nat({ max: 3 }) }),
  { maxLength: 3 },
);

/** A random forest: each link's parent (an earlier link, or none), clicks and goal value. */
const forests = fc.array(
  fc.record({
    parent: fc.option(fc.nat(), { nil: null }),
    clicks: fc.nat({ max: 4 }),
    value: fc.option(fc.integer({ min: 1, max: 500 }), { nil: null }),
  }),
  { minLength: 1, maxLength: 8 },
);

/**
 * The invariants of share chains (docs/api.md, "Share chains") on random forests: a link's chain
 * is its children's own figures and their chains, in range (with_chain) as in chain.json; the
 * first-touch totals are the last-touch totals, since every click is credited to exactly one root.
 * They hold again after links are re-parented (their subtrees moved) and clicked.
 */
describe('share chains: invariants on random forests', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ redis: false });
  });
  afterAll(() => t.close());

  const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000).toISOString();
  const period = {
    start_date: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
    end_date: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
  };

  const projectOf = async (svcId: string): Promise<string> =>
    (
      await t.db.query<{ project_id: string }>('SELECT project_id FROM links WHERE svc_id = $1', [
        svcId,
      ])
    ).rows[0].project_id;
  /** Until the project's moves are done (the chain-moves job deletes each when its subtree moved). */
  const movesDone = (project: string) =>
    eventually('the chain-moves job', async () => {
      const { rows } = await t.db.query<{ n: string }>(
        'SELECT count(*) AS n FROM link_chain_moves WHERE project_id = $1',
        [project],
      );
      return rows[0].n === '0';
    });

  it('holds for every forest, and after moves', async () => {
    await fc.assert(
      fc.asyncProperty(forests, moveLists, async (forest, moves) => {
        const key = (await createProject(t)).api_key;
        const get = async (path: string, params: Record<string, string>) => {
          const res = await t.http.get(path).query({ v: '3', key, ...params });
          if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
          return res.body as Body;
        };
        const svcIds: string[] = [];
        const parents: (number | null)[] = [];
        for (const [i, link] of forest.entries()) {
          const parent = link.parent === null || i === 0 ? null : link.parent % i;
          const record = await createLink(t, key, {
            url: `https://shop.example/${i}`,
            ...(parent === null ? {} : { parent: svcIds[parent] }),
          });
          svcIds.push(record.svc_id);
          parents.push(parent);
          if (link.clicks > 0) await clickRollup(t, record.svc_id, hour, link.clicks);
          if (link.value !== null)
            await conversionRollup(t, record.svc_id, hour, 'goal_1', 1, link.value);
        }
        const check = async () => {
          const range = await get('/stats/range.json', {
            ...period,
            group_by: 'svc_id',
            with_chain: 'true',
            with_conversions: 'true',
            per_page: '1000',
          });
          const bySvc = new Map((range.groups as Body[]).map((g) => [g.svc_id as string, g]));
          const children = (i: number) => svcIds.filter((_, j) => parents[j] === i);
          for (const [i, svcId] of svcIds.entries()) {
            const row = bySvc.get(svcId)!;
            const below = children(i).map((c) => bySvc.get(c)!);
            const sum = (f: (g: Body) => number) => below.reduce((s, g) => s + f(g), 0);
            expect(row.chain.clicks).toBe(
              sum((g): number => Number(g.clicks) + Number(g.chain.clicks)),
            );
            expect(row.chain.shares).toBe(
              sum((g): number => Number(g.shares) + Number(g.chain.shares)),
            );
            expect(row.chain.conversions.goal_1.value).toBe(
              sum(
                (g): number =>
                  Number(g.conversions.goal_1.value) + Number(g.chain.conversions.goal_1.value),
              ),
            );
            const cascade = await get(`/stats/${svcId}/chain.json`, { per_page: '1000' });
            expect(cascade.downstream.clicks).toBe(row.chain.clicks);
            expect(cascade.downstream.shares).toBe(row.chain.shares);
            expect(cascade.own.clicks).toBe(row.clicks);
            expect(cascade.total_results).toBe(below.length);
          }
          const totals = (attribution: string) =>
            get('/stats/range.json', { ...period, attribution, with_conversions: 'true' });
          const [first, last] = [await totals('first'), await totals('last')];
          expect(first.totals).toEqual(last.totals);
          expect(first.totals.clicks).toBe(forest.reduce((s, l) => s + l.clicks, 0));
          // Every click is its root's with attribution=first.
          const roots = await get('/stats/range.json', {
            ...period,
            group_by: 'svc_id',
            attribution: 'first',
            per_page: '1000',
          });
          const credited = (roots.groups as Body[]).filter((g) => g.clicks > 0);
          for (const group of credited)
            expect(parents[svcIds.indexOf(group.svc_id as string)]).toBeNull();
        };
        await check();
        const project = await projectOf(svcIds[0]);
        const below = (i: number, j: number): boolean => {
          for (let at: number | null = j; at !== null; at = parents[at]) if (at === i) return true;
          return false;
        };
        for (const move of moves) {
          const [i, to] = [move.link % svcIds.length, move.to % svcIds.length];
          if (!below(i, to)) {
            await t.http
              .post(`/url/update/${svcIds[i]}.json`)
              .type('form')
              .send({ v: '3', key, tool: 'publisher-updater', parent: svcIds[to] })
              .expect(200);
            parents[i] = to;
            await movesDone(project);
          }
          if (move.clicks > 0)
            await clickRollup(t, svcIds[move.clicked % svcIds.length], hour, move.clicks);
          forest[move.clicked % svcIds.length].clicks += move.clicks;
        }
        await check();
      }),
      { numRuns: 10 },
    );
  }, 240_000);
});
