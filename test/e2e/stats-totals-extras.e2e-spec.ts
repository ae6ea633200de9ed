import { SubscriptionsService } from '../../src/subscriptions/subscriptions.service';
import { TestApp, createTestApp } from '../support/app';
import { createProject } from '../factories/projects';
import { form } from '../factories/links';
import {
  EMPTY_ECHO,
  NOVEMBER,
  StatsFixture,
  buildStatsFixture,
  clickRollup,
  conv,
  conversionRollup,
  fig,
  groupValues,
  setCreatedAt,
  statsLink,
} from '../factories/stats';

/**
 * Totals (docs/api.md, "Statistics"): all-time figures of the links shared in the period.
 *
 * P1 is the fixture project of test/factories/stats.ts (November shares A, B, C, E: all-time
 * clicks 10, 1, 3, 0). P2, in the same subscription, holds (all twitter, tool pub-bar):
 *
 * | link | shared                                   | how shared                                  | tags                        | clicks (bots)    |
 * |------|------------------------------------------|---------------------------------------------|-----------------------------|------------------|
 * | K1   | 2026-11-04 Wed 20:00 (h/w 68)            | created                                     | tag_2 solo, tag_3 [a, b]    | 2 + 7 in December |
 * | K2   | 2026-11-01 Sun 23:30 (h/w 167)           | created                                     | tag_4 [q]                   | 3                |
 * | K3   | 2026-11-02 Mon 00:10 (h/w 0)             | created                                     | tag_3 [b] → updated to [c]; tag_5 z5 | 1       |
 * | K4   | 2026-11-03 Tue 07:00 (h/w 31)            | service_postid_shared_at; created 2026-12-15 | -                           | 4 (+1)           |
 * | K5   | 2026-12-02 Wed 12:00                     | service_postid_shared_at; created 2026-11-03 | -                           | 6                |
 *
 * K1 also has goal_7 1/70. P3 belongs to another subscription.
 */
