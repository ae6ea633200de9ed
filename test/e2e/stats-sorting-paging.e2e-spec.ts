import { TestApp, createTestApp } from '../support/app';
import {
  EMPTY_ECHO,
  NOVEMBER,
  StatsFixture,
  buildStatsFixture,
  conv,
  fig,
  groupValues,
  pivotValues,
} from '../factories/stats';

/**
 * Range (docs/api.md, "Statistics") over the fixture of test/factories/stats.ts: every sort_type
 * and pivot_sort_type in both orders, pagination, the echo, GET and POST, JSON-P.
 *
 * Channel groups in November: email 8 clicks, 1 share, last shared 11-05, goal_2 1/100;
 * twitter 5, 2, last shared 11-03, pageviews 3, goal_1 3/700; facebook-post 0, 1, last shared 11-06.
 */
describe('stats/range.json: sorting, paging, echo, forms', () => {
  let t: TestApp;
  let f: StatsFixture;
  beforeAll(async () => {
    t = await createTestApp();
    f = await buildStatsFixture(t);
  });
  afterAll(() => t.close());

  const range = (query: Record<string, string>) =>
    t.http.get('/stats/range.json').query({ v: '3', key: f.key, ...NOVEMBER, ...query });
  const period = { start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-08T00:00:00Z' };

  describe('sort_type on channel groups, both orders; ties by the group value ascending', () => {
    const E = 'email';
    const T = 'twitter';
    const F = 'facebook-post';
    const allTied = [E, F, T];
    // [sort_type, desc order, asc order]
    const cases: [string, string[], string[]][] = [
      ['clicks', [E, T, F], [F, T, E]],
      ['shares', [T, E, F], [E, F, T]],
      ['clicks_per_share', [E, T, F], [F, T, E]],
      ['alpha', [T, F, E], [E, F, T]],
      ['shared_at', [F, E, T], [T, E, F]],
      ['pageviews', [T, E, F], [E, F, T]],
      ['goal_1_count', [T, E, F], [E, F, T]],
      ['goal_1_value', [T, E, F], [E, F, T]],
      ['goal_2_count', [E, F, T], [F, T, E]],
      ['goal_2_value', [E, F, T], [F, T, E]],
      ['goal_3_count', allTied, allTied],
      ['goal_3_value', allTied, allTied],
      ['goal_4_count', allTied, allTied],
      ['goal_4_value', allTied, allTied],
      ['goal_5_count', allTied, allTied],
      ['goal_5_value', allTied, allTied],
      ['goal_total_count', [T, E, F], [F, E, T]],
      ['goal_total_value', [T, E, F], [F, E, T]],
    ];
    it.each(cases)('sort_type=%s', async (sortType, desc, asc) => {
      const down = await range({
        group_by: 'channel',
        with_conversions: 'true',
        sort_type: sortType,
      }).expect(200);
      expect([down.body.sort_type, down.body.sort_order]).toEqual([sortType, 'desc']);
      expect(groupValues(down.body, 'channel')).toEqual(desc);
      const up = await range({
        group_by: 'channel',
        with_conversions: 'true',
        sort_type: sortType,
        sort_order: 'asc',
      }).expect(200);
      expect([up.body.sort_type, up.body.sort_order]).toEqual([sortType, 'asc']);
      expect(groupValues(up.body, 'channel')).toEqual(asc);
    });

    it('the full rows of a conversion sort', async () => {
      const res = await range({
        group_by: 'channel',
        with_conversions: 'true',
        sort_type: 'goal_total_value',
        sort_order: 'ASC',
      }).expect(200);
      expect(res.body.sort_order).toBe('asc');
      expect(res.body.groups).toEqual([
        { channel: F, ...fig(0, 1, 0), conversions: conv(0) },
        { channel: E, ...fig(8, 1, 8), conversions: conv(0, { 2: [1, 100] }) },
        { channel: T, ...fig(5, 2, 2.5), conversions: conv(3, { 1: [3, 700] }) },
      ]);
    });

    it('null groups sort last in both orders, also on alpha', async () => {
      const desc = await range({ group_by: 'tag', sort_type: 'alpha' }).expect(200);
      expect(groupValues(desc.body, 'tag')).toEqual(['z', 'y', 'x', null]);
      const asc = await range({ group_by: 'tag', sort_type: 'alpha', sort_order: 'asc' }).expect(
        200,
      );
      expect(groupValues(asc.body, 'tag')).toEqual(['x', 'y', 'z', null]);
      const clicks = await range({ group_by: 'tag', sort_order: 'asc' }).expect(200);
      expect(groupValues(clicks.body, 'tag')).toEqual([null, 'y', 'z', 'x']);
    });

    it('alpha on shared_at_* groups sorts numerically', async () => {
      const res = await range({
        group_by: 'shared_at_hour_of_week',
        sort_type: 'alpha',
        sort_order: 'asc',
      }).expect(200);
      expect(groupValues(res.body, 'shared_at_hour_of_week')).toEqual([10, 32, 33, 87, 108]);
    });

    it('clicks_per_share is rounded to four decimals and sorts on the exact ratio', async () => {
      const res = await range({
        group_by: 'application',
        sort_type: 'clicks_per_share',
        sort_order: 'asc',
      }).expect(200);
      expect(res.body.groups).toEqual([
        { application: 'pub', ...fig(5, 3, 1.6667) },
        { application: 'mail', ...fig(8, 1, 8) },
      ]);
      const spring = await range({ campaign: 'spring' }).expect(200);
      expect(spring.body.totals).toEqual(fig(7, 3, 2.3333));
    });
  });

  describe('pivot_sort_type, both orders, within each group (groups stay clicks desc)', () => {
    type Order = (string | null)[][];
    // Pivot campaign per channel group [email, twitter, facebook-post]:
    // email: null (D) 5 clicks 0 shares shared 10-20; spring (C) 3, 1, shared 11-05, goal_2 1/100.
    // twitter: spring (A) 4, 1, shared 11-02, pageviews 3, goal_1 2/500; fall (B) 1, 1, shared 11-03, goal_1 1/200.
    const tied: Order = [['spring', null], ['fall', 'spring'], ['spring']];
    const cases: [string, Order, Order][] = [
      [
        'clicks',
        [[null, 'spring'], ['spring', 'fall'], ['spring']],
        [['spring', null], ['fall', 'spring'], ['spring']],
      ],
      [
        'shares',
        [['spring', null], ['fall', 'spring'], ['spring']],
        [[null, 'spring'], ['fall', 'spring'], ['spring']],
      ],
      [
        'clicks_per_share',
        [['spring', null], ['spring', 'fall'], ['spring']],
        [[null, 'spring'], ['fall', 'spring'], ['spring']],
      ],
      [
        'alpha',
        [['spring', null], ['spring', 'fall'], ['spring']],
        [['spring', null], ['fall', 'spring'], ['spring']],
      ],
      [
        'shared_at',
        [['spring', null], ['fall', 'spring'], ['spring']],
        [[null, 'spring'], ['spring', 'fall'], ['spring']],
      ],
      [
        'pageviews',
        [['spring', null], ['spring', 'fall'], ['spring']],
        [['spring', null], ['fall', 'spring'], ['spring']],
      ],
      [
        'goal_1_count',
        [['spring', null], ['spring', 'fall'], ['spring']],
        [['spring', null], ['fall', 'spring'], ['spring']],
      ],
      [
        'goal_1_value',
        [['spring', null], ['spring', 'fall'], ['spring']],
        [['spring', null], ['fall', 'spring'], ['spring']],
      ],
      [
        'goal_2_count',
        [['spring', null], ['fall', 'spring'], ['spring']],
        [[null, 'spring'], ['fall', 'spring'], ['spring']],
      ],
      [
        'goal_2_value',
        [['spring', null], ['fall', 'spring'], ['spring']],
        [[null, 'spring'], ['fall', 'spring'], ['spring']],
      ],
      ['goal_3_count', tied, tied],
      ['goal_3_value', tied, tied],
      ['goal_4_count', tied, tied],
      ['goal_4_value', tied, tied],
      ['goal_5_count', tied, tied],
      ['goal_5_value', tied, tied],
      [
        'goal_total_count',
        [['spring', null], ['spring', 'fall'], ['spring']],
        [[null, 'spring'], ['fall', 'spring'], ['spring']],
      ],
      [
        'goal_total_value',
        [['spring', null], ['spring', 'fall'], ['spring']],
        [[null, 'spring'], ['fall', 'spring'], ['spring']],
      ],
    ];
    it.each(cases)('pivot_sort_type=%s', async (sortType, desc, asc) => {
      const query = {
        group_by: 'channel',
        pivot: 'campaign',
        with_conversions: 'true',
        pivot_sort_type: sortType,
      };
      const down = await range(query).expect(200);
      expect([down.body.pivot_sort_type, down.body.pivot_sort_order]).toEqual([sortType, 'desc']);
      expect(groupValues(down.body, 'channel')).toEqual(['email', 'twitter', 'facebook-post']);
      expect(pivotValues(down.body, 'campaign')).toEqual(desc);
      const up = await range({ ...query, pivot_sort_order: 'asc' }).expect(200);
      expect([up.body.pivot_sort_type, up.body.pivot_sort_order]).toEqual([sortType, 'asc']);
      expect(pivotValues(up.body, 'campaign')).toEqual(asc);
    });

    it('sort_type and pivot_sort_type are independent', async () => {
      const res = await range({
        group_by: 'channel',
        pivot: 'campaign',
        sort_type: 'alpha',
        sort_order: 'asc',
        pivot_sort_type: 'shares',
        pivot_sort_order: 'asc',
      }).expect(200);
      expect(res.body.groups).toEqual([
        {
          channel: 'email',
          ...fig(8, 1, 8),
          pivots: [
            { campaign: null, ...fig(5, 0, 0) },
            { campaign: 'spring', ...fig(3, 1, 3) },
          ],
        },
        {
          channel: 'facebook-post',
          ...fig(0, 1, 0),
          pivots: [{ campaign: 'spring', ...fig(0, 1, 0) }],
        },
        {
          channel: 'twitter',
          ...fig(5, 2, 2.5),
          pivots: [
            { campaign: 'fall', ...fig(1, 1, 1) },
            { campaign: 'spring', ...fig(4, 1, 4) },
          ],
        },
      ]);
    });
  });

  describe('pagination (svc_id groups by clicks: D 5, A 4, C 3, B 1, E 0)', () => {
    const page = (query: Record<string, string>) => range({ group_by: 'svc_id', ...query });
    const paging = (body: Record<string, unknown>) => [
      body.page,
      body.per_page,
      body.offset,
      body.last_offset,
      body.total_results,
    ];

    it('page and per_page', async () => {
      const one = await page({ per_page: '2' }).expect(200);
      expect(groupValues(one.body, 'svc_id')).toEqual([f.ids.D, f.ids.A]);
      expect(paging(one.body)).toEqual([1, 2, 0, 2, 5]);
      const two = await page({ per_page: '2', page: '2' }).expect(200);
      expect(groupValues(two.body, 'svc_id')).toEqual([f.ids.C, f.ids.B]);
      expect(paging(two.body)).toEqual([2, 2, 2, 4, 5]);
      const three = await page({ per_page: '2', page: '3' }).expect(200);
      expect(three.body.groups).toEqual([{ svc_id: f.ids.E, ...fig(0, 1, 0) }]);
      expect(paging(three.body)).toEqual([3, 2, 4, 5, 5]);
      const past = await page({ per_page: '2', page: '4' }).expect(200);
      expect(past.body.groups).toEqual([]);
      expect(paging(past.body)).toEqual([4, 2, 6, 6, 5]);
      expect(past.body.totals).toEqual(fig(13, 4, 3.25));
    });

    it('per_page defaults to 10 and page to 1', async () => {
      const res = await page({}).expect(200);
      expect(paging(res.body)).toEqual([1, 10, 0, 5, 5]);
      expect(groupValues(res.body, 'svc_id')).toEqual([
        f.ids.D,
        f.ids.A,
        f.ids.C,
        f.ids.B,
        f.ids.E,
      ]);
    });

    it('offset continues from last_offset and overrides page (echoed as null)', async () => {
      const first = await page({ per_page: '3', offset: '1' }).expect(200);
      expect(groupValues(first.body, 'svc_id')).toEqual([f.ids.A, f.ids.C, f.ids.B]);
      expect(paging(first.body)).toEqual([null, 3, 1, 4, 5]);
      const next = await page({ per_page: '3', offset: String(first.body.last_offset) }).expect(
        200,
      );
      expect(next.body.groups).toEqual([{ svc_id: f.ids.E, ...fig(0, 1, 0) }]);
      expect(paging(next.body)).toEqual([null, 3, 4, 5, 5]);
      const end = await page({ per_page: '3', offset: '5' }).expect(200);
      expect(end.body.groups).toEqual([]);
      expect(paging(end.body)).toEqual([null, 3, 5, 5, 5]);
      const both = await page({ per_page: '2', page: '3', offset: '0' }).expect(200);
      expect(groupValues(both.body, 'svc_id')).toEqual([f.ids.D, f.ids.A]);
      expect(paging(both.body)).toEqual([null, 2, 0, 2, 5]);
    });

    it('pages follow the sort order, and pivots come for the page groups only', async () => {
      const res = await page({
        per_page: '2',
        page: '2',
        sort_order: 'asc',
        pivot: 'channel',
      }).expect(200);
      expect(res.body.groups).toEqual([
        { svc_id: f.ids.C, ...fig(3, 1, 3), pivots: [{ channel: 'email', ...fig(3, 1, 3) }] },
        { svc_id: f.ids.A, ...fig(4, 1, 4), pivots: [{ channel: 'twitter', ...fig(4, 1, 4) }] },
      ]);
      expect(paging(res.body)).toEqual([2, 2, 2, 4, 5]);
    });

    it('without group_by: no groups, total_results 0, last_offset equals offset', async () => {
      const res = await range({ per_page: '2', page: '3' }).expect(200);
      expect(res.body).toEqual({
        ...EMPTY_ECHO,
        ...period,
        page: 3,
        per_page: 2,
        offset: 4,
        last_offset: 4,
        totals: fig(13, 4, 3.25),
      });
    });
  });

  describe('echo', () => {
    it('every field, unused values null', async () => {
      const res = await range({}).expect(200);
      expect(res.body).toEqual({ ...EMPTY_ECHO, ...period, totals: fig(13, 4, 3.25) });
      // sort and pivot sort parameters without group_by / pivot are unused: null.
      const unused = await range({
        sort_type: 'shares',
        sort_order: 'asc',
        pivot_sort_type: 'alpha',
        group_by: 'tag',
      }).expect(200);
      expect([
        unused.body.sort_type,
        unused.body.sort_order,
        unused.body.pivot,
        unused.body.pivot_sort_type,
        unused.body.pivot_sort_order,
      ]).toEqual(['shares', 'asc', null, null, null]);
    });

    it('every field set; dates rounded to the hour (start down, end up)', async () => {
      const res = await t.http
        .get('/stats/range.json')
        .query({
          v: '3',
          key: f.key,
          start_date: '2026-11-02T10:30:00Z',
          end_date: '2026-11-02T11:10:00Z',
          group_by: 'channel',
          sort_type: 'alpha',
          sort_order: 'asc',
          pivot: 'tag',
          pivot_sort_type: 'shares',
          pivot_sort_order: 'asc',
          with_zeros: 'True',
          with_metadata: 'FALSE',
          with_conversions: 'true',
          per_page: '5',
          page: '1',
        })
        .expect(200);
      expect(res.body).toEqual({
        start_date: '2026-11-02T10:00:00Z',
        end_date: '2026-11-02T12:00:00Z',
        with_metadata: false,
        with_conversions: true,
        with_zeros: true,
        filters: [],
        group_by: 'channel',
        sort_type: 'alpha',
        sort_order: 'asc',
        pivot: 'tag',
        pivot_sort_type: 'shares',
        pivot_sort_order: 'asc',
        page: 1,
        per_page: 5,
        offset: 0,
        last_offset: 1,
        total_results: 1,
        // A: shared 10:00, 4 clicks at 11:00 (its conversions are at 12:00, outside).
        totals: { ...fig(4, 1, 4), conversions: conv(0) },
        groups: [
          {
            channel: 'twitter',
            ...fig(4, 1, 4),
            conversions: conv(0),
            pivots: [{ tag: 'x', ...fig(4, 1, 4), conversions: conv(0) }],
          },
        ],
      });
    });
  });

  describe('GET and POST forms, JSON-P', () => {
    const query = {
      group_by: 'campaign',
      pivot: 'channel',
      with_zeros: 'true',
      with_metadata: 'true',
      campaign: 'spring',
    };

    it('POST with a form body answers as GET', async () => {
      const get = await range(query).expect(200);
      const post = await t.http
        .post('/stats/range.json')
        .type('form')
        .send({ v: '3', key: f.key, ...NOVEMBER, ...query })
        .expect(200);
      expect(post.body).toEqual(get.body);
      expect(post.body.groups).toEqual([
        {
          campaign: 'spring',
          ...fig(7, 3, 2.3333),
          metadata: { name: 'Spring Sale', description: 'Spring sale' },
          pivots: [
            { channel: 'twitter', ...fig(4, 1, 4) },
            { channel: 'email', ...fig(3, 1, 3) },
            { channel: 'facebook-post', ...fig(0, 1, 0) },
          ],
        },
      ]);
      const mixed = await t.http
        .post('/stats/range.json')
        .query({ v: '3', key: f.key })
        .type('form')
        .send({ ...NOVEMBER, ...query })
        .expect(200);
      expect(mixed.body).toEqual(get.body);
    });

    it('POST on totals answers as GET', async () => {
      const get = await t.http
        .get('/stats/totals.json')
        .query({ v: '3', key: f.key, ...NOVEMBER, group_by: 'tag' })
        .expect(200);
      const post = await t.http
        .post('/stats/totals.json')
        .type('form')
        .send({ v: '3', key: f.key, ...NOVEMBER, group_by: 'tag' })
        .expect(200);
      expect(post.body).toEqual(get.body);
    });

    it('callback wraps the body as JSON-P, on GET and POST, range and totals', async () => {
      const plain = await range({ group_by: 'tag' }).expect(200);
      const jsonp = await range({ group_by: 'tag', callback: 'show.stats' }).expect(200);
      expect(jsonp.headers['content-type']).toBe('application/javascript; charset=utf-8');
      expect(jsonp.text).toBe(`show.stats(${JSON.stringify(plain.body)});`);
      const post = await t.http
        .post('/stats/range.json')
        .type('form')
        .send({ v: '3', key: f.key, ...NOVEMBER, group_by: 'tag', callback: 'cb' })
        .expect(200);
      expect(post.text).toBe(`cb(${JSON.stringify(plain.body)});`);
      const totals = await t.http
        .get('/stats/totals.json')
        .query({ v: '3', key: f.key, ...NOVEMBER, callback: '$cb' })
        .expect(200);
      expect(totals.text).toMatch(/^\$cb\(\{.*\}\);$/);
      expect(JSON.parse(totals.text.slice(4, -2))).toEqual({
        ...EMPTY_ECHO,
        ...period,
        totals: fig(14, 4, 3.5),
      });
    });

    it('errors come back as JSON-P too', async () => {
      const res = await range({ group_by: 'colour', callback: 'cb' }).expect(400);
      expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
      expect(res.text).toMatch(
        /^cb\(\{"error":400,"error_message":"Invalid parameter group_by: must be one of [^"]+"\}\);$/,
      );
    });
  });
});
