import { TestApp, createTestApp } from '../support/app';
import { createProject } from '../factories/projects';
import { BROWSER, GOOGLEBOT } from '../support/clicks';

const INVALID_KEY = { error: 403, error_message: 'Invalid API key specified' };
const EVIL = 'https://evil.example/landing?u=SVC_URL&t=SVC_TEXT';

/**
 * docs/api.md, "Security": the destination fallback of retweet and share (errors=false) sends the
 * visitor on only once the key is valid. The attack: `GET /url/share?destination=https://evil.example/`
 * with no key answered 302 from the service's own domain, an open redirect.
 */
describe('no redirect without a valid key', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ redis: false });
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  const linkCount = async () =>
    Number((await t.db.query('SELECT count(*)::int AS n FROM links')).rows[0].n);
  const get = (path: string, query: Record<string, string>, agent = BROWSER) =>
    t.http.get(path).set('User-Agent', agent).query(query);
  const base = { v: '3', tool: 'publisher-share', channel: 'twitter' };
  const endpoints: [string, Record<string, string>][] = [
    ['/url/share', { ...base, url: 'https://example.com/a', destination: EVIL }],
    ['/url/retweet', { ...base, text: 'see http://example.com/a', destination: EVIL }],
    ['/url/retweet.json', { ...base, text: 'see http://example.com/a', destination: EVIL }],
  ];

  it('answers the bare attack with 403, not a redirect', async () => {
    const res = await get('/url/share', { destination: 'https://evil.example/' }).expect(403);
    expect(res.body).toEqual(INVALID_KEY);
    expect(res.headers.location).toBeUndefined();
  });

  it('answers 403 "Invalid API key specified" to a missing, unknown or ill-formed key, and makes no link', async () => {
    const before = await linkCount();
    for (const [path, query] of endpoints) {
      for (const badKey of [undefined, 'not-a-key', 'f'.repeat(64)]) {
        const res = await get(path, badKey === undefined ? query : { ...query, key: badKey });
        expect([path, badKey, res.status, res.body]).toEqual([path, badKey, 403, INVALID_KEY]);
        expect(res.headers.location).toBeUndefined();
      }
    }
    expect(await linkCount()).toBe(before);
  });

  it('whatever else fails first: a bot, a missing v, a wrong format, a missing tool', async () => {
    const [, share] = endpoints[0];
    const [, retweet] = endpoints[1];
    const cases: [string, Record<string, string>, string][] = [
      ['/url/share', share, GOOGLEBOT],
      ['/url/share', { ...share, v: '2' }, BROWSER],
      ['/url/retweet.xml', retweet, BROWSER],
      ['/url/retweet', { ...retweet, tool: '' }, BROWSER],
    ];
    for (const [path, query, agent] of cases) {
      const res = await get(path, { ...query, key: 'unknown' }, agent);
      expect([path, res.status, res.body]).toEqual([path, 403, INVALID_KEY]);
    }
  });

  it('answers in the endpoint’s shape: JSON-P with callback, plain text on .txt', async () => {
    const [, query] = endpoints[1];
    const jsonp = await get('/url/retweet', { ...query, callback: 'cb' }).expect(403);
    expect(jsonp.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(jsonp.text).toBe(`cb(${JSON.stringify(INVALID_KEY)});`);
    const txt = await get('/url/retweet.txt', query).expect(403);
    expect(txt.text).toBe('Invalid API key specified');
  });

  it('with a valid key, a failing parameter still redirects (errors=false), before or after the key check', async () => {
    const [, share] = endpoints[0];
    const [, retweet] = endpoints[1];
    const asGivenShare = `https://evil.example/landing?u=${encodeURIComponent('https://example.com/a')}&t=SVC_TEXT`;
    const asGivenRetweet = `https://evil.example/landing?u=${encodeURIComponent('http://example.com/a')}&t=${encodeURIComponent('see http://example.com/a')}`;
    const cases: [string, Record<string, string>, string, string][] = [
      ['/url/share', { ...share, tool: '' }, BROWSER, asGivenShare],
      ['/url/share', { ...share, v: '2' }, BROWSER, asGivenShare],
      ['/url/share', share, GOOGLEBOT, asGivenShare],
      ['/url/retweet', { ...retweet, unwrap: 'maybe' }, BROWSER, asGivenRetweet],
      ['/url/retweet.xml', retweet, BROWSER, asGivenRetweet],
    ];
    const before = await linkCount();
    for (const [path, query, agent, location] of cases) {
      const res = await get(path, { ...query, key }, agent);
      expect([path, res.status, res.headers.location]).toEqual([path, 302, location]);
    }
    expect(await linkCount()).toBe(before);
  });

  it('never redirects to a destination that is not http(s), with or without a key', async () => {
    const [, share] = endpoints[0];
    for (const destination of [
      'javascript:alert(document.cookie)//SVC_URL',
      'JaVaScRiPt:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      '//evil.example/SVC_URL',
      'ftp://evil.example/',
    ]) {
      for (const extra of [{}, { key }, { key, errors: 'false' }] as Record<string, string>[]) {
        const res = await get('/url/share', { ...share, destination, ...extra });
        expect([destination, res.status, res.body]).toEqual([
          destination,
          400,
          {
            error: 400,
            error_message: 'Invalid parameter destination: must be an absolute http(s) URL',
          },
        ]);
        expect(res.headers.location).toBeUndefined();
      }
    }
  });
});
