import { clickRollup, conversionRollup, setCreatedAt } from '../factories/stats';
import { TestApp, createTestApp } from '../support/app';
import { createProject } from '../factories/projects';

/**
 * Fixture: five links of one project with hourly rollups written as the click job writes them.
 *   A twitter/spring tag x, shared 2026-11-02 (Mon) 10:00: 4 clicks on 11-02, 6 on 11-10
 *   B twitter/fall  tag y, shared 2026-11-03 (Tue) 09:00: 1 click on 11-03
 *   C email/spring  tag x, shared 2026-11-05 (Thu) 15:00: 3 clicks on 11-05 (+2 bots)
 *   D email/-       tag z, shared 2026-10-20: 5 clicks on 11-04 (activity in November, shared before)
 *   E facebook-post/spring, shared 2026-11-06: no clicks
 */
describe('stats/range.json and stats/totals.json', () => {
  let t: TestApp;
  let key: string;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createProject(t, { conversions: { enabled: true, goal_1_label: 'Signup' } }))
      .api_key;
    const make = async (name: string, extra: Record<string, string>, sharedAt: string) => {
      const res = await t.http
        .get('/url.json')
        .query({ v: '3', key, tool: 'pub-bar', url: `https://example.com/${name}`, ...extra })
        .expect(200);
      ids[name] = res.body.svc_id;
      await setCreatedAt(t, res.body.svc_id, sharedAt);
    };
    await make(
      'A',
      { channel: 'twitter', campaign: 'spring', campaign_description: 'Spring', tag: 'x' },
      '2026-11-02T10:00:00Z',
    );
    await make(
      'B',
      { channel: 'twitter', campaign: 'fall', campaign_description: 'Fall', tag: 'y' },
      '2026-11-03T09:00:00Z',
    );
    await make('C', { channel: 'email', campaign: 'spring', tag: 'x' }, '2026-11-05T15:00:00Z');
    await make('D', { channel: 'email', tag: 'z' }, '2026-10-20T08:00:00Z');
    await make('E', { channel: 'facebook-post', campaign: 'spring' }, '2026-11-06T12:00:00Z');
    const rollup = async (name: string, hour: string, clicks: number, bots = 0) =>
      clickRollup(t, ids[name], hour, clicks, bots);
    await rollup('A', '2026-11-02T11:00:00Z', 4);
    await rollup('A', '2026-11-10T11:00:00Z', 6);
    await rollup('B', '2026-11-03T10:00:00Z', 1);
    await rollup('C', '2026-11-05T16:00:00Z', 3, 2);
    await rollup('D', '2026-11-04T09:00:00Z', 5);
    await conversionRollup(t, ids.A, '2026-11-02T12:00:00Z', 'goal_1', 2, 500);
  });
  afterAll(() => t.close());

  const range = (query: Record<string, string>) =>
    t.http.get('/stats/range.json').query({ v: '3', key, ...query });
  const totals = (query: Record<string, string>) =>
    t.http.get('/stats/totals.json').query({ v: '3', key, ...query });

  it('range: totals and the full echo, no groups without group_by', async () => {
    const res = await range({ start_date: '2026-11-01', end_date: '2026-11-08' }).expect(200);
    expect(res.body).toEqual({
      start_date: '2026-11-01T00:00:00Z',
      end_date: '2026-11-08T00:00:00Z',
      with_metadata: false,
      with_conversions: false,
      with_zeros: false,
      filters: [],
      group_by: null,
      sort_type: null,
      sort_order: null,
      pivot: null,
      pivot_sort_type: null,
      pivot_sort_order: null,
      page: 1,
      per_page: 10,
      offset: 0,
      last_offset: 0,
      total_results: 0,
      totals: { clicks: 13, shares: 4, clicks_per_share: 3.25 },
      groups: [],
    });
  });

  it('range: group_by channel sorted by clicks, with a campaign pivot', async () => {
    const res = await range({
      start_date: '2026-11-01',
      end_date: '2026-11-08',
      group_by: 'channel',
      pivot: 'campaign',
    }).expect(200);
    expect(res.body.total_results).toBe(3);
    expect(res.body.groups).toEqual([
      {
        channel: 'email',
        clicks: 8,
        shares: 1,
        clicks_per_share: 8,
        pivots: [
          { campaign: null, clicks: 5, shares: 0, clicks_per_share: 0 },
          { campaign: 'spring', clicks: 3, shares: 1, clicks_per_share: 3 },
        ],
      },
      {
        channel: 'twitter',
        clicks: 5,
        shares: 2,
        clicks_per_share: 2.5,
        pivots: [
          { campaign: 'spring', clicks: 4, shares: 1, clicks_per_share: 4 },
          { campaign: 'fall', clicks: 1, shares: 1, clicks_per_share: 1 },
        ],
      },
      {
        channel: 'facebook-post',
        clicks: 0,
        shares: 1,
        clicks_per_share: 0,
        pivots: [{ campaign: 'spring', clicks: 0, shares: 1, clicks_per_share: 0 }],
      },
    ]);
  });

  it('range: filters, alpha sort, pagination and the filters echo with metadata', async () => {
    const res = await range({
      start_date: '2026-11-01',
      end_date: '2026-11-30',
      campaign: 'spring',
      group_by: 'tag',
      sort_type: 'alpha',
      sort_order: 'asc',
      per_page: '1',
      page: '2',
      with_metadata: 'true',
    }).expect(200);
    expect(res.body.filters).toEqual({
      campaign: 'spring',
      campaign_metadata: { name: 'spring', description: 'Spring' },
    });
    expect(res.body.totals).toEqual({ clicks: 13, shares: 3, clicks_per_share: 4.3333 });
    expect(res.body.total_results).toBe(2);
    // Alphabetical, links without a tag last.
    expect(res.body.groups).toEqual([
      { tag: null, clicks: 0, shares: 1, clicks_per_share: 0, metadata: null },
    ]);
    expect([res.body.page, res.body.offset, res.body.last_offset]).toEqual([2, 1, 2]);
    const next = await range({
      start_date: '2026-11-01',
      end_date: '2026-11-30',
      campaign: 'spring',
      group_by: 'tag',
      sort_type: 'alpha',
      sort_order: 'asc',
      per_page: '1',
      offset: '0',
    }).expect(200);
    expect(next.body.groups).toEqual([{ tag: 'x', clicks: 13, shares: 2, clicks_per_share: 6.5 }]);
    expect(next.body.page).toBeNull();
  });

  it('range: conversions on totals and groups, and conversion sorts', async () => {
    const res = await range({
      start_date: '2026-11-01',
      end_date: '2026-11-08',
      group_by: 'campaign',
      with_conversions: 'true',
      sort_type: 'goal_1_value',
    }).expect(200);
    expect(res.body.totals.conversions.goal_1).toEqual({ count: 2, value: 500, label: 'Signup' });
    expect(res.body.groups[0].campaign).toBe('spring');
    expect(res.body.groups[0].conversions.goal_total).toEqual({ count: 2, value: 500 });
    const refused = await range({ group_by: 'campaign', sort_type: 'pageviews' }).expect(400);
    expect(refused.body).toEqual({
      error: 400,
      error_message: 'Invalid parameter sort_type: pageviews needs with_conversions=true',
    });
  });

  it('range: conversions and clicks of the period on the filtered links only, each link a share once', async () => {
    // Its own project:
    //   P twitter tag t1, shared before the period: conversions only (in the period and before it)
    //   Q email   tag t1, shared in it: clicks in two hours, pageviews
    //   R email   tag t2, shared in it: clicks and conversions, left out by the tag filter
    //   S sms     tag t1, shared before the period, active only before it: no group
    const own = (await createProject(t, { conversions: { enabled: true, goal_2_label: 'Buy' } }))
      .api_key;
    const link = async (channel: string, tag: string, sharedAt: string): Promise<string> => {
      const res = await t.http
        .get('/url.json')
        .query({ v: '3', key: own, tool: 'pub-bar', url: 'https://example.com/c', channel, tag })
        .expect(200);
      await setCreatedAt(t, res.body.svc_id, sharedAt);
      return res.body.svc_id as string;
    };
    const p = await link('twitter', 't1', '2026-10-20T08:00:00Z');
    const q = await link('email', 't1', '2026-11-02T08:00:00Z');
    const r = await link('email', 't2', '2026-11-03T08:00:00Z');
    const s = await link('sms', 't1', '2026-10-01T08:00:00Z');
    const clicks = (svcId: string, hour: string, n: number) => clickRollup(t, svcId, hour, n);
    const conversions = (svcId: string, hour: string, type: string, count: number, value: number) =>
      conversionRollup(t, svcId, hour, type, count, value);
    await clicks(q, '2026-11-02T09:00:00Z', 4);
    await clicks(q, '2026-11-05T09:00:00Z', 2);
    await clicks(r, '2026-11-04T09:00:00Z', 7);
    await clicks(s, '2026-10-02T09:00:00Z', 8);
    await conversions(s, '2026-10-02T10:00:00Z', 'pageview', 2, 0);
    await conversions(p, '2026-11-03T10:00:00Z', 'pageview', 3, 0);
    await conversions(p, '2026-11-03T10:00:00Z', 'goal_2', 1, 700);
    await conversions(p, '2026-10-25T10:00:00Z', 'goal_2', 9, 900);
    await conversions(q, '2026-11-02T10:00:00Z', 'pageview', 5, 0);
    await conversions(r, '2026-11-04T10:00:00Z', 'goal_2', 4, 100);
    const res = await t.http
      .get('/stats/range.json')
      .query({
        v: '3',
        key: own,
        start_date: '2026-11-01',
        end_date: '2026-11-08',
        tag: 't1',
        group_by: 'channel',
        with_conversions: 'true',
      })
      .expect(200);
    type Figures = {
      clicks: number;
      shares: number;
      conversions: Record<string, { count: number; value: number } | number>;
    };
    const figures = (body: Figures) => ({
      clicks: body.clicks,
      shares: body.shares,
      pageviews: body.conversions.pageviews,
      goal_2: body.conversions.goal_2,
      goal_total: body.conversions.goal_total,
    });
    expect(figures(res.body.totals)).toEqual({
      clicks: 6,
      shares: 1,
      pageviews: 8,
      goal_2: { count: 1, value: 700, label: 'Buy' },
      goal_total: { count: 1, value: 700 },
    });
    expect(res.body.total_results).toBe(2);
    expect(
      (res.body.groups as (Figures & { channel: string })[]).map((g) => [g.channel, figures(g)]),
    ).toEqual([
      [
        'email',
        {
          clicks: 6,
          shares: 1,
          pageviews: 5,
          goal_2: { count: 0, value: 0, label: 'Buy' },
          goal_total: { count: 0, value: 0 },
        },
      ],
      [
        'twitter',
        {
          clicks: 0,
          shares: 0,
          pageviews: 3,
          goal_2: { count: 1, value: 700, label: 'Buy' },
          goal_total: { count: 1, value: 700 },
        },
      ],
    ]);
  });

  it('totals: links shared in the period with all-time clicks; shared_at groups', async () => {
    const res = await totals({
      start_date: '2026-11-01',
      end_date: '2026-11-08',
      group_by: 'shared_at_day_of_week',
      sort_type: 'alpha',
      sort_order: 'asc',
    }).expect(200);
    expect(res.body.totals).toEqual({ clicks: 14, shares: 4, clicks_per_share: 3.5 });
    expect(res.body.groups).toEqual([
      { shared_at_day_of_week: 0, clicks: 10, shares: 1, clicks_per_share: 10 },
      { shared_at_day_of_week: 1, clicks: 1, shares: 1, clicks_per_share: 1 },
      { shared_at_day_of_week: 3, clicks: 3, shares: 1, clicks_per_share: 3 },
      { shared_at_day_of_week: 4, clicks: 0, shares: 1, clicks_per_share: 0 },
    ]);
    const hours = await totals({
      start_date: '2026-11-01',
      end_date: '2026-11-08',
      shared_at_hour_of_week: '10',
    }).expect(200);
    expect(hours.body.totals).toEqual({ clicks: 10, shares: 1, clicks_per_share: 10 });
  });

  it('refuses bad group, pivot, sort and pagination parameters, naming them', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ group_by: 'colour' }, 'Invalid parameter group_by: must be one of '],
      [{ pivot: 'tag' }, 'Invalid parameter pivot: needs group_by'],
      [{ group_by: 'tag', pivot: 'tag' }, 'Invalid parameter pivot: cannot be the group_by field'],
      [
        { group_by: 'tag', pivot: 'channel', channel: 'email' },
        'Invalid parameter pivot: cannot be a filtered field',
      ],
      [{ group_by: 'tag', sort_type: 'size' }, 'Invalid parameter sort_type: must be one of '],
      [{ group_by: 'tag', sort_order: 'up' }, 'Invalid parameter sort_order: must be asc or desc'],
      [{ per_page: '0' }, 'Invalid parameter per_page: must be an integer from 1 to 1000'],
      [{ page: '0' }, 'Invalid parameter page: must be an integer from 1 to 1000000'],
      [
        { shared_at_hour_of_day: '24' },
        'Invalid parameter shared_at_hour_of_day: must be an integer from 0 to 23',
      ],
    ];
    for (const [query, message] of cases) {
      const res = await range(query).expect(400);
      expect(res.body.error).toBe(400);
      expect(res.body.error_message).toEqual(
        expect.stringMatching(new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)),
      );
    }
    const domain = await totals({ group_by: 'domain' }).expect(400);
    expect(domain.body.error_message).toEqual(
      expect.stringMatching(/^Invalid parameter group_by: must be one of /),
    );
    // Range has no earliest start_date (docs/api.md, "Statistics", bounds link intervals and
    // totals only).
    const old = await range({ start_date: '2010-01-01', end_date: '2026-11-08' }).expect(200);
    expect(old.body.start_date).toBe('2010-01-01T00:00:00Z');
    expect(old.body.totals).toEqual({ clicks: 13, shares: 5, clicks_per_share: 2.6 });
    const early = await totals({ start_date: '2011-08-01' }).expect(400);
    expect(early.body.error_message).toBe('Invalid parameter start_date: must be after 2011-09-01');
    const goal6 = await range({
      group_by: 'tag',
      with_conversions: 'true',
      sort_type: 'goal_6_count',
    }).expect(400);
    expect(goal6.body.error_message).toEqual(
      expect.stringMatching(/^Invalid parameter sort_type: must be one of /),
    );
    await totals({ group_by: 'tag', with_conversions: 'true', sort_type: 'goal_6_count' }).expect(
      200,
    );
    await range({ key: 'nope' }).expect(403);
  });
});
