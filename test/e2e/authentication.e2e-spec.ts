import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { TestApp, createTestApp } from '../support/app';

const UNKNOWN = 'f'.repeat(64);
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const INVALID_KEY = { error: 403, error_message: 'Invalid API key specified' };

/**
 * One way in (docs/api.md, "Errors"): every endpoint that takes a project `key` refuses an unknown
 * one with 403 before doing anything, and the checks that come before the key (format, the
 * endpoint's own, `v`) still answer first; administration checks its keys the same way.
 */
describe('authentication: project keys and administration keys', () => {
  let t: TestApp;
  let key: string;
  let svcId: string;

  beforeAll(async () => {
    t = await createTestApp();
    key = (await createProject(t, { conversions: { enabled: true, domains: 'all' } })).api_key;
    svcId = (await createLink(t, key)).svc_id;
  });
  afterAll(() => t.close());

  const linkCount = async (): Promise<number> =>
    Number((await t.db.query<{ n: string }>('SELECT count(*) AS n FROM links')).rows[0].n);

  /** Every link and stats route with parameters that would succeed with a valid key. */
  const routes = (): [string, string, Record<string, string>][] => {
    const link = { tool: 'publisher-bar', channel: 'twitter', url: 'https://example.com/a' };
    const period = { start_date: '2026-01-01', end_date: '2026-01-02' };
    return [
      ['url.json', '/url.json', link],
      ['url/batch.json', '/url/batch.json', link],
      ['url/static.json', '/url/static.json', link],
      ['url/update', `/url/update/${svcId}.json`, { tool: 'publisher-bar', notes: 'changed' }],
      ['url/retweet.json', '/url/retweet.json', { ...link, text: 'see http://example.com/b' }],
      ['stats intervals', `/stats/${svcId}/intervals.json`, period],
      ['stats details', `/stats/${svcId}.json`, {}],
      ['stats batch', '/stats/svc_ids/batch.json', { svc_id: svcId }],
      ['stats range', '/stats/range.json', {}],
      ['stats totals', '/stats/totals.json', {}],
      ['stats range intervals', '/stats/range/intervals.json', period],
    ];
  };

  it('refuses an unknown key on every link and stats endpoint, GET and POST, changing nothing', async () => {
    const before = await linkCount();
    for (const [name, path, params] of routes()) {
      const query = { v: '3', key: UNKNOWN, ...params };
      const viaGet = await t.http.get(path).set('User-Agent', BROWSER).query(query);
      expect([name, 'GET', viaGet.status, viaGet.body]).toStrictEqual([
        name,
        'GET',
        403,
        INVALID_KEY,
      ]);
      const viaPost = await t.http.post(path).set('User-Agent', BROWSER).type('form').send(query);
      expect([name, 'POST', viaPost.status, viaPost.body]).toStrictEqual([
        name,
        'POST',
        403,
        INVALID_KEY,
      ]);
    }
    const share = await t.http.get('/url/share').set('User-Agent', BROWSER).query({
      v: '3',
      key: UNKNOWN,
      tool: 'publisher-bar',
      channel: 'facebook-share',
      url: 'https://example.com/a',
      destination: 'https://share.example/?u=SVC_URL',
      errors: 'true',
    });
    expect([share.status, share.body]).toStrictEqual([403, INVALID_KEY]);
    expect(await linkCount()).toBe(before);
  });

  it('checks the format, then v, then the key', async () => {
    const format = await t.http.get('/url.xml').query({ key: UNKNOWN });
    expect([format.status, format.body]).toStrictEqual([
      400,
      {
        error: 400,
        error_message: 'Invalid parameter format: "xml" is not supported; use json or txt',
      },
    ]);
    const callback = await t.http.get('/stats/range.json').query({ key: UNKNOWN, callback: '1x' });
    expect(callback.status).toBe(400);
    expect(callback.body).toStrictEqual({
      error: 400,
      error_message:
        'Invalid parameter callback: must be a JavaScript identifier ([A-Za-z_$][\\w$.]*)',
    });
    const version = await t.http.get('/stats/range.json').query({ key: UNKNOWN });
    expect([version.status, version.body]).toStrictEqual([
      400,
      { error: 400, error_message: 'Missing required parameter: v' },
    ]);
    const txt = await t.http.get('/url.txt').query({ v: '3', key: UNKNOWN });
    expect([txt.status, txt.text]).toStrictEqual([403, 'Invalid API key specified']);
  });

  it('answers retweet’s and share’s own checks before v and the key', async () => {
    const share = await t.http.get('/url/share').set('User-Agent', BROWSER).query({ key: UNKNOWN });
    expect([share.status, share.body]).toStrictEqual([
      400,
      { error: 400, error_message: 'Missing required parameter: destination' },
    ]);
    const errors = await t.http
      .get('/url/retweet.json')
      .set('User-Agent', BROWSER)
      .query({ key: UNKNOWN, errors: 'maybe' });
    expect(errors.body).toStrictEqual({
      error: 400,
      error_message: 'Invalid parameter errors: must be true or false',
    });
    const bot = await t.http
      .get('/url/retweet.json')
      .set('User-Agent', GOOGLEBOT)
      .query({ key: UNKNOWN });
    expect([bot.status, bot.body]).toStrictEqual([
      403,
      { error: 403, error_message: 'Known bots may not create links through this endpoint' },
    ]);
    const posted = await t.http
      .post('/url/retweet.json')
      .set('User-Agent', BROWSER)
      .type('form')
      .send({ key: UNKNOWN, destination: 'https://x.example/' });
    expect(posted.body).toStrictEqual({
      error: 400,
      error_message: 'Invalid parameter destination: is accepted on GET only',
    });
  });

  it('answers a refused key 403 rather than sending a retweet’s visitor on (no open redirect)', async () => {
    const res = await t.http.get('/url/retweet').set('User-Agent', BROWSER).query({
      v: '3',
      key: UNKNOWN,
      tool: 'publisher-bar',
      channel: 'twitter',
      text: 'hello',
      destination: 'https://x.example/intent?text=SVC_TEXT',
    });
    expect([res.status, res.headers.location, res.body]).toStrictEqual([
      403,
      undefined,
      { error: 403, error_message: 'Invalid API key specified' },
    ]);
  });

  it('takes key[] on totals, each key a credential of its own project', async () => {
    const res = await t.http.get('/stats/totals.json').query(`v=3&key[]=${key}&key[]=${UNKNOWN}`);
    expect([res.status, res.body]).toStrictEqual([403, INVALID_KEY]);
    const ok = await t.http.get('/stats/totals.json').query(`v=3&key[]=${key}`);
    expect(ok.status).toBe(200);
  });

  it('refuses conversions with an unknown key in the admin shape, checking no format', async () => {
    const res = await t.http
      .get('/conversions/new')
      .query({ key: UNKNOWN, callback: '1x', svc_url: svcId });
    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual({
      request: {
        key: UNKNOWN,
        callback: '1x',
        svc_url: svcId,
        action: 'new',
        controller: 'conversion',
      },
      error: { code: 1000, message: 'Invalid API key specified' },
    });
    // Landing pages call it from any origin: they can read its refusals too.
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const missing = await t.http.post('/conversions/new').type('form').send({ svc_url: svcId });
    expect(missing.body.error).toStrictEqual({
      code: 1001,
      message: 'Missing required parameter: key',
    });
    expect(missing.headers['access-control-allow-origin']).toBe('*');
  });

  it('validates an administration DTO before the keys, and the keys before the request', async () => {
    const dto = await t.http
      .get('/projects/list')
      .query('subscription_key[]=a&subscription_key[]=b');
    expect(dto.status).toBe(400);
    expect(dto.body).toStrictEqual({
      request: { subscription_key: ['a', 'b'], method: 'list', object: 'project' },
      error: {
        code: 1002,
        message: 'Invalid parameter subscription_key: subscription_key must be a string',
      },
    });
    const domains = await t.http
      .get('/domains/list')
      .query('subscription_key[]=a&subscription_key[]=b');
    expect(domains.body.error).toStrictEqual({
      code: 1002,
      message: 'Invalid parameter subscription_key: must be a single string',
    });
    const before = await t.db.query('SELECT count(*) AS n FROM projects');
    const refused = await t.http
      .post('/projects/new')
      .type('form')
      .send({ subscription_key: 'nope', json: JSON.stringify({ name: 'never' }) });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toStrictEqual({
      code: 1000,
      message: 'Invalid API key specified (subscription_key)',
    });
    const after = await t.db.query('SELECT count(*) AS n FROM projects');
    expect(after.rows).toStrictEqual(before.rows);
  });
});
