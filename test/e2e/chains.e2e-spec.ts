import { TestApp, createTestApp } from '../support/app';
import { BROWSER } from '../support/clicks';
import { eventually } from '../support/eventually';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { clickRollup, conversionRollup } from '../factories/stats';

/**
 * Share chains end to end (docs/api.md, "Share chains"): the cascade A→B→C→D and A→E, B's parent
 * given explicitly, C's through `svc=B` in its url, D made by retweet of a text naming C. Every
 * figure below is worked out by hand from this table:
 *
 * | link | parent   | depth | channel  | user_id | clicks (bots) | conversions        |
 * |------|----------|-------|----------|---------|---------------|--------------------|
 * | A    | -        | 0     | twitter  | u1      | 5             | pageview 1         |
 * | B    | A        | 1     | facebook | u2      | 3             | goal_1 1 worth 100 |
 * | C    | B (svc=) | 2     | email    | u2      | 2             | -                  |
 * | D    | C (text) | 3     | linkedin | u3      | 7 (+1 bot)    | goal_1 1 worth 50  |
 * | E    | A        | 1     | twitter  | u1      | 4             | -                  |
 */
type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('share chains', () => {
  let t: TestApp;
  let key: string;
  const ids = {} as Record<'A' | 'B' | 'C' | 'D' | 'E', string>;
  const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000).toISOString();
  const period = {
    start_date: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
    end_date: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
  };

  beforeAll(async () => {
    t = await createTestApp({ redis: false });
    key = (await createProject(t)).api_key;
    const make = async (params: Record<string, string>) =>
      (await createLink(t, key, params)).svc_id;
    ids.A = await make({ url: 'https://shop.example/a', channel: 'twitter', user_id: 'u1' });
    ids.B = await make({
      url: 'https://shop.example/b',
      channel: 'facebook',
      user_id: 'u2',
      parent: ids.A,
    });
    ids.C = await make({
      url: `https://shop.example/c?svc=${ids.B}`,
      channel: 'email',
      user_id: 'u2',
    });
    const retweet = await t.http
      .post('/url/retweet.json')
      .set('User-Agent', BROWSER)
      .type('form')
      .send({
        v: '3',
        key,
        tool: 'publisher-retweet',
        channel: 'linkedin',
        user_id: 'u3',
        text: `Look: http://shop.example/d?svc=${ids.C}`,
      })
      .expect(200);
    ids.D = (retweet.body as { svc_urls: { svc_id: string; parent: string }[] }).svc_urls[0].svc_id;
    ids.E = await make({
      url: 'https://shop.example/e',
      channel: 'twitter',
      user_id: 'u1',
      parent: ids.A,
    });
    for (const [link, clicks, bots] of [
      ['A', 5, 0],
      ['B', 3, 0],
      ['C', 2, 0],
      ['D', 7, 1],
      ['E', 4, 0],
    ] as const) {
      await clickRollup(t, ids[link], hour, clicks, bots);
    }
    await conversionRollup(t, ids.A, hour, 'pageview', 1, 0);
    await conversionRollup(t, ids.B, hour, 'goal_1', 1, 100);
    await conversionRollup(t, ids.D, hour, 'goal_1', 1, 50);
  });
  afterAll(() => t.close());

  const get = async (path: string, params: Record<string, string> = {}) => {
    const res = await t.http.get(path).query({ v: '3', key, ...params });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${res.text}`);
    return res.body as Body;
  };
  const chainOf = (link: keyof typeof ids, params: Record<string, string> = {}) =>
    get(`/stats/${ids[link]}/chain.json`, params);
  const range = (params: Record<string, string>) =>
    get('/stats/range.json', { ...period, ...params });

  it('sets each link its ancestors, root and depth from its parent, whichever way the parent came', async () => {
    const { rows } = await t.db.query<{
      svc_id: string;
      parent: string | null;
      chain: string[];
      depth: number;
      root: string;
    }>(
      `SELECT l.svc_id, l.parent, l.depth, r.svc_id AS root,
              ARRAY(SELECT a.svc_id FROM unnest(l.ancestors) WITH ORDINALITY u(id, n)
                    JOIN links a ON a.id = u.id ORDER BY u.n) AS chain
       FROM links l JOIN links r ON r.id = l.root_id
       WHERE l.svc_id = ANY($1::text[])`,
      [Object.values(ids)],
    );
    const bySvc = new Map(rows.map((row) => [row.svc_id, row]));
    const expected: Record<keyof typeof ids, string[]> = {
      A: [],
      B: [ids.A],
      C: [ids.B, ids.A],
      D: [ids.C, ids.B, ids.A],
      E: [ids.A],
    };
    for (const [link, chain] of Object.entries(expected)) {
      const row = bySvc.get(ids[link as keyof typeof ids])!;
      expect({ link, chain: row.chain, depth: row.depth, root: row.root }).toEqual({
        link,
        chain,
        depth: chain.length,
        root: ids.A,
      });
    }
    expect(bySvc.get(ids.D)!.parent).toBe(ids.C);
  });

  it("answers a root's cascade: own, downstream, generations and children", async () => {
    const body = await chainOf('A');
    expect(body).toEqual({
      svc_id: ids.A,
      root: ids.A,
      depth: 0,
      start_date: null,
      end_date: null,
      with_conversions: false,
      own: { clicks: 5 },
      // B, C, D and E; sharers u2, u3 and u1; D is three generations below A.
      downstream: { shares: 4, sharers: 3, clicks: 16, generations: 3 },
      generations: [
        { generation: 1, shares: 2, clicks: 7 },
        { generation: 2, shares: 1, clicks: 2 },
        { generation: 3, shares: 1, clicks: 7 },
      ],
      page: 1,
      per_page: 10,
      offset: 0,
      total_results: 2,
      // B's 3 + 9 below it come before E's 4.
      children: [
        {
          svc_id: ids.B,
          channel: 'facebook',
          sharer_id: null,
          user_id: 'u2',
          own: { clicks: 3 },
          downstream: { shares: 2, sharers: 2, clicks: 9, generations: 2 },
        },
        {
          svc_id: ids.E,
          channel: 'twitter',
          sharer_id: null,
          user_id: 'u1',
          own: { clicks: 4 },
          downstream: { shares: 0, sharers: 0, clicks: 0, generations: 0 },
        },
      ],
    });
  });

  it('answers a leaf, pages children, counts conversions and bots when asked', async () => {
    const leaf = await chainOf('D', { with_bots: 'true' });
    expect(leaf).toMatchObject({
      root: ids.A,
      depth: 3,
      own: { clicks: 8 },
      downstream: { shares: 0, sharers: 0, clicks: 0, generations: 0 },
      generations: [],
      total_results: 0,
      children: [],
    });
    const second = await chainOf('A', { per_page: '1', page: '2' });
    expect((second.children as Body[]).map((c): unknown => c.svc_id)).toEqual([ids.E]);
    expect(second.total_results).toBe(2);
    const withConversions = await chainOf('A', { with_conversions: 'true' });
    expect(withConversions.own.conversions.pageviews).toBe(1);
    expect(withConversions.own.conversions.goal_total).toEqual({ count: 0, value: 0 });
    expect(withConversions.downstream.conversions.goal_1).toMatchObject({ count: 2, value: 150 });
    expect(withConversions.generations[0].conversions.goal_1).toMatchObject({
      count: 1,
      value: 100,
    });
    expect(withConversions.children[0].downstream.conversions.goal_1).toMatchObject({
      count: 1,
      value: 50,
    });
  });

  it('limits a cascade to its activity window', async () => {
    const later = await chainOf('A', {
      start_date: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
    });
    expect(later.own).toEqual({ clicks: 0 });
    expect(later.downstream).toEqual({ shares: 0, sharers: 0, clicks: 0, generations: 0 });
    expect(later.generations).toEqual([]);
    // The children are listed, without figures.
    expect(later.total_results).toBe(2);
  });

  it('answers 404 for a link of another project', async () => {
    const other = (await createProject(t)).api_key;
    const res = await t.http
      .get(`/stats/${ids.A}/chain.json`)
      .query({ v: '3', key: other })
      .expect(404);
    expect(res.body.error).toBe(404);
  });

  it('adds chain figures to range groups and totals, and sorts by them', async () => {
    const body = await range({
      group_by: 'channel',
      with_chain: 'true',
      sort_type: 'chain_clicks',
    });
    expect(body.with_chain).toBe(true);
    expect(body.totals).toEqual({
      clicks: 21,
      shares: 5,
      clicks_per_share: 4.2,
      chain: { shares: 4, clicks: 16, amplification: 0.7619 },
    });
    expect(body.groups).toEqual([
      // A's and E's descendants: B, C, D and E itself.
      {
        channel: 'twitter',
        clicks: 9,
        shares: 2,
        clicks_per_share: 4.5,
        chain: { shares: 4, clicks: 16, amplification: 1.7778 },
      },
      {
        channel: 'facebook',
        clicks: 3,
        shares: 1,
        clicks_per_share: 3,
        chain: { shares: 2, clicks: 9, amplification: 3 },
      },
      {
        channel: 'email',
        clicks: 2,
        shares: 1,
        clicks_per_share: 2,
        chain: { shares: 1, clicks: 7, amplification: 3.5 },
      },
      {
        channel: 'linkedin',
        clicks: 7,
        shares: 1,
        clicks_per_share: 7,
        chain: { shares: 0, clicks: 0, amplification: 0 },
      },
    ]);
    const byAmplification = await range({
      group_by: 'channel',
      with_chain: 'true',
      sort_type: 'amplification',
    });
    expect((byAmplification.groups as Body[]).map((g): unknown => g.channel)).toEqual([
      'email',
      'facebook',
      'twitter',
      'linkedin',
    ]);
  });

  it('counts each descendant once per group, in pivots too, with conversions', async () => {
    const body = await range({
      group_by: 'user_id',
      pivot: 'channel',
      with_chain: 'true',
      with_conversions: 'true',
      sort_type: 'chain_clicks',
    });
    const figures = (body.groups as Body[]).map((g): unknown => [
      g.user_id,
      g.clicks,
      g.chain.shares,
      g.chain.clicks,
      g.chain.conversions.goal_total.value,
      (g.pivots as Body[]).map((p): unknown => [p.channel, p.chain.clicks]),
    ]);
    expect(figures).toEqual([
      // u1 (A, E): B, C, D, E. u2 (B, C): C and D, D once though below both.
      ['u1', 9, 4, 16, 150, [['twitter', 16]]],
      [
        'u2',
        5,
        2,
        9,
        50,
        [
          ['facebook', 9],
          ['email', 7],
        ],
      ],
      ['u3', 7, 0, 0, 0, [['linkedin', 0]]],
    ]);
    expect(body.totals.chain.conversions.goal_total).toEqual({ count: 2, value: 150 });
  });

  it('credits every click and conversion to the root with attribution=first; shares stay', async () => {
    const body = await range({
      group_by: 'channel',
      attribution: 'first',
      with_conversions: 'true',
    });
    expect(body.attribution).toBe('first');
    expect(body.totals).toMatchObject({ clicks: 21, shares: 5 });
    expect(
      (body.groups as Body[]).map((g): unknown => [
        g.channel,
        g.clicks,
        g.shares,
        g.conversions.pageviews,
        g.conversions.goal_total.value,
      ]),
    ).toEqual([
      ['twitter', 21, 2, 1, 150],
      ['email', 0, 1, 0, 0],
      ['facebook', 0, 1, 0, 0],
      ['linkedin', 0, 1, 0, 0],
    ]);
    const filtered = await range({ channel: 'facebook', attribution: 'first' });
    expect(filtered.totals).toMatchObject({ clicks: 0, shares: 1 });
    const last = await range({ channel: 'facebook', attribution: 'last' });
    expect(last.totals).toMatchObject({ clicks: 3, shares: 1 });
    expect(last.attribution).toBe('last');
  });

  it('answers totals.json with all-time chains and first-touch credit', async () => {
    const chained = await get('/stats/totals.json', { group_by: 'channel', with_chain: 'true' });
    expect(chained.totals.chain).toEqual({ shares: 4, clicks: 16, amplification: 0.7619 });
    expect(
      (chained.groups as Body[]).map((g): unknown => [g.channel, g.clicks, g.chain.clicks]),
    ).toEqual([
      ['twitter', 9, 16],
      ['linkedin', 7, 0],
      ['facebook', 3, 9],
      ['email', 2, 7],
    ]);
    const first = await get('/stats/totals.json', { group_by: 'channel', attribution: 'first' });
    expect((first.groups as Body[]).map((g): unknown => [g.channel, g.clicks])).toEqual([
      ['twitter', 21],
      ['email', 0],
      ['facebook', 0],
      ['linkedin', 0],
    ]);
  });

  it('credits intervals to the root with attribution=first', async () => {
    const intervals = (path: string, params: Record<string, string>) =>
      get(path, { ...period, interval: 'day', ...params });
    const twitterFirst = await intervals('/stats/range/intervals.json', {
      channel: 'twitter',
      attribution: 'first',
    });
    expect(twitterFirst.totals.clicks).toBe(21);
    expect(twitterFirst.attribution).toBe('first');
    const twitterLast = await intervals('/stats/range/intervals.json', { channel: 'twitter' });
    expect(twitterLast.totals.clicks).toBe(9);
    expect(twitterLast).not.toHaveProperty('attribution');
    const rootFirst = await intervals(`/stats/${ids.A}/intervals.json`, { attribution: 'first' });
    expect(rootFirst.clicks).toBe(21);
    expect(rootFirst.attribution).toBe('first');
    const childFirst = await intervals(`/stats/${ids.B}/intervals.json`, { attribution: 'first' });
    expect(childFirst.clicks).toBe(0);
    const rootLast = await intervals(`/stats/${ids.A}/intervals.json`, {});
    expect(rootLast.clicks).toBe(5);
    expect(rootLast).not.toHaveProperty('attribution');
  });

  it('leaves answers without the new parameters as they were', async () => {
    const body = await range({ group_by: 'channel' });
    expect(body).not.toHaveProperty('with_chain');
    expect(body).not.toHaveProperty('attribution');
    expect(body.groups[0]).not.toHaveProperty('chain');
  });

  it('refuses what it cannot answer, naming the parameter', async () => {
    const refused = async (params: Record<string, string>, parameter: string) => {
      const res = await t.http
        .get('/stats/range.json')
        .query({ v: '3', key, ...period, ...params })
        .expect(400);
      expect(res.body.error_message).toContain(`Invalid parameter ${parameter}`);
    };
    await refused({ group_by: 'channel', sort_type: 'chain_clicks' }, 'sort_type');
    await refused(
      { group_by: 'channel', pivot: 'tag', pivot_sort_type: 'amplification' },
      'pivot_sort_type',
    );
    await refused({ attribution: 'middle' }, 'attribution');
    await refused({ with_chain: 'maybe' }, 'with_chain');
    await refused({ with_chain: 'true', attribution: 'first' }, 'attribution');
    await refused({ group_by: 'country', with_chain: 'true' }, 'with_chain');
    await refused({ device: 'mobile', attribution: 'first' }, 'attribution');
  });

  // Last: it moves B's subtree for good.
  it('moves a re-parented subtree with its figures: B under E', async () => {
    await t.http
      .post(`/url/update/${ids.B}.json`)
      .type('form')
      .send({ v: '3', key, tool: 'publisher-updater', parent: ids.E })
      .expect(200);
    // A→E→B→C→D: E's cascade is B, C and D once the job has moved them.
    let e: Body = {};
    await eventually('the chain-moves job', async () => {
      e = await chainOf('E');
      return e.downstream.clicks === 12;
    });
    expect(e).toMatchObject({
      root: ids.A,
      depth: 1,
      own: { clicks: 4 },
      downstream: { shares: 3, sharers: 2, clicks: 12, generations: 3 },
      generations: [
        { generation: 1, shares: 1, clicks: 3 },
        { generation: 2, shares: 1, clicks: 2 },
        { generation: 3, shares: 1, clicks: 7 },
      ],
    });
    const a = await chainOf('A');
    expect(a.downstream).toEqual({ shares: 4, sharers: 3, clicks: 16, generations: 4 });
    expect(a.generations).toEqual([
      { generation: 1, shares: 1, clicks: 4 },
      { generation: 2, shares: 1, clicks: 3 },
      { generation: 3, shares: 1, clicks: 2 },
      { generation: 4, shares: 1, clicks: 7 },
    ]);
    expect(a.children).toEqual([
      {
        svc_id: ids.E,
        channel: 'twitter',
        sharer_id: null,
        user_id: 'u1',
        own: { clicks: 4 },
        downstream: { shares: 3, sharers: 2, clicks: 12, generations: 3 },
      },
    ]);
    expect((await chainOf('D')).depth).toBe(4);
    const bySvc = await range({
      group_by: 'svc_id',
      with_chain: 'true',
      sort_type: 'chain_clicks',
    });
    expect(
      (bySvc.groups as Body[]).map((g): unknown => [g.svc_id, g.clicks, g.chain.clicks]),
    ).toEqual([
      [ids.A, 5, 16],
      [ids.E, 4, 12],
      [ids.B, 3, 9],
      [ids.C, 2, 7],
      [ids.D, 7, 0],
    ]);
    // Every click is still A's with attribution=first.
    const first = await range({ group_by: 'channel', attribution: 'first' });
    expect((first.groups as Body[])[0]).toMatchObject({ channel: 'twitter', clicks: 21 });
  });
});
