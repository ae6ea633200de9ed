import { clickRollup, conversionRollup } from '../factories/stats';
import { TestApp, createTestApp } from '../support/app';
import { createProject } from '../factories/projects';

describe('stats/{svc_id}/intervals.json', () => {
  let t: TestApp;
  let key: string;
  let svcId: string;
  beforeAll(async () => {
    t = await createTestApp();
    const project = await createProject(t, {
      conversions: { enabled: true, goal_1_label: 'Signup' },
    });
    key = project.api_key;
    const res = await t.http
      .get('/url.json')
      .query({
        v: '3',
        key,
        tool: 't',
        channel: 'twitter',
        url: 'https://example.com/a',
        notes: 'n1',
      })
      .expect(200);
    svcId = res.body.svc_id;
    // Clicks as the click job writes them: 2026-11-02 10:00 hour (3 + 1 bot), 11:00 (2), 2026-11-04 09:00 (5).
    await clickRollup(t, svcId, '2026-11-02T10:40:00Z', 3, 1);
    await clickRollup(t, svcId, '2026-11-02T11:05:00Z', 2);
    await clickRollup(t, svcId, '2026-11-04T09:59:00Z', 5);
    await conversionRollup(t, svcId, '2026-11-02T10:00:00Z', 'goal_1', 2, 1500);
  });
  afterAll(() => t.close());

  const get = (query: Record<string, string>, id = svcId) =>
    t.http.get(`/stats/${id}/intervals.json`).query({ v: '3', key, ...query });

  it('sums clicks per day within the rounded period, without empty days by default', async () => {
    const res = await get({
      start_date: '2026-11-01T23:30:00Z',
      end_date: '2026-11-05T00:00:00Z',
    }).expect(200);
    expect(res.body).toEqual({
      svc_id: svcId,
      start_date: '2026-11-01T23:00:00Z',
      end_date: '2026-11-05T00:00:00Z',
      interval: 'day',
      with_zeros: false,
      with_metadata: false,
      with_conversions: false,
      clicks: 10,
      last_clicked_at: '2026-11-04T09:59:00Z',
      intervals: [
        { day: '2026-11-02T00:00:00Z', clicks: 5 },
        { day: '2026-11-04T00:00:00Z', clicks: 5 },
      ],
    });
  });

  it('fills empty intervals with zeros, by hour and by ISO week', async () => {
    const hours = await get({
      start_date: '2026-11-02T09:10:00Z',
      end_date: '2026-11-02T11:20:00Z',
      interval: 'hour',
      with_zeros: 'TRUE',
    }).expect(200);
    expect(hours.body.start_date).toBe('2026-11-02T09:00:00Z');
    expect(hours.body.end_date).toBe('2026-11-02T12:00:00Z');
    expect(hours.body.intervals).toEqual([
      { hour: '2026-11-02T09:00:00Z', clicks: 0 },
      { hour: '2026-11-02T10:00:00Z', clicks: 3 },
      { hour: '2026-11-02T11:00:00Z', clicks: 2 },
    ]);
    const weeks = await get({
      start_date: '2026-10-28',
      end_date: '2026-11-10',
      interval: 'week',
      with_zeros: 'true',
    }).expect(200);
    expect(weeks.body.intervals).toEqual([
      { week: '2026-10-26T00:00:00Z', clicks: 0 },
      { week: '2026-11-02T00:00:00Z', clicks: 10 },
      { week: '2026-11-09T00:00:00Z', clicks: 0 },
    ]);
  });

  it('counts bots only with with_bots=true', async () => {
    const res = await get({
      start_date: '2026-11-02',
      end_date: '2026-11-03',
      with_bots: 'true',
    }).expect(200);
    expect(res.body.clicks).toBe(6);
  });

  it('adds conversions and the link metadata when asked', async () => {
    const res = await get({
      start_date: '2026-11-02',
      end_date: '2026-11-03',
      with_conversions: 'true',
      with_metadata: 'true',
    }).expect(200);
    expect(res.body.conversions.goal_1).toEqual({ count: 2, value: 1500, label: 'Signup' });
    expect(res.body.conversions.goal_total).toEqual({ count: 2, value: 1500 });
    expect(res.body.conversions.pageviews).toBe(0);
    expect(res.body.intervals[0].conversions.goal_1).toEqual({
      count: 2,
      value: 1500,
      label: 'Signup',
    });
    expect(res.body.metadata.svc_id).toBe(svcId);
    expect(res.body.metadata.notes).toBe('n1');
  });

  it('lists an interval with conversions and no click when conversions are asked, in time order', async () => {
    await conversionRollup(t, svcId, '2026-11-03T08:00:00Z', 'pageview', 4, 0);
    const period = { start_date: '2026-11-02', end_date: '2026-11-05' };
    const res = await get({ ...period, with_conversions: 'true' }).expect(200);
    type Day = { day: string; clicks: number; conversions: { pageviews: number } };
    expect(
      (res.body.intervals as Day[]).map((i) => [i.day, i.clicks, i.conversions.pageviews]),
    ).toEqual([
      ['2026-11-02T00:00:00Z', 5, 0],
      ['2026-11-03T00:00:00Z', 0, 4],
      ['2026-11-04T00:00:00Z', 5, 0],
    ]);
    expect(res.body.conversions.pageviews).toBe(4);
    // Without conversions, clicks alone make an interval active.
    const plain = await get(period).expect(200);
    expect((plain.body.intervals as Day[]).map((i) => i.day)).toEqual([
      '2026-11-02T00:00:00Z',
      '2026-11-04T00:00:00Z',
    ]);
    await t.analytics.command(
      `DELETE FROM ${t.analytics.database}.conversions WHERE converted_at = '2026-11-03 08:00:00'`,
    );
  });

  it('refuses bad parameters, naming them', async () => {
    const cases: [Record<string, string>, number, string][] = [
      [{ end_date: '2026-11-03' }, 400, 'Missing required parameter: start_date'],
      [{ start_date: '2026-11-03' }, 400, 'Missing required parameter: end_date'],
      [
        { start_date: '2010-06-04', end_date: '2010-06-05' },
        400,
        'Invalid parameter start_date: must be after 2010-06-04',
      ],
      [
        { start_date: 'soon', end_date: '2026-11-03' },
        400,
        'Invalid parameter start_date: must be a date (YYYY-MM-DD), a timestamp (ISO 8601) or UNIX seconds',
      ],
      [
        { start_date: '2026-11-03', end_date: '2026-11-02' },
        400,
        'Invalid parameter end_date: must be after start_date',
      ],
      [
        { start_date: '2026-11-01', end_date: '2026-11-03', interval: 'month' },
        400,
        'Invalid parameter interval: must be hour, day or week',
      ],
      [
        { start_date: '2026-01-01', end_date: '2026-12-31', interval: 'hour' },
        400,
        'Invalid parameter interval: the period holds 8736 hour intervals; at most 500',
      ],
      [
        { start_date: '2026-11-01', end_date: '2026-11-03', with_zeros: 'yes' },
        400,
        'Invalid parameter with_zeros: must be true or false',
      ],
      [
        { start_date: '2026-11-01', end_date: '2026-11-03', key: 'nope' },
        403,
        'Invalid API key specified',
      ],
    ];
    for (const [query, status, message] of cases) {
      const res = await get(query).expect(status);
      expect(res.body).toEqual({ error: status, error_message: message });
    }
    const missing = await get(
      { start_date: '2026-11-01', end_date: '2026-11-03' },
      'svc.test_nope',
    ).expect(404);
    expect(missing.body).toEqual({
      error: 404,
      error_message: 'No link svc.test_nope in this project',
    });
    // Another project's link, with clicks, is not found either, with or without zeros and metadata.
    const other = await createProject(t);
    for (const extra of [{}, { with_zeros: 'true', with_metadata: 'true' }]) {
      const foreign = await t.http
        .get(`/stats/${svcId}/intervals.json`)
        .query({
          v: '3',
          key: other.api_key,
          start_date: '2026-11-01',
          end_date: '2026-11-05',
          ...extra,
        })
        .expect(404);
      expect(foreign.body).toEqual({
        error: 404,
        error_message: `No link ${svcId} in this project`,
      });
    }
    const noV = await t.http
      .get(`/stats/${svcId}/intervals.json`)
      .query({ key, start_date: '2026-11-01', end_date: '2026-11-02' })
      .expect(400);
    expect(noV.body).toEqual({ error: 400, error_message: 'Missing required parameter: v' });
    await t.http
      .get(`/stats/${svcId}/intervals.txt`)
      .query({ v: '3', key, start_date: '2026-11-01', end_date: '2026-11-02' })
      .expect(404);
    const jsonp = await get({
      start_date: '2026-11-02',
      end_date: '2026-11-03',
      callback: 'show',
    }).expect(200);
    expect(jsonp.text).toMatch(/^show\(\{"svc_id":.*\}\);$/);
  });

  it('answers POST with the same body as GET: form parameters, or in the query string', async () => {
    const query = {
      start_date: '2026-11-01T23:30:00Z',
      end_date: '2026-11-05T00:00:00Z',
      interval: 'hour',
      with_conversions: 'true',
      with_metadata: 'true',
    };
    const get = await t.http
      .get(`/stats/${svcId}/intervals.json`)
      .query({ v: '3', key, ...query })
      .expect(200);
    expect(get.body.clicks).toBe(10);
    expect(get.body.intervals).toHaveLength(3);
    const form = await t.http
      .post(`/stats/${svcId}/intervals.json`)
      .type('form')
      .send({ v: '3', key, ...query })
      .expect(200);
    expect(form.body).toEqual(get.body);
    const inQuery = await t.http
      .post(`/stats/${svcId}/intervals.json`)
      .query({ v: '3', key, ...query })
      .expect(200);
    expect(inQuery.body).toEqual(get.body);
    // Errors too.
    const bad = await t.http
      .post(`/stats/${svcId}/intervals.json`)
      .type('form')
      .send({ v: '3', key, start_date: '2026-11-03', end_date: '2026-11-02' })
      .expect(400);
    expect(bad.body).toEqual({
      error: 400,
      error_message: 'Invalid parameter end_date: must be after start_date',
    });
  });

  it('takes a period of exactly 500 intervals and refuses 501', async () => {
    // 500 hours from 2026-11-01 00:00 end on 2026-11-21 20:00; 500 days from 2026-01-01 on 2027-05-16.
    const cases: [Record<string, string>, number][] = [
      [
        { start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-21T20:00:00Z', interval: 'hour' },
        500,
      ],
      [
        { start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-21T20:00:01Z', interval: 'hour' },
        501,
      ],
      [{ start_date: '2026-01-01', end_date: '2027-05-16', interval: 'day' }, 500],
      [{ start_date: '2026-01-01', end_date: '2027-05-16T00:00:01Z', interval: 'day' }, 501],
    ];
    for (const [query, count] of cases) {
      if (count === 500) {
        const res = await get({ ...query, with_zeros: 'true' }).expect(200);
        expect(res.body.intervals).toHaveLength(500);
        expect(res.body.clicks).toBe(10);
        const post = await t.http
          .post(`/stats/${svcId}/intervals.json`)
          .type('form')
          .send({ v: '3', key, ...query })
          .expect(200);
        expect(post.body.intervals).toHaveLength(query.interval === 'hour' ? 3 : 2);
      } else {
        for (const res of [
          await get(query).expect(400),
          await t.http
            .post(`/stats/${svcId}/intervals.json`)
            .type('form')
            .send({ v: '3', key, ...query })
            .expect(400),
        ]) {
          expect(res.body).toEqual({
            error: 400,
            error_message: `Invalid parameter interval: the period holds 501 ${query.interval} intervals; at most 500`,
          });
        }
      }
    }
  });

  it('takes a start_date from the first hour after 2010-06-04 (rounded down to the hour, it must be after the day)', async () => {
    // start_date is rounded down to the hour first: any instant of 2010-06-04 00:xx is that day's midnight.
    for (const start of [
      '2010-06-04',
      '2010-06-04T00:00:00Z',
      '2010-06-04T00:59:59Z',
      '2010-06-03T23:00:00Z',
      '1275609599',
    ]) {
      const res = await get({ start_date: start, end_date: '2010-06-05' }).expect(400);
      expect(res.body).toEqual({
        error: 400,
        error_message: 'Invalid parameter start_date: must be after 2010-06-04',
      });
    }
    for (const start of [
      '2010-06-04T01:00:00Z',
      '2010-06-04 01:00:00',
      '1275613200',
      '2010-06-04T01:59:59Z',
    ]) {
      const res = await get({
        start_date: start,
        end_date: '2010-06-05',
        interval: 'hour',
        with_zeros: 'true',
      }).expect(200);
      expect([
        res.body.start_date,
        res.body.end_date,
        res.body.clicks,
        res.body.intervals.length,
      ]).toEqual(['2010-06-04T01:00:00Z', '2010-06-05T00:00:00Z', 0, 23]);
      expect(res.body.intervals[0]).toEqual({ hour: '2010-06-04T01:00:00Z', clicks: 0 });
    }
  });
});