describe('stats/totals.json: extras', () => {
  let t: TestApp;
  let f: StatsFixture;
  let p2: string;
  let p3: string;
  const k: Record<string, string> = {};
  beforeAll(async () => {
    t = await createTestApp();
    f = await buildStatsFixture(t);
    p2 = (await createProject(t)).api_key;
    k.K1 = await statsLink(
      t,
      p2,
      { url: 'https://example.com/k1', tag_2: 'solo' },
      '2026-11-04T20:00:00Z',
      form([
        ['tag_3[]', 'a'],
        ['tag_3[]', 'b'],
      ]),
    );
    k.K2 = await statsLink(
      t,
      p2,
      { url: 'https://example.com/k2' },
      '2026-11-01T23:30:00Z',
      form([['tag_4[]', 'q']]),
    );
    k.K3 = await statsLink(
      t,
      p2,
      { url: 'https://example.com/k3' },
      undefined,
      form([['tag_3[]', 'b']]),
    );
    const update = (svcId: string, params: Record<string, string>, query = '') =>
      t.http
        .post(`/url/update/${svcId}.json${query ? `?${query}` : ''}`)
        .type('form')
        .send({ v: '3', key: p2, tool: 'pub-bar', ...params });
    const updated = await update(k.K3, { tag_5: 'z5' }, form([['tag_3[]', 'c']]));
    expect(updated.status).toBe(200);
    await setCreatedAt(t, k.K3, '2026-11-02T00:10:00Z');
    k.K4 = await statsLink(t, p2, { url: 'https://example.com/k4' });
    expect(
      (
        await update(k.K4, {
          service_postid: 'twitter:77',
          service_postid_shared_at: '2026-11-03T07:00:00Z',
        })
      ).status,
    ).toBe(200);
    await setCreatedAt(t, k.K4, '2026-12-15T08:00:00Z');
    k.K5 = await statsLink(t, p2, { url: 'https://example.com/k5' });
    expect((await update(k.K5, { service_postid_shared_at: '2026-12-02 12:00:00' })).status).toBe(
      200,
    );
    await setCreatedAt(t, k.K5, '2026-11-03T12:00:00Z');
    await clickRollup(t, k.K1, '2026-11-04T21:00:00Z', 2);
    await clickRollup(t, k.K1, '2026-12-01T10:00:00Z', 7);
    await clickRollup(t, k.K2, '2026-11-02T00:00:00Z', 3);
    await clickRollup(t, k.K3, '2026-11-02T01:00:00Z', 1);
    await clickRollup(t, k.K4, '2026-12-16T09:00:00Z', 4, 1);
    await clickRollup(t, k.K5, '2026-12-03T09:00:00Z', 6);
    await conversionRollup(t, k.K1, '2026-11-05T00:00:00Z', 'goal_7', 1, 70);
    const other = await t.app.get(SubscriptionsService).createSubscription('other');
    const res = await t.http
      .post('/projects/new')
      .type('form')
      .send({
        subscription_key: other.subscriptionKey,
        application_key: other.applicationKey,
        json: JSON.stringify({ name: 'elsewhere' }),
      })
      .expect(200);
    p3 = (res.body as { response: { project: { api_key: string } } }).response.project.api_key;
  });
  afterAll(() => t.close());

  const totals = (key: string, query: Record<string, string> = {}, raw = '') =>
    t.http
      .get(`/stats/totals.json${raw ? `?${raw}` : ''}`)
      .query({ v: '3', key, ...NOVEMBER, ...query });
  const period = { start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-08T00:00:00Z' };

  it('all-time clicks of the links shared in the period, with the full echo', async () => {
    const res = await totals(f.key).expect(200);
    expect(res.body).toEqual({ ...EMPTY_ECHO, ...period, totals: fig(14, 4, 3.5) });
    const p2Totals = await totals(p2).expect(200);
    expect(p2Totals.body.totals).toEqual(fig(17, 4, 4.25));
  });

  it('service_postid_shared_at is used instead of created_at', async () => {
    const november = await totals(p2, {
      group_by: 'svc_id',
      sort_type: 'alpha',
      sort_order: 'asc',
    }).expect(200);
    expect(groupValues(november.body, 'svc_id')).toEqual([k.K1, k.K2, k.K3, k.K4].sort());
    const december = await totals(p2, {
      start_date: '2026-12-01',
      end_date: '2027-01-01',
      group_by: 'svc_id',
    }).expect(200);
    expect(december.body.totals).toEqual(fig(6, 1, 6));
    expect(december.body.groups).toEqual([{ svc_id: k.K5, ...fig(6, 1, 6) }]);
  });

  it('bots are left out unless with_bots=true', async () => {
    expect((await totals(p2, { svc_id: k.K4 }).expect(200)).body.totals).toEqual(fig(4, 1, 4));
    expect((await totals(p2, { svc_id: k.K4, with_bots: 'true' }).expect(200)).body.totals).toEqual(
      fig(5, 1, 5),
    );
    expect((await totals(p2, { with_bots: 'TRUE' }).expect(200)).body.totals).toEqual(
      fig(18, 4, 4.5),
    );
    // P1: A has 1 bot click, C 2.
    expect((await totals(f.key, { with_bots: 'true' }).expect(200)).body.totals).toEqual(
      fig(17, 4, 4.25),
    );
  });

  describe('tag_2 … tag_5: multi-value tag fields, set at create and changed at update', () => {
    const cases: [string, string, ReturnType<typeof fig>][] = [
      ['tag_2=solo', form([['tag_2', 'solo']]), fig(9, 1, 9)], // K1
      ['tag_3=a', form([['tag_3', 'a']]), fig(9, 1, 9)], // K1
      ['tag_3[]=a', form([['tag_3[]', 'a']]), fig(9, 1, 9)], // K1, multiple-value form
      ['tag_3=b', form([['tag_3', 'b']]), fig(9, 1, 9)], // K1 only: K3's b was replaced
      ['tag_3=c', form([['tag_3', 'c']]), fig(1, 1, 1)], // K3 after its update
      ['tag_3=A', form([['tag_3', 'A']]), fig(0, 0, 0)], // case-sensitive
      ['tag_4[]=q', form([['tag_4[]', 'q']]), fig(3, 1, 3)], // K2
      ['tag_5=z5', form([['tag_5', 'z5']]), fig(1, 1, 1)], // K3, set at update
      [
        'tag_2=solo&tag_3=a',
        form([
          ['tag_2', 'solo'],
          ['tag_3', 'a'],
        ]),
        fig(9, 1, 9),
      ],
      [
        'tag_2=solo&tag_3=c',
        form([
          ['tag_2', 'solo'],
          ['tag_3', 'c'],
        ]),
        fig(0, 0, 0),
      ],
    ];
    it.each(cases)('%s', async (_, raw, expected) => {
      const res = await totals(p2, {}, raw).expect(200);
      expect(res.body.totals).toEqual(expected);
    });

    it('group_by a multi-value tag field: a link counts under each of its values, totals once', async () => {
      const res = await totals(p2, {
        group_by: 'tag_3',
        sort_type: 'alpha',
        sort_order: 'asc',
      }).expect(200);
      expect(res.body.totals).toEqual(fig(17, 4, 4.25)); // K1 9, K2 3, K3 1, K4 4: each once
      expect(res.body.total_results).toBe(4);
      expect(res.body.groups).toEqual([
        { tag_3: 'a', ...fig(9, 1, 9) }, // K1
        { tag_3: 'b', ...fig(9, 1, 9) }, // K1 (K3's b was replaced)
        { tag_3: 'c', ...fig(1, 1, 1) }, // K3
        { tag_3: null, ...fig(7, 2, 3.5) }, // K2 and K4 have no tag_3
      ]);
    });

    it('group_by a multi-value tag field under a filter on it, and as a pivot with zeros', async () => {
      const filtered = await totals(p2, { group_by: 'tag_3' }, form([['tag_3', 'a']])).expect(200);
      expect(filtered.body.totals).toEqual(fig(9, 1, 9));
      expect(filtered.body.groups).toEqual([
        { tag_3: 'a', ...fig(9, 1, 9) },
        { tag_3: 'b', ...fig(9, 1, 9) },
      ]);
      const pivoted = await totals(p2, {
        group_by: 'shared_at_day_of_week',
        sort_type: 'alpha',
        sort_order: 'asc',
        pivot: 'tag_3',
        pivot_sort_type: 'alpha',
        pivot_sort_order: 'asc',
        with_zeros: 'true',
      }).expect(200);
      expect(pivoted.body.totals).toEqual(fig(17, 4, 4.25));
      const pivots = (b: number, c: number, a: number, none: number) => [
        { tag_3: 'a', ...fig(a, a ? 1 : 0, a ? a : 0) },
        { tag_3: 'b', ...fig(b, b ? 1 : 0, b ? b : 0) },
        { tag_3: 'c', ...fig(c, c ? 1 : 0, c ? c : 0) },
        { tag_3: null, ...fig(none, none ? 1 : 0, none ? none : 0) },
      ];
      expect(pivoted.body.groups).toEqual([
        { shared_at_day_of_week: 0, ...fig(1, 1, 1), pivots: pivots(0, 1, 0, 0) }, // K3 Monday
        { shared_at_day_of_week: 1, ...fig(4, 1, 4), pivots: pivots(0, 0, 0, 4) }, // K4 Tuesday
        { shared_at_day_of_week: 2, ...fig(9, 1, 9), pivots: pivots(9, 0, 9, 0) }, // K1 Wednesday: a and b
        { shared_at_day_of_week: 6, ...fig(3, 1, 3), pivots: pivots(0, 0, 0, 3) }, // K2 Sunday
      ]);
    });

    it('the echo names each tag filter with its metadata', async () => {
      const res = await totals(
        p2,
        {},
        form([
          ['tag_3[]', 'a'],
          ['tag_5', 'z5'],
        ]),
      ).expect(200);
      expect(res.body.filters).toEqual({
        tag_3: 'a',
        tag_3_metadata: null,
        tag_5: 'z5',
        tag_5_metadata: null,
      });
    });

    it('tag_n filters are totals-only: range ignores them', async () => {
      const res = await t.http
        .get(`/stats/range.json?${form([['tag_3', 'zzz']])}`)
        .query({ v: '3', key: p2 })
        .expect(200);
      expect(res.body.filters).toEqual([]);
    });
  });

  describe('shared_at_* on totals (ISO weeks: Monday 00:00 is hour 0)', () => {
    it('group_by shared_at_hour_of_week', async () => {
      const res = await totals(p2, {
        group_by: 'shared_at_hour_of_week',
        sort_type: 'alpha',
        sort_order: 'asc',
      }).expect(200);
      expect(res.body.groups).toEqual([
        { shared_at_hour_of_week: 0, ...fig(1, 1, 1) }, // K3 Monday 00:10
        { shared_at_hour_of_week: 31, ...fig(4, 1, 4) }, // K4 Tuesday 07:00 (service_postid_shared_at)
        { shared_at_hour_of_week: 68, ...fig(9, 1, 9) }, // K1 Wednesday 20:00
        { shared_at_hour_of_week: 167, ...fig(3, 1, 3) }, // K2 Sunday 23:30
      ]);
    });

    it('group_by shared_at_hour_of_day and shared_at_day_of_week', async () => {
      const hours = await totals(p2, { group_by: 'shared_at_hour_of_day' }).expect(200);
      expect(hours.body.groups).toEqual([
        { shared_at_hour_of_day: 20, ...fig(9, 1, 9) },
        { shared_at_hour_of_day: 7, ...fig(4, 1, 4) },
        { shared_at_hour_of_day: 23, ...fig(3, 1, 3) },
        { shared_at_hour_of_day: 0, ...fig(1, 1, 1) },
      ]);
      const days = await totals(p2, {
        group_by: 'shared_at_day_of_week',
        sort_type: 'alpha',
      }).expect(200);
      expect(days.body.groups).toEqual([
        { shared_at_day_of_week: 6, ...fig(3, 1, 3) },
        { shared_at_day_of_week: 2, ...fig(9, 1, 9) },
        { shared_at_day_of_week: 1, ...fig(4, 1, 4) },
        { shared_at_day_of_week: 0, ...fig(1, 1, 1) },
      ]);
    });

    it('filters on the first and last hour of the week, and on hour of day', async () => {
      expect((await totals(p2, { shared_at_hour_of_week: '0' }).expect(200)).body.totals).toEqual(
        fig(1, 1, 1),
      );
      expect((await totals(p2, { shared_at_hour_of_week: '167' }).expect(200)).body.totals).toEqual(
        fig(3, 1, 3),
      );
      expect((await totals(p2, { shared_at_hour_of_day: '7' }).expect(200)).body.totals).toEqual(
        fig(4, 1, 4),
      );
      expect((await totals(p2, { shared_at_day_of_week: '6' }).expect(200)).body.totals).toEqual(
        fig(3, 1, 3),
      );
    });
  });

  describe('key as an array of projects', () => {
    const keys = () =>
      form([
        ['key[]', f.key],
        ['key[]', p2],
      ]);
    const both = (query: Record<string, string> = {}, raw = keys()) =>
      t.http.get(`/stats/totals.json?${raw}`).query({ v: '3', ...NOVEMBER, ...query });

    it('sums the projects', async () => {
      const res = await both().expect(200);
      expect(res.body).toEqual({ ...EMPTY_ECHO, ...period, totals: fig(31, 8, 3.875) });
    });

    it('group_by=project gives the API keys; alpha sorts by them', async () => {
      const res = await both({ group_by: 'project' }).expect(200);
      expect(res.body.groups).toEqual([
        { project: p2, ...fig(17, 4, 4.25) },
        { project: f.key, ...fig(14, 4, 3.5) },
      ]);
      expect(res.body.total_results).toBe(2);
      const alpha = await both({
        group_by: 'project',
        sort_type: 'alpha',
        sort_order: 'asc',
      }).expect(200);
      expect(groupValues(alpha.body, 'project')).toEqual([f.key, p2].sort());
    });

    it('pivot=project under another grouping', async () => {
      const res = await both({ group_by: 'channel', pivot: 'project' }).expect(200);
      expect(res.body.groups).toEqual([
        {
          channel: 'twitter',
          ...fig(28, 6, 4.6667),
          pivots: [
            { project: p2, ...fig(17, 4, 4.25) },
            { project: f.key, ...fig(11, 2, 5.5) },
          ],
        },
        { channel: 'email', ...fig(3, 1, 3), pivots: [{ project: f.key, ...fig(3, 1, 3) }] },
        {
          channel: 'facebook-post',
          ...fig(0, 1, 0),
          pivots: [{ project: f.key, ...fig(0, 1, 0) }],
        },
      ]);
    });

    it('key[] with one project still allows group_by=project', async () => {
      const res = await both({ group_by: 'project' }, form([['key[]', p2]])).expect(200);
      expect(res.body.groups).toEqual([{ project: p2, ...fig(17, 4, 4.25) }]);
    });

    it('conversions sum over the projects, labelled with the first project’s goal labels', async () => {
      const res = await both({ with_conversions: 'true' }).expect(200);
      expect(res.body.totals).toEqual({
        ...fig(31, 8, 3.875),
        conversions: conv(3, { 1: [3, 700], 2: [1, 100], 5: [1, 50], 7: [1, 70] }),
      });
    });

    it('answers keys of projects of other subscriptions together: each key is its project’s credential', async () => {
      const shared = await statsLink(
        t,
        p3,
        { url: 'https://example.com/p3', channel: 'sms' },
        '2026-11-06T09:00:00Z',
      );
      await clickRollup(t, shared, '2026-11-06T10:00:00Z', 2);
      const three = form([
        ['key[]', f.key],
        ['key[]', p3],
        ['key[]', p2],
      ]);
      const res = await both({ group_by: 'project' }, three).expect(200);
      expect([res.body.groups, res.body.total_results, res.body.totals]).toEqual([
        [
          { project: p2, ...fig(17, 4, 4.25) },
          { project: f.key, ...fig(14, 4, 3.5) },
          { project: p3, ...fig(2, 1, 2) },
        ],
        3,
        fig(33, 9, 3.6667),
      ]);
      const byChannel = await both(
        { group_by: 'channel', pivot: 'project' },
        form([
          ['key[]', f.key],
          ['key[]', p3],
        ]),
      ).expect(200);
      expect(byChannel.body.groups).toEqual([
        {
          channel: 'twitter',
          ...fig(11, 2, 5.5),
          pivots: [{ project: f.key, ...fig(11, 2, 5.5) }],
        },
        { channel: 'email', ...fig(3, 1, 3), pivots: [{ project: f.key, ...fig(3, 1, 3) }] },
        { channel: 'sms', ...fig(2, 1, 2), pivots: [{ project: p3, ...fig(2, 1, 2) }] },
        {
          channel: 'facebook-post',
          ...fig(0, 1, 0),
          pivots: [{ project: f.key, ...fig(0, 1, 0) }],
        },
      ]);
      const bySvcId = await both({ group_by: 'svc_id', channel: 'sms' }, three).expect(200);
      expect(bySvcId.body.groups).toEqual([{ svc_id: shared, ...fig(2, 1, 2) }]);
      // The other project on its own gives its own figures.
      expect((await totals(p3).expect(200)).body.totals).toEqual(fig(2, 1, 2));
    });

    it('refuses the keys when one of them is unknown (403)', async () => {
      const unknown = await both(
        {},
        form([
          ['key[]', f.key],
          ['key[]', 'nope'],
        ]),
      ).expect(403);
      expect(unknown.body).toEqual({ error: 403, error_message: 'Invalid API key specified' });
    });
  });

  describe('with_conversions on totals: goal_1 … goal_10, all-time', () => {
    it('totals, groups and pivots carry every goal with the project labels', async () => {
      const res = await totals(f.key, {
        with_conversions: 'true',
        group_by: 'campaign',
        pivot: 'tag',
      }).expect(200);
      expect(res.body.totals).toEqual({
        ...fig(14, 4, 3.5),
        conversions: conv(3, { 1: [3, 700], 2: [1, 100], 5: [1, 50] }),
      });
      expect(res.body.groups).toEqual([
        {
          campaign: 'spring',
          ...fig(13, 3, 4.3333),
          conversions: conv(3, { 1: [2, 500], 2: [1, 100], 5: [1, 50] }),
          pivots: [
            {
              tag: 'x',
              ...fig(13, 2, 6.5),
              conversions: conv(3, { 1: [2, 500], 2: [1, 100], 5: [1, 50] }),
            },
            { tag: null, ...fig(0, 1, 0), conversions: conv(0) },
          ],
        },
        {
          campaign: 'fall',
          ...fig(1, 1, 1),
          conversions: conv(0, { 1: [1, 200] }),
          pivots: [{ tag: 'y', ...fig(1, 1, 1), conversions: conv(0, { 1: [1, 200] }) }],
        },
      ]);
    });

    it('goal_6 … goal_10 sort types exist on totals (label null)', async () => {
      const res = await totals(p2, {
        with_conversions: 'true',
        group_by: 'svc_id',
        sort_type: 'goal_7_value',
      }).expect(200);
      expect(res.body.groups[0]).toEqual({
        svc_id: k.K1,
        ...fig(9, 1, 9),
        conversions: conv(0, { 7: [1, 70] }, {}),
      });
      for (const sortType of ['goal_6_count', 'goal_8_value', 'goal_9_count', 'goal_10_value']) {
        const sorted = await totals(p2, {
          with_conversions: 'true',
          group_by: 'tag',
          sort_type: sortType,
          pivot: 'svc_id',
          pivot_sort_type: sortType,
        }).expect(200);
        expect([sorted.body.sort_type, sorted.body.pivot_sort_type]).toEqual([sortType, sortType]);
      }
    });
  });

  it('domain filters totals but is no group', async () => {
    const res = await totals(f.key, { domain: 'go.example' }).expect(200);
    expect(res.body.filters).toEqual({ domain: 'go.example', domain_metadata: null });
    expect(res.body.totals).toEqual(fig(3, 1, 3));
  });

  it('every range filter works on totals too (spot checks)', async () => {
    expect((await totals(f.key, { tool: 'mail-form' }).expect(200)).body.totals).toEqual(
      fig(3, 1, 3),
    ); // C (D shared in October)
    expect((await totals(f.key, { user_id: 'u1' }).expect(200)).body.totals).toEqual(
      fig(10, 1, 10),
    ); // A
    expect((await totals(f.key, { username: 'ann' }).expect(200)).body.totals).toEqual(
      fig(13, 2, 6.5),
    ); // A, C
    expect((await totals(f.key, { parent: f.ids.A }).expect(200)).body.totals).toEqual(
      fig(1, 1, 1),
    ); // B
  });
});
