import { clickRollup, conversionRollup, setCreatedAt } from '../factories/stats';
import { TestApp, createTestApp } from '../support/app';
import { createProject } from '../factories/projects';

describe('stats/{svc_id}.json, stats/svc_ids/batch.json and stats/range/intervals.json', () => {
  let t: TestApp;
  let key: string;
  const ids: string[] = [];
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createProject(t)).api_key;
    for (const [channel, shared] of [
      ['twitter', '2026-11-02T10:00:00Z'],
      ['email', '2026-11-03T12:00:00Z'],
    ]) {
      const res = await t.http
        .get('/url.json')
        .query({ v: '3', key, tool: 't', channel, url: 'https://example.com/' })
        .expect(200);
      ids.push(res.body.svc_id);
      await setCreatedAt(t, res.body.svc_id, shared);
    }
    // Clicks as the click job writes them, each group at the time of its hour's latest click.
    await clickRollup(t, ids[0], '2026-11-02T11:30:00Z', 4, 1);
    await clickRollup(t, ids[0], '2026-11-04T08:10:00Z', 2);
    await clickRollup(t, ids[1], '2026-11-03T13:59:00Z', 7);
  });
  afterAll(() => t.close());

  it('link details: all-time clicks and the latest click, or clicks in a period', async () => {
    const all = await t.http.get(`/stats/${ids[0]}.json`).query({ v: '3', key }).expect(200);
    expect(all.body).toEqual({
      start_date: null,
      end_date: null,
      with_metadata: false,
      svc_id: ids[0],
      clicks: 6,
      last_clicked_at: '2026-11-04T08:10:00Z',
    });
    const period = await t.http
      .post(`/stats/${ids[0]}.json`)
      .type('form')
      .send({
        v: '3',
        key,
        start_date: '2026-11-02',
        end_date: '2026-11-03',
        with_bots: 'true',
        with_metadata: 'true',
      })
      .expect(200);
    expect(period.body.clicks).toBe(5);
    expect(period.body.metadata.svc_id).toBe(ids[0]);
    await t.http.get('/stats/svc.test_missing.json').query({ v: '3', key }).expect(404);
  });

  it('batch: each link in the order asked; svc_id required', async () => {
    const res = await t.http
      .get('/stats/svc_ids/batch.json')
      .query(`v=3&key=${key}&svc_id[]=${ids[1]}&svc_id[]=${ids[0]}`)
      .expect(200);
    expect(res.body).toEqual({
      svc_ids: [
        { svc_id: ids[1], clicks: 7, last_clicked_at: '2026-11-03T13:59:00Z' },
        { svc_id: ids[0], clicks: 6, last_clicked_at: '2026-11-04T08:10:00Z' },
      ],
    });
    const missing = await t.http
      .get('/stats/svc_ids/batch.json')
      .query({ v: '3', key })
      .expect(400);
    expect(missing.body).toEqual({
      error: 400,
      error_message: 'Missing required parameter: svc_id',
    });
  });

  it('range intervals: clicks and shares per day, zeros when asked, filters applied', async () => {
    const res = await t.http
      .get('/stats/range/intervals.json')
      .query({ v: '3', key, start_date: '2026-11-01', end_date: '2026-11-05', with_zeros: 'true' })
      .expect(200);
    expect(res.body).toEqual({
      start_date: '2026-11-01T00:00:00Z',
      end_date: '2026-11-05T00:00:00Z',
      interval: 'day',
      with_zeros: true,
      with_conversions: false,
      filters: [],
      totals: {
        clicks: 13,
        shares: 2,
        intervals: [
          { day: '2026-11-01T00:00:00Z', clicks: 0, shares: 0 },
          { day: '2026-11-02T00:00:00Z', clicks: 4, shares: 1 },
          { day: '2026-11-03T00:00:00Z', clicks: 7, shares: 1 },
          { day: '2026-11-04T00:00:00Z', clicks: 2, shares: 0 },
        ],
      },
    });
    const email = await t.http
      .get('/stats/range/intervals.json')
      .query({ v: '3', key, start_date: '2026-11-01', end_date: '2026-11-05', channel: 'email' })
      .expect(200);
    expect(email.body.totals).toEqual({
      clicks: 7,
      shares: 1,
      intervals: [{ day: '2026-11-03T00:00:00Z', clicks: 7, shares: 1 }],
    });
    expect(email.body.filters).toEqual({ channel: 'email', channel_metadata: null });
    const noDates = await t.http
      .get('/stats/range/intervals.json')
      .query({ v: '3', key })
      .expect(400);
    expect(noDates.body).toEqual({
      error: 400,
      error_message: 'Missing required parameter: start_date',
    });
  });

  it('range intervals with conversions: per interval and in all, an interval with conversions only listed, filters applied', async () => {
    await conversionRollup(t, ids[0], '2026-11-02T12:00:00Z', 'goal_1', 2, 300);
    await conversionRollup(t, ids[1], '2026-11-01T09:00:00Z', 'pageview', 3, 0);
    const res = await t.http
      .get('/stats/range/intervals.json')
      .query({
        v: '3',
        key,
        start_date: '2026-11-01',
        end_date: '2026-11-05',
        with_conversions: 'true',
      })
      .expect(200);
    expect(res.body.with_conversions).toBe(true);
    type Day = {
      day: string;
      clicks: number;
      shares: number;
      conversions: {
        pageviews: number;
        goal_1: { count: number; value: number };
        goal_total: unknown;
      };
    };
    expect(
      (res.body.totals.intervals as Day[]).map((i) => [
        i.day,
        i.clicks,
        i.shares,
        i.conversions.pageviews,
        i.conversions.goal_1.count,
        i.conversions.goal_1.value,
      ]),
    ).toEqual([
      ['2026-11-01T00:00:00Z', 0, 0, 3, 0, 0],
      ['2026-11-02T00:00:00Z', 4, 1, 0, 2, 300],
      ['2026-11-03T00:00:00Z', 7, 1, 0, 0, 0],
      ['2026-11-04T00:00:00Z', 2, 0, 0, 0, 0],
    ]);
    expect(res.body.totals.conversions.pageviews).toBe(3);
    expect(res.body.totals.conversions.goal_total).toEqual({ count: 2, value: 300 });
    const twitter = await t.http
      .get('/stats/range/intervals.json')
      .query({
        v: '3',
        key,
        start_date: '2026-11-01',
        end_date: '2026-11-05',
        with_conversions: 'true',
        channel: 'twitter',
      })
      .expect(200);
    expect(twitter.body.totals.conversions.pageviews).toBe(0);
    expect(twitter.body.totals.conversions.goal_total).toEqual({ count: 2, value: 300 });
    await t.analytics.command(`TRUNCATE TABLE ${t.analytics.database}.conversions`);
  });
});
