import { TestApp, createTestApp } from '../support/app';
import { createProject } from '../factories/projects';
import { BROWSER, storedClicks } from '../support/clicks';

describe('conversions/new', () => {
  let t: TestApp;
  let key: string;
  let svcId: string;
  let path: string;
  beforeAll(async () => {
    // Two proxies: the test's connection and 10.0.0.1 (read_headers resolves the client as redirects do).
    t = await createTestApp({ env: { TRUST_PROXY: '2' } });
    key = (
      await createProject(t, {
        conversions: { enabled: true, domains: 'all', goal_1_label: 'Signup' },
      })
    ).api_key;
    const res = await t.http
      .get('/url.json')
      .query({ v: '3', key, tool: 't', channel: 'email', url: 'https://shop.example/' })
      .expect(200);
    svcId = res.body.svc_id;
    path = res.body.path;
  });
  afterAll(() => t.close());

  const convert = (query: Record<string, string>) =>
    t.http.get('/conversions/new').query({ key, svc_url: svcId, ...query });

  it('records a goal with every 2.2 field, attributed to the visitor’s click, and echoes strings', async () => {
    const visit = await t.http
      .get(`/${path}`)
      .set('Host', 'svc.test')
      .set('User-Agent', BROWSER)
      .expect(302);
    expect(visit.headers.location).toBe(`https://shop.example/?svc=${encodeURIComponent(svcId)}`);
    await t.settle();
    const [{ id: clickId }] = await storedClicks(t);
    const at = String(Math.floor(Date.now() / 1000) + 60);
    const res = await convert({
      conversion_type: 'goal_1',
      conversion_value: '1999',
      account_conversion_id: 'order-1',
      account_user: 'u-7',
      created_at: at,
      user_agent: BROWSER,
      ip: '127.0.0.1',
      language: 'en-GB',
      referrer: 'https://shop.example/cart',
      session_id: 'sess-1',
    }).expect(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.body).toEqual({
      request: {
        key,
        svc_url: svcId,
        conversion_type: 'goal_1',
        conversion_value: '1999',
        account_conversion_id: 'order-1',
        account_user: 'u-7',
        created_at: at,
        user_agent: BROWSER,
        ip: '127.0.0.1',
        language: 'en-GB',
        referrer: 'https://shop.example/cart',
        session_id: 'sess-1',
        action: 'new',
        controller: 'conversion',
      },
      response: {
        conversion: {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          svc_url: svcId,
          type: 'goal_1',
          value: 1999,
          converted_at: Number(at),
          account_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          account_conversionid: 'order-1',
          account_userid: 'u-7',
          clicker_id: null,
          href: null,
          ip_address: '127.0.0.1',
          language: 'en-GB',
          redirection_id: clickId,
          referrer: 'https://shop.example/cart',
          session_id: 'sess-1',
          user_agent: BROWSER,
        },
      },
    });
    // The same account_conversion_id gives back the first conversion, not a second one.
    const again = await convert({
      conversion_type: 'goal_1',
      conversion_value: '5',
      account_conversionid: 'order-1',
    }).expect(200);
    expect(again.body.response.conversion.id).toBe(res.body.response.conversion.id);
    expect(again.body.response.conversion.value).toBe(1999);
    const stats = await t.http
      .get('/stats/range.json')
      .query({ v: '3', key, start_date: '2026-11-01', with_conversions: 'true' })
      .expect(200);
    expect(stats.body.totals.conversions.goal_1).toEqual({
      count: 1,
      value: 1999,
      label: 'Signup',
    });
  });

  it('ignores the value of a pageview and reads the request headers when asked', async () => {
    const res = await t.http
      .post('/conversions/new')
      .type('form')
      .set('User-Agent', 'Visitor/1.0')
      .set('X-Forwarded-For', '203.0.113.9, 10.0.0.1')
      .set('Accept-Language', 'de')
      .set('Referer', 'https://shop.example/a')
      .send({
        key,
        svc_url: `http://svc.test/${path}`,
        conversion_type: 'pageview',
        conversion_value: '50',
        read_headers: 'true',
      })
      .expect(200);
    const c = res.body.response.conversion;
    expect([c.type, c.value, c.ip_address, c.user_agent, c.language, c.referrer]).toEqual([
      'pageview',
      0,
      '203.0.113.9',
      'Visitor/1.0',
      'de',
      'https://shop.example/a',
    ]);
  });

  it('records a pageview whatever its value says, as 0; a goal’s value must still be an integer', async () => {
    const fresh = await t.http
      .get('/url.json')
      .query({ v: '3', key, tool: 't', channel: 'email', url: 'https://shop.example/pv' })
      .expect(200);
    const pageview = (value: string) =>
      t.http.get('/conversions/new').query({
        key,
        svc_url: fresh.body.svc_id,
        conversion_type: 'pageview',
        conversion_value: value,
      });
    const res = await pageview('n/a').expect(200);
    expect(res.body.request.conversion_value).toBe('n/a');
    expect([res.body.response.conversion.type, res.body.response.conversion.value]).toEqual([
      'pageview',
      0,
    ]);
    await pageview('12.5').expect(200);
    const posted = await t.http
      .post('/conversions/new')
      .type('form')
      .send({
        key,
        svc_url: fresh.body.svc_id,
        conversion_type: 'pageview',
        conversion_value: 'x'.repeat(100),
      })
      .expect(200);
    expect(posted.body.response.conversion.value).toBe(0);
    const { rows } = await t.db.query<{ type: string; value: string }>(
      `SELECT type, value::text FROM conversions WHERE svc_id = $1 ORDER BY converted_at, id`,
      [fresh.body.svc_id],
    );
    expect(rows).toEqual([
      { type: 'pageview', value: '0' },
      { type: 'pageview', value: '0' },
      { type: 'pageview', value: '0' },
    ]);
    const totals = await t.http
      .get('/stats/totals.json')
      .query({ v: '3', key, svc_id: fresh.body.svc_id, with_conversions: 'true' })
      .expect(200);
    expect(totals.body.totals.conversions.pageviews).toBe(3);
    // The parameter stays required, and a goal's value is checked.
    const missing = await pageview('').expect(400);
    expect(missing.body.error).toEqual({
      code: 1001,
      message: 'Missing required parameter: conversion_value',
    });
    const goal = await t.http
      .get('/conversions/new')
      .query({
        key,
        svc_url: fresh.body.svc_id,
        conversion_type: 'goal_1',
        conversion_value: 'n/a',
      })
      .expect(400);
    expect(goal.body.error).toEqual({
      code: 1002,
      message: 'Invalid parameter conversion_value: must be an integer (cents suggested for money)',
    });
  });

  it('dates a conversion without created_at at the time of the request', async () => {
    const fresh = await t.http
      .get('/url.json')
      .query({ v: '3', key, tool: 't', channel: 'email', url: 'https://shop.example/now' })
      .expect(200);
    // Only Date is faked: the clock stands still at a known instant while timers and I/O run.
    const at = new Date('2031-05-06T07:08:09.750Z');
    jest.useFakeTimers({
      now: at,
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    });
    let res: Awaited<ReturnType<typeof convert>>;
    try {
      res = await t.http
        .get('/conversions/new')
        .query({
          key,
          svc_url: fresh.body.svc_id,
          conversion_type: 'goal_1',
          conversion_value: '5',
        })
        .expect(200);
    } finally {
      jest.useRealTimers();
    }
    expect(res.body.response.conversion.converted_at).toBe(Math.floor(at.getTime() / 1000));
    const { rows } = await t.db.query<{ converted_at: Date }>(
      `SELECT converted_at FROM conversions WHERE svc_id = $1`,
      [fresh.body.svc_id],
    );
    expect(rows.map((r) => r.converted_at.toISOString())).toEqual([at.toISOString()]);
  });

  it('without read_headers records none of the caller’s own headers', async () => {
    const fresh = await t.http
      .get('/url.json')
      .query({ v: '3', key, tool: 't', channel: 'email', url: 'https://shop.example/server' })
      .expect(200);
    const headers = {
      'User-Agent': 'CallerServer/2.0',
      'X-Forwarded-For': '203.0.113.50',
      Referer: 'https://caller.example/admin',
      'Accept-Language': 'fr-CA',
    };
    const asked = [
      t.http.get('/conversions/new').query({
        key,
        svc_url: fresh.body.svc_id,
        conversion_type: 'goal_1',
        conversion_value: '7',
      }),
      t.http.post('/conversions/new').type('form').send({
        key,
        svc_url: fresh.body.svc_id,
        conversion_type: 'goal_2',
        conversion_value: '8',
        read_headers: 'false',
      }),
    ];
    for (const request of asked) {
      const res = await request.set(headers).expect(200);
      const c = res.body.response.conversion;
      expect([c.ip_address, c.user_agent, c.language, c.referrer]).toEqual([
        null,
        null,
        null,
        null,
      ]);
    }
    const { rows } = await t.db.query<Record<string, unknown>>(
      `SELECT type, ip, user_agent, language, referrer FROM conversions WHERE svc_id = $1 ORDER BY type`,
      [fresh.body.svc_id],
    );
    expect(rows).toEqual([
      { type: 'goal_1', ip: null, user_agent: null, language: null, referrer: null },
      { type: 'goal_2', ip: null, user_agent: null, language: null, referrer: null },
    ]);
    // Given as parameters, the visitor's values are recorded as given, headers or not.
    const given = await t.http
      .get('/conversions/new')
      .query({
        key,
        svc_url: fresh.body.svc_id,
        conversion_type: 'goal_3',
        conversion_value: '9',
        ip: '198.51.100.20',
        user_agent: 'Visitor/3.0',
        language: 'nl',
        referrer: 'https://shop.example/x',
      })
      .set(headers)
      .expect(200);
    const c = given.body.response.conversion;
    expect([c.ip_address, c.user_agent, c.language, c.referrer]).toEqual([
      '198.51.100.20',
      'Visitor/3.0',
      'nl',
      'https://shop.example/x',
    ]);
  });

  it('attributes later conversions of a session to the click of its first, and takes the original spellings', async () => {
    const first = await convert({
      conversion_type: 'pageview',
      conversion_value: '0',
      session_id: 'sess-9',
      ip_address: '198.51.100.7',
      user_agent: 'Other/1.0',
    }).expect(200);
    const clickId = first.body.response.conversion.redirection_id as string;
    expect(clickId).toMatch(/^[0-9a-f-]{36}$/);
    // A later click of someone else does not take over the session's attribution.
    await t.http
      .get(`/${path}`)
      .set('Host', 'svc.test')
      .set('User-Agent', 'Someone/2.0')
      .expect(302);
    await t.settle();
    const second = await convert({
      conversion_type: 'goal_2',
      conversion_value: '-300',
      session_id: 'sess-9',
      account_userid: 'u-9',
      converted_at: String(Math.floor(Date.now() / 1000) + 120),
      href: 'https://shop.example/thanks',
      clicker_id: 'c-1',
    }).expect(200);
    const c = second.body.response.conversion;
    expect([
      c.redirection_id,
      c.value,
      c.account_userid,
      c.href,
      c.clicker_id,
      c.session_id,
    ]).toEqual([clickId, -300, 'u-9', 'https://shop.example/thanks', 'c-1', 'sess-9']);
    expect(first.body.response.conversion.ip_address).toBe('198.51.100.7');
  });

  it('gives a conversion without a known click a redirection id of its own, shared by its session', async () => {
    const fresh = await t.http
      .get('/url.json')
      .query({ v: '3', key, tool: 't', channel: 'email', url: 'https://shop.example/new' })
      .expect(200);
    const first = await t.http
      .get('/conversions/new')
      .query({
        key,
        svc_url: fresh.body.svc_id,
        conversion_type: 'pageview',
        conversion_value: '0',
        session_id: 'sess-unseen',
      })
      .expect(200);
    const id = first.body.response.conversion.redirection_id as string;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect((await storedClicks(t)).map((c) => c.id)).not.toContain(id);
    const later = await t.http
      .get('/conversions/new')
      .query({
        key,
        svc_url: fresh.body.svc_id,
        conversion_type: 'goal_1',
        conversion_value: '10',
        session_id: 'sess-unseen',
      })
      .expect(200);
    expect(later.body.response.conversion.redirection_id).toBe(id);
    const other = await t.http
      .get('/conversions/new')
      .query({ key, svc_url: fresh.body.svc_id, conversion_type: 'goal_1', conversion_value: '10' })
      .expect(200);
    expect(other.body.response.conversion.redirection_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(other.body.response.conversion.redirection_id).not.toBe(id);
  });

  it('refuses bad parameters in the admin error shape, naming them', async () => {
    const cases: [Record<string, string>, number, number, string][] = [
      [{ svc_url: '' }, 400, 1001, 'Missing required parameter: svc_url'],
      [{ conversion_value: '1' }, 400, 1001, 'Missing required parameter: conversion_type'],
      [
        { conversion_type: 'goal_6', conversion_value: '1' },
        400,
        1002,
        'Invalid parameter conversion_type: must be one of pageview, goal_1, goal_2, goal_3, goal_4, goal_5',
      ],
      [{ conversion_type: 'goal_1' }, 400, 1001, 'Missing required parameter: conversion_value'],
      [
        { conversion_type: 'goal_1', conversion_value: '1.5' },
        400,
        1002,
        'Invalid parameter conversion_value: must be an integer (cents suggested for money)',
      ],
      [
        { conversion_type: 'goal_1', conversion_value: '1', account_conversion_id: 'x'.repeat(51) },
        400,
        1002,
        'Invalid parameter account_conversion_id: must be at most 50 characters',
      ],
      [
        { conversion_type: 'goal_1', conversion_value: '1', account_user: 'x'.repeat(51) },
        400,
        1002,
        'Invalid parameter account_user: must be at most 50 characters',
      ],
      [
        { conversion_type: 'goal_1', conversion_value: '1', ip: 'nope' },
        400,
        1002,
        'Invalid parameter ip: must be an IP address',
      ],
      [
        { conversion_type: 'goal_1', conversion_value: '1', created_at: 'yesterday' },
        400,
        1002,
        'Invalid parameter created_at: must be a UNIX timestamp (seconds)',
      ],
      [
        { conversion_type: 'goal_1', conversion_value: '1', svc_url: 'svc.test_nope' },
        404,
        1003,
        'No link svc.test_nope in this project',
      ],
      [
        { conversion_type: 'goal_1', conversion_value: '1', key: 'bad' },
        403,
        1000,
        'Invalid API key specified',
      ],
    ];
    for (const [query, status, code, message] of cases) {
      const res = await convert(query).expect(status);
      expect(res.body.error).toEqual({ code, message });
      expect(res.body.request.controller).toBe('conversion');
    }
  });

  it('refuses a project without conversions (403)', async () => {
    const other = await createProject(t);
    const link = await t.http
      .get('/url.json')
      .query({ v: '3', key: other.api_key, tool: 't', channel: 'email', url: 'https://x.example/' })
      .expect(200);
    const res = await t.http
      .get('/conversions/new')
      .query({
        key: other.api_key,
        svc_url: link.body.svc_id,
        conversion_type: 'goal_1',
        conversion_value: '1',
      })
      .expect(403);
    expect(res.body.error).toEqual({
      code: 1004,
      message: 'Conversions are not enabled for this project',
    });
  });

  it('serves the tracking script, cacheable', async () => {
    const res = await t.http.get('/svc.js').expect(200);
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.text).toContain('_svcsession');
    expect(res.text).toContain('convert: function (goal, value)');
  });
});
