import fc from 'fast-check';
import { TestApp, createTestApp } from '../support/app';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { clickRollup, conversionRollup } from '../factories/stats';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

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

  it('holds for every forest', async () => {
    await fc.assert(
      fc.asyncProperty(forests, async (forest) => {
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
      }),
      { numRuns: 10 },
    );
  }, 240_000);
});
