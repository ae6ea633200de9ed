import { LinkStamps } from '../../src/analytics/link-stamps';
import { ClicksRepository } from '../../src/clicks/clicks.repository';
import { ClicksService } from '../../src/clicks/clicks.service';
import { StampStates } from '../../src/stats/stamp-states';
import { TestApp, createTestApp } from '../support/app';
import { clicksOf, enricher, linkRow } from '../support/clicks';
import {
  EMPTY_ECHO,
  NOVEMBER,
  StatsFixture,
  buildStatsFixture,
  clickRollup,
  conv,
  fig,
  pivotValues,
  setCreatedAt,
  statsLink,
} from '../factories/stats';
import { createProject } from '../factories/projects';

/**
 * Range (docs/api.md, "Statistics") over the fixture of test/factories/stats.ts: filters, group_by,
 * pivots, metadata, conversions.
 */
describe('stats/range.json: filters, groups, pivots', () => {
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

  describe('each filter selects its links; the echo names it with <field>_metadata', () => {
    const U1 = {
      username: 'ann_u',
      icon_url: 'https://img.example/u1.png',
      profile_url: 'https://social.example/u1',
    };
    // [parameter, value (<A> and <ann> stand for link A's svc_id and ann's sharer_id), totals, <field>_metadata]
    const cases: [string, string, ReturnType<typeof fig>, unknown][] = [
      ['application', 'pub', fig(5, 3, 1.6667), null], // A, B, E
      ['application', 'mail', fig(8, 1, 8), null], // C, D
      ['svc_id', '<A>', fig(4, 1, 4), { original_url: 'https://example.com/a', notes: 'note A' }],
      [
        'campaign',
        'spring',
        fig(7, 3, 2.3333),
        { name: 'Spring Sale', description: 'Spring sale' },
      ], // A, C, E
      ['campaign', 'fall', fig(1, 1, 1), { name: 'fall', description: 'Fall sale' }], // B
      ['channel', 'email', fig(8, 1, 8), null], // C, D
      ['domain', 'go.example', fig(3, 1, 3), null], // C
      ['domain', 'svc.test', fig(10, 3, 3.3333), null], // A, B, D, E
      ['original_url', 'https://example.com/a', fig(4, 2, 2), null], // A, E
      ['parent', '<A>', fig(1, 1, 1), null], // B
      ['service', 'facebook', fig(0, 1, 0), null], // E
      ['service', 'twitter', fig(5, 2, 2.5), null], // A, B
      ['service_postid', 'twitter:9002', fig(1, 1, 1), null], // B
      ['service_userid', 'twitter:100', fig(5, 2, 2.5), null], // A, B
      ['sharer_id', '<ann>', fig(7, 2, 3.5), null], // A, C
      ['tag', 'x', fig(7, 2, 3.5), null], // A, C
      ['tag', 'X', fig(0, 0, 0), null], // case-sensitive
      ['tool', 'pub-bar', fig(5, 3, 1.6667), null], // A, B, E by key
      ['tool', 'Mail-Form', fig(8, 1, 8), null], // C, D by key
      ['tool', 'mail-form', fig(8, 1, 8), null], // C, D by label
      ['user_id', 'u1', fig(9, 1, 9), U1], // A, D
      ['user_id', 'U1', fig(0, 0, 0), null], // case-sensitive; no such user
      ['username', 'ann', fig(7, 2, 3.5), null], // A, C
      ['shared_at_day_of_week', '1', fig(6, 1, 6), null], // B, D (Tuesdays)
      ['shared_at_hour_of_day', '10', fig(4, 1, 4), null], // A
      ['shared_at_hour_of_week', '87', fig(3, 1, 3), null], // C (Thursday 15:00)
    ];
    it.each(cases)('%s=%s', async (name, given, totals, metadata) => {
      const value = given.replace('<A>', f.ids.A).replace('<ann>', f.sharerId);
      const res = await range({ [name]: value, with_metadata: 'true' }).expect(200);
      expect(res.body).toEqual({
        ...EMPTY_ECHO,
        ...period,
        with_metadata: true,
        filters: { [name]: value, [`${name}_metadata`]: metadata },
        totals,
      });
      // Without with_metadata every <field>_metadata is null (docs/api.md).
      const plain = await range({ [name]: value }).expect(200);
      expect(plain.body.filters).toEqual({ [name]: value, [`${name}_metadata`]: null });
      expect(plain.body.totals).toEqual(totals);
    });

    it('combines filters (AND) and echoes each of them', async () => {
      const res = await range({
        campaign: 'spring',
        channel: 'twitter',
        user_id: 'u1',
        with_metadata: 'true',
      }).expect(200);
      expect(res.body.filters).toEqual({
        campaign: 'spring',
        campaign_metadata: { name: 'Spring Sale', description: 'Spring sale' },
        channel: 'twitter',
        channel_metadata: null,
        user_id: 'u1',
        user_id_metadata: U1,
      });
      expect(res.body.totals).toEqual(fig(4, 1, 4)); // A
    });

    it('an unknown campaign, user or link filters to nothing with null metadata', async () => {
      const res = await range({
        campaign: 'winter',
        user_id: 'nobody',
        svc_id: 'svc.test_nope',
        with_metadata: 'true',
      }).expect(200);
      expect(res.body.filters).toEqual({
        campaign: 'winter',
        campaign_metadata: null,
        user_id: 'nobody',
        user_id_metadata: null,
        svc_id: 'svc.test_nope',
        svc_id_metadata: null,
      });
      expect(res.body.totals).toEqual(fig(0, 0, 0));
    });
  });

  describe('group_by each field (clicks desc, ties by value ascending, null last)', () => {
    type Row = [value: string | number | null, clicks: number, shares: number, cps: number];
    const cases: [string, (f: StatsFixture) => Row[]][] = [
      [
        'application',
        () => [
          ['mail', 8, 1, 8],
          ['pub', 5, 3, 1.6667],
        ],
      ],
      [
        'svc_id',
        (x) => [
          [x.ids.D, 5, 0, 0],
          [x.ids.A, 4, 1, 4],
          [x.ids.C, 3, 1, 3],
          [x.ids.B, 1, 1, 1],
          [x.ids.E, 0, 1, 0],
        ],
      ],
      [
        'campaign',
        () => [
          ['spring', 7, 3, 2.3333],
          [null, 5, 0, 0],
          ['fall', 1, 1, 1],
        ],
      ],
      [
        'channel',
        () => [
          ['email', 8, 1, 8],
          ['twitter', 5, 2, 2.5],
          ['facebook-post', 0, 1, 0],
        ],
      ],
      [
        'domain',
        () => [
          ['svc.test', 10, 3, 3.3333],
          ['go.example', 3, 1, 3],
        ],
      ],
      [
        'original_url',
        () => [
          ['https://example.com/d', 5, 0, 0],
          ['https://example.com/a', 4, 2, 2],
          ['https://example.com/c', 3, 1, 3],
          ['https://example.com/b', 1, 1, 1],
        ],
      ],
      [
        'parent',
        (x) => [
          [null, 12, 3, 4],
          [x.ids.A, 1, 1, 1],
        ],
      ],
      [
        'service',
        () => [
          ['email', 8, 1, 8],
          ['twitter', 5, 2, 2.5],
          ['facebook', 0, 1, 0],
        ],
      ],
      [
        'service_postid',
        () => [
          [null, 8, 2, 4],
          ['twitter:9001', 4, 1, 4],
          ['twitter:9002', 1, 1, 1],
        ],
      ],
      [
        'service_userid',
        () => [
          [null, 8, 2, 4],
          ['twitter:100', 5, 2, 2.5],
        ],
      ],
      [
        'sharer_id',
        (x) => [
          [x.sharerId, 7, 2, 3.5],
          [null, 6, 2, 3],
        ],
      ],
      [
        'tag',
        () => [
          ['x', 7, 2, 3.5],
          ['z', 5, 0, 0],
          ['y', 1, 1, 1],
          [null, 0, 1, 0],
        ],
      ],
      [
        'tool',
        () => [
          ['Mail-Form', 8, 1, 8],
          ['pub-bar', 5, 3, 1.6667],
        ],
      ],
      [
        'user_id',
        () => [
          ['u1', 9, 1, 9],
          [null, 3, 2, 1.5],
          ['u2', 1, 1, 1],
        ],
      ],
      [
        'username',
        () => [
          ['ann', 7, 2, 3.5],
          [null, 6, 2, 3],
        ],
      ],
      [
        'shared_at_hour_of_day',
        () => [
          [8, 5, 0, 0],
          [10, 4, 1, 4],
          [15, 3, 1, 3],
          [9, 1, 1, 1],
          [12, 0, 1, 0],
        ],
      ],
      [
        'shared_at_day_of_week',
        () => [
          [1, 6, 1, 6],
          [0, 4, 1, 4],
          [3, 3, 1, 3],
          [4, 0, 1, 0],
        ],
      ],
      [
        'shared_at_hour_of_week',
        () => [
          [32, 5, 0, 0],
          [10, 4, 1, 4],
          [87, 3, 1, 3],
          [33, 1, 1, 1],
          [108, 0, 1, 0],
        ],
      ],
    ];
    it.each(cases)('group_by=%s', async (field, rows) => {
      const res = await range({ group_by: field }).expect(200);
      const groups = rows(f).map(([value, clicks, shares, cps]) => ({
        [field]: value,
        ...fig(clicks, shares, cps),
      }));
      expect(res.body).toEqual({
        ...EMPTY_ECHO,
        ...period,
        group_by: field,
        sort_type: 'clicks',
        sort_order: 'desc',
        last_offset: groups.length,
        total_results: groups.length,
        totals: fig(13, 4, 3.25),
        groups,
      });
    });

    it('group_by with a filter groups the filtered links only', async () => {
      const res = await range({ group_by: 'channel', campaign: 'spring' }).expect(200);
      expect(res.body.groups).toEqual([
        { channel: 'twitter', ...fig(4, 1, 4) },
        { channel: 'email', ...fig(3, 1, 3) },
        { channel: 'facebook-post', ...fig(0, 1, 0) },
      ]);
      expect(res.body.total_results).toBe(3);
    });
  });

  describe('with_metadata', () => {
    it('svc_id groups carry original_url and notes', async () => {
      const res = await range({ group_by: 'svc_id', with_metadata: 'true', per_page: '2' }).expect(
        200,
      );
      expect(res.body.with_metadata).toBe(true);
      expect(res.body.groups).toEqual([
        {
          svc_id: f.ids.D,
          ...fig(5, 0, 0),
          metadata: { original_url: 'https://example.com/d', notes: null },
        },
        {
          svc_id: f.ids.A,
          ...fig(4, 1, 4),
          metadata: { original_url: 'https://example.com/a', notes: 'note A' },
        },
      ]);
    });

    it('user_id groups carry username, icon_url and profile_url; the null group null', async () => {
      const res = await range({ group_by: 'user_id', with_metadata: 'TRUE' }).expect(200);
      expect(res.body.groups).toEqual([
        {
          user_id: 'u1',
          ...fig(9, 1, 9),
          metadata: {
            username: 'ann_u',
            icon_url: 'https://img.example/u1.png',
            profile_url: 'https://social.example/u1',
          },
        },
        { user_id: null, ...fig(3, 2, 1.5), metadata: null },
        {
          user_id: 'u2',
          ...fig(1, 1, 1),
          metadata: { username: 'bob_u', icon_url: null, profile_url: null },
        },
      ]);
    });

    it('campaign groups carry name and description', async () => {
      const res = await range({ group_by: 'campaign', with_metadata: 'true' }).expect(200);
      expect(res.body.groups).toEqual([
        {
          campaign: 'spring',
          ...fig(7, 3, 2.3333),
          metadata: { name: 'Spring Sale', description: 'Spring sale' },
        },
        { campaign: null, ...fig(5, 0, 0), metadata: null },
        { campaign: 'fall', ...fig(1, 1, 1), metadata: { name: 'fall', description: 'Fall sale' } },
      ]);
    });

    it('other groups have metadata null', async () => {
      const res = await range({ group_by: 'service', with_metadata: 'true' }).expect(200);
      expect(res.body.groups).toEqual([
        { service: 'email', ...fig(8, 1, 8), metadata: null },
        { service: 'twitter', ...fig(5, 2, 2.5), metadata: null },
        { service: 'facebook', ...fig(0, 1, 0), metadata: null },
      ]);
    });
  });

  describe('pivots', () => {
    it("a group whose value is the text 'null' and the group of links without one keep their own pivots", async () => {
      const key = (await createProject(t)).api_key;
      const named = await statsLink(t, key, {
        url: 'https://example.com/n',
        tag: 'null',
        tag_2: 'null',
        channel: 'email',
      });
      const none = await statsLink(t, key, { url: 'https://example.com/none', channel: 'sms' });
      await clickRollup(t, named, '2026-11-03T10:00:00Z', 2);
      await clickRollup(t, none, '2026-11-03T10:00:00Z', 1);
      const groupsOf = async (kind: string, query: Record<string, string>) =>
        (
          await t.http
            .get(`/stats/${kind}.json`)
            .query({ v: '3', key, ...query, pivot: 'channel' })
            .expect(200)
        ).body.groups as unknown[];
      // Range by tag: groups and pivots from one statement.
      expect(await groupsOf('range', { ...NOVEMBER, group_by: 'tag' })).toEqual([
        { tag: 'null', ...fig(2, 0, 0), pivots: [{ channel: 'email', ...fig(2, 0, 0) }] },
        { tag: null, ...fig(1, 0, 0), pivots: [{ channel: 'sms', ...fig(1, 0, 0) }] },
      ]);
      // Totals by tag_2 (multi-value): the pivots from a statement of their own.
      const today = {
        start_date: new Date(Date.now() - 86_400_000).toISOString(),
        end_date: new Date(Date.now() + 86_400_000).toISOString(),
      };
      expect(await groupsOf('totals', { ...today, group_by: 'tag_2' })).toEqual([
        { tag_2: 'null', ...fig(2, 1, 2), pivots: [{ channel: 'email', ...fig(2, 1, 2) }] },
        { tag_2: null, ...fig(1, 1, 1), pivots: [{ channel: 'sms', ...fig(1, 1, 1) }] },
      ]);
    });

    it('pivot campaign per channel group, without zeros: only combinations with activity', async () => {
      const res = await range({ group_by: 'channel', pivot: 'campaign' }).expect(200);
      expect(res.body).toEqual({
        ...EMPTY_ECHO,
        ...period,
        group_by: 'channel',
        sort_type: 'clicks',
        sort_order: 'desc',
        pivot: 'campaign',
        pivot_sort_type: 'clicks',
        pivot_sort_order: 'desc',
        last_offset: 3,
        total_results: 3,
        totals: fig(13, 4, 3.25),
        groups: [
          {
            channel: 'email',
            ...fig(8, 1, 8),
            pivots: [
              { campaign: null, ...fig(5, 0, 0) },
              { campaign: 'spring', ...fig(3, 1, 3) },
            ],
          },
          {
            channel: 'twitter',
            ...fig(5, 2, 2.5),
            pivots: [
              { campaign: 'spring', ...fig(4, 1, 4) },
              { campaign: 'fall', ...fig(1, 1, 1) },
            ],
          },
          {
            channel: 'facebook-post',
            ...fig(0, 1, 0),
            pivots: [{ campaign: 'spring', ...fig(0, 1, 0) }],
          },
        ],
      });
    });

    it('with_zeros: every pivot value in every group, zero rows sorted with the others', async () => {
      const res = await range({
        group_by: 'channel',
        pivot: 'campaign',
        with_zeros: 'true',
      }).expect(200);
      expect(res.body.with_zeros).toBe(true);
      expect(res.body.groups).toEqual([
        {
          channel: 'email',
          ...fig(8, 1, 8),
          pivots: [
            { campaign: null, ...fig(5, 0, 0) },
            { campaign: 'spring', ...fig(3, 1, 3) },
            { campaign: 'fall', ...fig(0, 0, 0) },
          ],
        },
        {
          channel: 'twitter',
          ...fig(5, 2, 2.5),
          pivots: [
            { campaign: 'spring', ...fig(4, 1, 4) },
            { campaign: 'fall', ...fig(1, 1, 1) },
            { campaign: null, ...fig(0, 0, 0) },
          ],
        },
        {
          channel: 'facebook-post',
          ...fig(0, 1, 0),
          // All at 0 clicks: ties by value ascending, null last.
          pivots: [
            { campaign: 'fall', ...fig(0, 0, 0) },
            { campaign: 'spring', ...fig(0, 1, 0) },
            { campaign: null, ...fig(0, 0, 0) },
          ],
        },
      ]);
      const asc = await range({
        group_by: 'channel',
        pivot: 'campaign',
        with_zeros: 'true',
        pivot_sort_order: 'asc',
      }).expect(200);
      expect(pivotValues(asc.body, 'campaign')).toEqual([
        ['fall', 'spring', null],
        [null, 'fall', 'spring'],
        ['fall', 'spring', null],
      ]);
    });

    it('with_zeros takes the pivot values of the whole result, not only of the page', async () => {
      const res = await range({
        group_by: 'channel',
        pivot: 'campaign',
        with_zeros: 'true',
        per_page: '1',
        page: '3',
      }).expect(200);
      expect(res.body.groups).toEqual([
        {
          channel: 'facebook-post',
          ...fig(0, 1, 0),
          pivots: [
            { campaign: 'fall', ...fig(0, 0, 0) },
            { campaign: 'spring', ...fig(0, 1, 0) },
            { campaign: null, ...fig(0, 0, 0) },
          ],
        },
      ]);
    });

    it('shared_at pivots on a tag grouping', async () => {
      const res = await range({
        group_by: 'tag',
        pivot: 'shared_at_day_of_week',
        sort_type: 'alpha',
        sort_order: 'asc',
      }).expect(200);
      expect(res.body.groups).toEqual([
        {
          tag: 'x',
          ...fig(7, 2, 3.5),
          pivots: [
            { shared_at_day_of_week: 0, ...fig(4, 1, 4) },
            { shared_at_day_of_week: 3, ...fig(3, 1, 3) },
          ],
        },
        { tag: 'y', ...fig(1, 1, 1), pivots: [{ shared_at_day_of_week: 1, ...fig(1, 1, 1) }] },
        { tag: 'z', ...fig(5, 0, 0), pivots: [{ shared_at_day_of_week: 1, ...fig(5, 0, 0) }] },
        { tag: null, ...fig(0, 1, 0), pivots: [{ shared_at_day_of_week: 4, ...fig(0, 1, 0) }] },
      ]);
    });
  });

  describe('with_conversions', () => {
    it('on totals, groups and pivots, with the project goal labels; only conversions in the period', async () => {
      const res = await range({
        group_by: 'channel',
        pivot: 'campaign',
        with_conversions: 'true',
      }).expect(200);
      expect(res.body.with_conversions).toBe(true);
      expect(res.body.totals).toEqual({
        ...fig(13, 4, 3.25),
        conversions: conv(3, { 1: [3, 700], 2: [1, 100] }),
      });
      expect(res.body.groups).toEqual([
        {
          channel: 'email',
          ...fig(8, 1, 8),
          conversions: conv(0, { 2: [1, 100] }),
          pivots: [
            { campaign: null, ...fig(5, 0, 0), conversions: conv(0) },
            { campaign: 'spring', ...fig(3, 1, 3), conversions: conv(0, { 2: [1, 100] }) },
          ],
        },
        {
          channel: 'twitter',
          ...fig(5, 2, 2.5),
          conversions: conv(3, { 1: [3, 700] }),
          pivots: [
            { campaign: 'spring', ...fig(4, 1, 4), conversions: conv(3, { 1: [2, 500] }) },
            { campaign: 'fall', ...fig(1, 1, 1), conversions: conv(0, { 1: [1, 200] }) },
          ],
        },
        {
          channel: 'facebook-post',
          ...fig(0, 1, 0),
          conversions: conv(0),
          pivots: [{ campaign: 'spring', ...fig(0, 1, 0), conversions: conv(0) }],
        },
      ]);
      expect(res.body.totals.conversions.goal_1).toEqual({ count: 3, value: 700, label: 'Signup' });
      expect(res.body.totals.conversions.goal_3).toEqual({ count: 0, value: 0, label: null });
    });

    it('zero-filled pivots carry zero conversions', async () => {
      const res = await range({
        group_by: 'channel',
        pivot: 'campaign',
        with_conversions: 'true',
        with_zeros: 'true',
        per_page: '1',
        page: '3',
      }).expect(200);
      expect(res.body.groups[0].pivots).toEqual([
        { campaign: 'fall', ...fig(0, 0, 0), conversions: conv(0) },
        { campaign: 'spring', ...fig(0, 1, 0), conversions: conv(0) },
        { campaign: null, ...fig(0, 0, 0), conversions: conv(0) },
      ]);
    });

    it('a link with conversions but no clicks or share in the period still counts its conversions', async () => {
      const res = await range({
        start_date: '2026-11-20',
        end_date: '2026-11-21',
        with_conversions: 'true',
        group_by: 'svc_id',
      }).expect(200);
      expect(res.body.totals).toEqual({ ...fig(0, 0, 0), conversions: conv(0, { 5: [1, 50] }) });
      expect(res.body.groups).toEqual([
        { svc_id: f.ids.A, ...fig(0, 0, 0), conversions: conv(0, { 5: [1, 50] }) },
      ]);
    });
  });

  it('bots are left out unless with_bots=true', async () => {
    const res = await range({ group_by: 'channel' }).expect(200);
    expect(res.body.totals).toEqual(fig(13, 4, 3.25));
    const bots = await range({ group_by: 'channel', with_bots: 'true' }).expect(200);
    expect(bots.body.totals).toEqual(fig(16, 4, 4));
    expect(bots.body.groups).toEqual([
      { channel: 'email', ...fig(10, 1, 10) },
      { channel: 'twitter', ...fig(6, 2, 3) },
      { channel: 'facebook-post', ...fig(0, 1, 0) },
    ]);
  });

  it('without start_date and end_date the period is unbounded and echoed as null', async () => {
    const res = await t.http
      .get('/stats/range.json')
      .query({ v: '3', key: f.key, group_by: 'channel' })
      .expect(200);
    expect(res.body.start_date).toBeNull();
    expect(res.body.end_date).toBeNull();
    expect(res.body.totals).toEqual(fig(19, 5, 3.8));
    expect(res.body.groups).toEqual([
      { channel: 'twitter', ...fig(11, 2, 5.5) },
      { channel: 'email', ...fig(8, 2, 4) },
      { channel: 'facebook-post', ...fig(0, 1, 0) },
    ]);
  });

  it('filters on an original_url as long as link creation takes (4096 characters), not one character more', async () => {
    const { api_key: key } = await createProject(t);
    const long = `https://example.com/${'l'.repeat(4096 - 'https://example.com/'.length)}`;
    const svcId = await statsLink(t, key, { url: long }, '2026-11-02T08:00:00Z');
    const other = await statsLink(
      t,
      key,
      { url: 'https://example.com/short' },
      '2026-11-02T08:00:00Z',
    );
    await clickRollup(t, svcId, '2026-11-03T10:00:00Z', 3);
    await clickRollup(t, other, '2026-11-03T10:00:00Z', 5);
    for (const kind of ['range', 'totals']) {
      const query = { v: '3', key, ...NOVEMBER, original_url: long, group_by: 'svc_id' };
      const answers = [
        await t.http.get(`/stats/${kind}.json`).query(query).expect(200),
        await t.http.post(`/stats/${kind}.json`).type('form').send(query).expect(200),
      ];
      for (const res of answers) {
        expect(res.body.filters).toEqual({ original_url: long, original_url_metadata: null });
        expect(res.body.totals).toEqual(fig(3, 1, 3));
        expect(res.body.groups).toEqual([{ svc_id: svcId, ...fig(3, 1, 3) }]);
      }
      const over = await t.http
        .post(`/stats/${kind}.json`)
        .type('form')
        .send({ ...query, original_url: `${long}l` })
        .expect(400);
      expect(over.body).toEqual({
        error: 400,
        error_message: 'Invalid parameter original_url: must be at most 4096 characters',
      });
    }
  });

  describe('bots make no groups', () => {
    // A project of its own. Shared before the period: S (bots only, stamped clicks), U (bots only,
    // clicks stored without stamps) and M (a person and a bot, stamped); shared in it: N (a bot).
    let key: string;
    let ids: Record<'S' | 'U' | 'M' | 'N', string>;
    beforeAll(async () => {
      key = (await createProject(t)).api_key;
      const link = async (channel: string, sharedAt: string) => {
        const svcId = await statsLink(t, key, {
          url: `https://example.com/${channel}`,
          channel,
          tag: `t-${channel}`,
        });
        await setCreatedAt(t, svcId, sharedAt);
        return svcId;
      };
      ids = {
        S: await link('email', '2026-10-01T08:00:00Z'),
        U: await link('sms', '2026-10-01T08:00:00Z'),
        M: await link('twitter', '2026-10-01T08:00:00Z'),
        N: await link('facebook-post', '2026-11-05T08:00:00Z'),
      };
      const clicks = new ClicksService(
        t.app.get(ClicksRepository, { strict: false }),
        new LinkStamps(t.analytics),
        enricher(t),
      );
      await clicks.ingest(
        clicksOf(await linkRow(t, ids.S), 0, 2, Date.parse('2026-11-02T10:30:00Z')),
        { resent: true },
      );
      await clicks.ingest(
        clicksOf(await linkRow(t, ids.M), 1, 1, Date.parse('2026-11-04T12:30:00Z')),
        { resent: true },
      );
      await clickRollup(t, ids.U, '2026-11-03T09:00:00Z', 0, 3);
      await clickRollup(t, ids.N, '2026-11-05T09:00:00Z', 0, 1);
    });

    /** The answer, the same whether events are grouped by their stamps or joined to the links. */
    const ask = async (path: string, query: Record<string, string>) => {
      const get = async () =>
        (
          await t.http
            .get(path)
            .query({ v: '3', key, ...NOVEMBER, ...query })
            .expect(200)
        ).body as Record<string, unknown>;
      const stamped = await get();
      // No stamp state for any request: every event joined to `links`.
      const joined = jest
        .spyOn(t.app.get(StampStates, { strict: false }), 'forRequest')
        .mockResolvedValue(null);
      try {
        expect(await get()).toEqual(stamped);
      } finally {
        joined.mockRestore();
      }
      return stamped;
    };

    it('range: a link whose only clicks in the period are bots’ is no group, nor counted in total_results', async () => {
      const bySvcId = await ask('/stats/range.json', { group_by: 'svc_id' });
      expect([bySvcId.groups, bySvcId.total_results, bySvcId.totals]).toEqual([
        [
          { svc_id: ids.M, ...fig(1, 0, 0) },
          { svc_id: ids.N, ...fig(0, 1, 0) },
        ],
        2,
        fig(1, 1, 1),
      ]);
      // Grouped by stamped fields: S's and M's clicks by their stamps, U's and N's joined to their links.
      const byChannel = await ask('/stats/range.json', { group_by: 'channel' });
      expect([byChannel.groups, byChannel.total_results]).toEqual([
        [
          { channel: 'twitter', ...fig(1, 0, 0) },
          { channel: 'facebook-post', ...fig(0, 1, 0) },
        ],
        2,
      ]);
      const pivoted = await ask('/stats/range.json', {
        group_by: 'channel',
        pivot: 'tag',
        with_conversions: 'true',
      });
      const none = conv(0, {}, {});
      expect([pivoted.groups, pivoted.total_results]).toEqual([
        [
          {
            channel: 'twitter',
            ...fig(1, 0, 0),
            conversions: none,
            pivots: [{ tag: 't-twitter', ...fig(1, 0, 0), conversions: none }],
          },
          {
            channel: 'facebook-post',
            ...fig(0, 1, 0),
            conversions: none,
            pivots: [{ tag: 't-facebook-post', ...fig(0, 1, 0), conversions: none }],
          },
        ],
        2,
      ]);
    });

    it('with_bots=true counts the bots’ clicks, and their links are groups', async () => {
      const byChannel = await ask('/stats/range.json', { group_by: 'channel', with_bots: 'true' });
      expect([byChannel.groups, byChannel.total_results]).toEqual([
        [
          { channel: 'sms', ...fig(3, 0, 0) },
          { channel: 'email', ...fig(2, 0, 0) },
          { channel: 'twitter', ...fig(2, 0, 0) },
          { channel: 'facebook-post', ...fig(1, 1, 1) },
        ],
        4,
      ]);
      const res = await ask('/stats/range.json', { group_by: 'svc_id', with_bots: 'true' });
      const tie = [ids.S, ids.M].sort();
      expect([res.groups, res.total_results, res.totals]).toEqual([
        [
          { svc_id: ids.U, ...fig(3, 0, 0) },
          { svc_id: tie[0], ...fig(2, 0, 0) },
          { svc_id: tie[1], ...fig(2, 0, 0) },
          { svc_id: ids.N, ...fig(1, 1, 1) },
        ],
        4,
        fig(8, 1, 8),
      ]);
    });

    it('range intervals: an interval whose only clicks are bots’ is no activity', async () => {
      const humans = await ask('/stats/range/intervals.json', { interval: 'day' });
      expect(humans.totals).toEqual({
        clicks: 1,
        shares: 1,
        intervals: [
          { day: '2026-11-04T00:00:00Z', clicks: 1, shares: 0 },
          { day: '2026-11-05T00:00:00Z', clicks: 0, shares: 1 },
        ],
      });
      const all = await ask('/stats/range/intervals.json', { interval: 'day', with_bots: 'true' });
      expect(all.totals).toEqual({
        clicks: 8,
        shares: 1,
        intervals: [
          { day: '2026-11-02T00:00:00Z', clicks: 2, shares: 0 },
          { day: '2026-11-03T00:00:00Z', clicks: 3, shares: 0 },
          { day: '2026-11-04T00:00:00Z', clicks: 2, shares: 0 },
          { day: '2026-11-05T00:00:00Z', clicks: 1, shares: 1 },
        ],
      });
    });
  });
});
