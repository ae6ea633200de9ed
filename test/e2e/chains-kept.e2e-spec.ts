import { randomUUID } from 'node:crypto';
import { STAMP_COLUMNS } from '../../src/analytics/analytics-schema';
import { LinkMirror } from '../../src/analytics/link-mirror';
import { LinkStamps } from '../../src/analytics/link-stamps';
import { StatsRepository } from '../../src/stats/stats.repository';
import { TestApp, createTestApp } from '../support/app';
import { linkRow } from '../support/clicks';
import { eventually } from '../support/eventually';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { clickRollup, conversionRollup } from '../factories/stats';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Chain figures kept by the store (docs/architecture.md, "Share chains"): events stamped with
 * their link's chain are summed per ancestor at ingestion (`chain_clicks_hourly`, `chain_hourly`), and with_chain reads
 * those sums; events without a chain stamp (a store written before) are joined at query time. The
 * two give the same answers; a link's events stamped before its chain moved count under its latest
 * chain; an insert repeated with its token counts once.
 */
describe('share chains kept by the store', () => {
  let t: TestApp;
  const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000).toISOString();
  const period = {
    start_date: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
    end_date: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
  };

  beforeAll(async () => {
    t = await createTestApp({ redis: false });
  });
  afterAll(() => t.close());

  const getter =
    (key: string) =>
    async (path: string, params: Record<string, string>): Promise<Body> => {
      const res = await t.http.get(path).query({ v: '3', key, ...params });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
      return res.body as Body;
    };
  const projectOf = async (key: string): Promise<string> =>
    (await t.db.query<{ id: string }>('SELECT id FROM projects WHERE api_key = $1', [key])).rows[0]
      .id;
  const movesDone = (project: string) =>
    eventually('the chain-moves job', async () => {
      const { rows } = await t.db.query<{ n: string }>(
        'SELECT count(*) AS n FROM link_chain_moves WHERE project_id = $1',
        [project],
      );
      return rows[0].n === '0';
    });

  /**
   * Two cascades and their events: A → B → C → D, A → E; F → G. Clicks (bots), conversions as
   * below, every event stamped (or none: `stamped` false).
   */
  async function seed(stamped: boolean): Promise<{ key: string; ids: Record<string, string> }> {
    const key = (await createProject(t, { conversions: { enabled: true } })).api_key;
    const ids: Record<string, string> = {};
    const links: [string, string, string, string | null][] = [
      ['A', 'twitter', 'u1', null],
      ['B', 'facebook', 'u2', 'A'],
      ['C', 'email', 'u2', 'B'],
      ['D', 'twitter', 'u1', 'C'],
      ['E', 'twitter', 'u3', 'A'],
      ['F', 'email', 'u1', null],
      ['G', 'email', 'u1', 'F'],
    ];
    for (const [name, channel, user, parent] of links)
      ids[name] = (
        await createLink(t, key, {
          url: `https://shop.example/${name}`,
          channel,
          user_id: user,
          ...(parent ? { parent: ids[parent] } : {}),
        })
      ).svc_id;
    const clicks: [string, number, number][] = [
      ['A', 5, 0],
      ['B', 3, 1],
      ['C', 2, 0],
      ['D', 7, 0],
      ['E', 4, 0],
      ['F', 1, 0],
      ['G', 6, 2],
    ];
    for (const [name, humans, bots] of clicks)
      await clickRollup(t, ids[name], hour, humans, bots, stamped);
    await conversionRollup(t, ids.D, hour, 'goal_1', 1, 100, stamped);
    await conversionRollup(t, ids.C, hour, 'pageview', 2, 0, stamped);
    await conversionRollup(t, ids.G, hour, 'goal_2', 1, 50, stamped);
    return { key, ids };
  }

  it('answers with_chain from the kept figures as from the events joined at query time', async () => {
    const kept = await seed(true);
    const joined = await seed(false);
    const repository = t.app.get(StatsRepository, { strict: false });
    expect(await repository.chainState([await projectOf(kept.key)])).toEqual({
      unstamped: false,
      moved: false,
    });
    expect(await repository.chainState([await projectOf(joined.key)])).toEqual({
      unstamped: true,
      moved: false,
    });
    const requests: [string, Record<string, string>][] = [
      ['/stats/range.json', { ...period, with_chain: 'true' }],
      ['/stats/range.json', { ...period, group_by: 'channel', with_chain: 'true' }],
      [
        '/stats/range.json',
        {
          ...period,
          group_by: 'user_id',
          pivot: 'channel',
          with_chain: 'true',
          with_conversions: 'true',
        },
      ],
      [
        '/stats/range.json',
        { ...period, group_by: 'channel', with_chain: 'true', with_bots: 'true' },
      ],
      [
        '/stats/range.json',
        { ...period, group_by: 'user_id', with_chain: 'true', channel: 'email' },
      ],
      [
        '/stats/totals.json',
        { ...period, group_by: 'channel', with_chain: 'true', with_conversions: 'true' },
      ],
    ];
    for (const [path, params] of requests) {
      const [a, b] = [await getter(kept.key)(path, params), await getter(joined.key)(path, params)];
      expect({ path, params, answer: a }).toEqual({ path, params, answer: b });
    }
    // The figures themselves, by channel: twitter holds A (all of A's cascade below it) and D, E
    // below it once; facebook B (C, D); email C (D) and F (G).
    const byChannel = await getter(kept.key)('/stats/range.json', {
      ...period,
      group_by: 'channel',
      with_chain: 'true',
    });
    expect(
      (byChannel.groups as Body[]).map((g): unknown => [g.channel, g.chain.clicks, g.chain.shares]),
    ).toEqual(
      expect.arrayContaining([
        ['twitter', 16, 4],
        ['facebook', 9, 2],
        ['email', 13, 2],
      ]),
    );
  });

  it("counts a link's events stamped before its chain moved under its latest chain", async () => {
    const key = (await createProject(t)).api_key;
    const make = async (name: string, parent?: string) =>
      (
        await createLink(t, key, {
          url: `https://shop.example/${name}`,
          ...(parent ? { parent } : {}),
        })
      ).svc_id;
    const a = await make('a');
    const b = await make('b', a);
    const c = await make('c');
    await clickRollup(t, b, hour, 2);
    // A worker's stamp of B, read before the move and used after it (kept for a minute).
    const link = await linkRow(t, b);
    const stale = (await new LinkStamps(t.analytics).of([link.projectId], [link.linkId])).get(
      link.linkId,
    )!;
    await t.http
      .post(`/url/update/${b}.json`)
      .type('form')
      .send({ v: '3', key, tool: 'publisher-updater', parent: c })
      .expect(200);
    await movesDone(link.projectId);
    const rows = Array.from(
      { length: 3 },
      () =>
        `${link.projectId}\t${link.linkId}\t${hour.replace('T', ' ').replace('Z', '')}\t${randomUUID()}\t\\N\t\\N\t\\N\t0\t${stale}\n`,
    );
    await t.analytics.insertTabSeparated(
      'clicks',
      [
        ...['project_id', 'link_id', 'clicked_at', 'click_id', 'referrer', 'user_agent', 'ip'],
        'is_bot',
        ...STAMP_COLUMNS.map(([name]) => name),
      ],
      rows.join(''),
      rows.length,
    );
    await clickRollup(t, b, hour, 4);
    const repository = t.app.get(StatsRepository, { strict: false });
    expect(await repository.chainState([link.projectId])).toEqual({
      unstamped: false,
      moved: true,
    });
    const range = await getter(key)('/stats/range.json', {
      ...period,
      group_by: 'svc_id',
      with_chain: 'true',
    });
    const chainOf = (svcId: string) =>
      (range.groups as Body[]).find((g) => g.svc_id === svcId)?.chain as Body | undefined;
    expect(chainOf(c)).toMatchObject({ clicks: 9, shares: 1 });
    expect(chainOf(a)).toMatchObject({ clicks: 0, shares: 0 });
    expect(range.totals.chain).toMatchObject({ clicks: 9, shares: 1 });
    // The store still holds the stale stamps: the correction is the query's.
    const stamped = await t.analytics.query<{ ancestors: string[]; n: string }>(
      `SELECT ancestors, count() AS n FROM ${t.analytics.database}.clicks
       WHERE link_id = {link:UInt64} GROUP BY ancestors ORDER BY n`,
      { link: Number(link.linkId) },
    );
    expect(stamped.map((row) => Number(row.n))).toEqual([4, 5]);
  });

  it('sums an insert repeated with its token once per ancestor', async () => {
    const key = (await createProject(t)).api_key;
    const a = (await createLink(t, key, { url: 'https://shop.example/x' })).svc_id;
    const b = (await createLink(t, key, { url: 'https://shop.example/y', parent: a })).svc_id;
    const link = await linkRow(t, b);
    const parent = await linkRow(t, a);
    const stamp = (await new LinkStamps(t.analytics).of([link.projectId], [link.linkId])).get(
      link.linkId,
    )!;
    const rows = Array.from(
      { length: 5 },
      (_, i) =>
        `${link.projectId}\t${link.linkId}\t${hour.replace('T', ' ').replace('Z', '')}\t${randomUUID()}\t\\N\t\\N\t\\N\t${i < 4 ? 0 : 1}\t${stamp}\n`,
    ).join('');
    const columns = [
      ...['project_id', 'link_id', 'clicked_at', 'click_id', 'referrer', 'user_agent', 'ip'],
      'is_bot',
      ...STAMP_COLUMNS.map(([name]) => name),
    ];
    const token = `chains-kept-${randomUUID()}`;
    await t.analytics.insertTabSeparated('clicks', columns, rows, 5, { token });
    await t.analytics.insertTabSeparated('clicks', columns, rows, 5, { token });
    const sums = await t.analytics.query<{ clicks: number; bots: number; generation: number }>(
      `SELECT toUInt32(sum(clicks)) AS clicks, toUInt32(sum(bots)) AS bots, any(generation) AS generation
       FROM ${t.analytics.database}.chain_clicks_hourly
       WHERE project_id = {project:UUID} AND ancestor_id = {ancestor:UInt64}`,
      { project: link.projectId, ancestor: Number(parent.linkId) },
    );
    expect(sums).toEqual([{ clicks: 4, bots: 1, generation: 1 }]);
  });

  it('counts each link in the old tree or the new one at every moment of a move, never both', async () => {
    const key = (await createProject(t)).api_key;
    const make = async (name: string, parent?: string) =>
      (
        await createLink(t, key, {
          url: `https://shop.example/${name}`,
          ...(parent ? { parent } : {}),
        })
      ).svc_id;
    const a = await make('a');
    const c = await make('c');
    const top = await make('top', a);
    const mid = await make('mid', top);
    const leaf = await make('leaf', mid);
    for (const [svcId, clicks] of [
      [top, 2],
      [mid, 3],
      [leaf, 4],
    ] as const)
      await clickRollup(t, svcId, hour, clicks);
    const row = (svcId: string) => linkRow(t, svcId);
    const [ra, rc, rTop, rMid, rLeaf] = await Promise.all([a, c, top, mid, leaf].map(row));
    const project = ra.projectId;
    const chains = () =>
      getter(key)('/stats/range.json', { ...period, group_by: 'svc_id', with_chain: 'true' }).then(
        (body) => {
          const of = (svcId: string) =>
            (body.groups as Body[]).find((g) => g.svc_id === svcId)?.chain as Body;
          return {
            a: [of(a).clicks, of(a).shares],
            c: [of(c).clicks, of(c).shares],
            top: [of(top).clicks, of(top).shares],
            all: [body.totals.chain.clicks, body.totals.chain.shares],
          };
        },
      );
    expect(await chains()).toEqual({ a: [9, 3], c: [0, 0], top: [7, 2], all: [9, 3] });
    // The subtree of `top` moved under `c` as the chain-moves job writes it, a batch at a time:
    // the link itself first (url/update), then its descendants; statistics between the batches.
    const mirror = t.app.get(LinkMirror, { strict: false });
    const version = Date.now() * 1000;
    const chain = async (link: { linkId: string }, ancestors: string[], step: number) => ({
      project_id: project,
      link_id: link.linkId,
      version: version + step,
      root_id: rc.linkId,
      depth: ancestors.length,
      ancestors,
      shared_at: (
        await t.analytics.query<{ at: string }>(
          `SELECT toString(shared_at) AS at FROM ${t.analytics.database}.links FINAL
           WHERE link_id = {link:UInt64}`,
          { link: Number(link.linkId) },
        )
      )[0].at,
    });
    await mirror.moveChains([await chain(rTop, [rc.linkId], 1)]);
    expect(await chains()).toEqual({ a: [7, 2], c: [2, 1], top: [7, 2], all: [9, 3] });
    await mirror.moveChains([await chain(rMid, [rTop.linkId, rc.linkId], 2)]);
    expect(await chains()).toEqual({ a: [4, 1], c: [5, 2], top: [7, 2], all: [9, 3] });
    await mirror.moveChains([await chain(rLeaf, [rMid.linkId, rTop.linkId, rc.linkId], 3)]);
    expect(await chains()).toEqual({ a: [0, 0], c: [9, 3], top: [7, 2], all: [9, 3] });
  });
});
