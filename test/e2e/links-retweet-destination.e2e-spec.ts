import { TestApp, createTestApp } from '../support/app';
import type { LinkRecord } from '../../src/links/link-record';
import { connectDomain, createProject } from '../factories/projects';

const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const DESTINATION = 'https://twitter.example/intent/tweet?text=SVC_TEXT&url=SVC_URL';

/** Retweet and share called from end-user pages: whatever fails, the visitor reaches the destination. */
describe('url/retweet and url/share with a destination', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ redis: false, env: { CREATE_RATE_LIMIT: '2' } });
  });
  afterAll(() => t.close());

  const newKey = async () => (await createProject(t)).api_key;
  const params = (key: string, extra: Record<string, string> = {}) => ({
    v: '3',
    key,
    tool: 'publisher-retweet',
    channel: 'twitter',
    ...extra,
  });
  const retweet = (query: Record<string, string>, path = '/url/retweet') =>
    t.http.get(path).set('User-Agent', BROWSER).query(query);
  /** The destination as the visitor gets it when no link was made: the text as given, its first link as is. */
  const asGiven = (text: string, url: string) =>
    `https://twitter.example/intent/tweet?text=${encodeURIComponent(text)}&url=${encodeURIComponent(url)}`;

  describe('errors=false (default) redirects whatever fails; errors=true answers the error', () => {
    it('the rate limit (429)', async () => {
      const key = await newKey();
      const text = 'see http://example.com/r';
      await retweet(params(key, { text })).expect(200);
      await retweet(params(key, { text })).expect(200);
      for (const path of ['/url/retweet', '/url/retweet.json']) {
        const res = await retweet(params(key, { text, destination: DESTINATION }), path).expect(
          302,
        );
        expect(res.headers.location).toBe(asGiven(text, 'http://example.com/r'));
        expect(res.headers['cache-control']).toBe('private, max-age=0');
      }
      const refused = await retweet(
        params(key, { text, destination: DESTINATION, errors: 'true' }),
      ).expect(429);
      expect(refused.body).toEqual({
        error: 429,
        error_message: 'Rate limit exceeded: at most 2 create requests per hour per project',
      });
      const shared = await t.http
        .get('/url/share')
        .set('User-Agent', BROWSER)
        .query(
          params(key, {
            url: 'https://example.com/s',
            destination: 'https://fb.example/?u=SVC_URL',
          }),
        )
        .expect(302);
      expect(shared.headers.location).toBe(
        `https://fb.example/?u=${encodeURIComponent('https://example.com/s')}`,
      );
    });

    it('a parameter the service reads (unwrap, format) and a link that cannot be made (a domain not the project’s)', async () => {
      const text = 'see http://example.com/v';
      const cases: [Record<string, string>, string, number, string][] = [
        [
          { unwrap: 'maybe' },
          '/url/retweet',
          400,
          'Invalid parameter unwrap: must be true or false',
        ],
        [
          {},
          '/url/retweet.xml',
          400,
          'Invalid parameter format: "xml" is not supported; use json or txt',
        ],
        [{ domain: 'elsewhere.example' }, '/url/retweet', 403, 'elsewhere.example'],
      ];
      for (const [extra, path, status, message] of cases) {
        const key = await newKey(); // two requests each, within the project's limit of 2
        const res = await retweet(
          params(key, { text, destination: DESTINATION, ...extra }),
          path,
        ).expect(302);
        expect(res.headers.location).toBe(asGiven(text, 'http://example.com/v'));
        const error = await retweet(
          params(key, { text, destination: DESTINATION, errors: 'true', ...extra }),
          path,
        ).expect(status);
        expect(error.body.error).toBe(status);
        expect(error.body.error_message).toContain(message);
      }
    });

    it('the store (500)', async () => {
      const key = await newKey();
      const text = 'see http://example.com/db';
      await t.db.query('ALTER TABLE links RENAME TO links_away');
      try {
        const res = await retweet(params(key, { text, destination: DESTINATION })).expect(302);
        expect(res.headers.location).toBe(asGiven(text, 'http://example.com/db'));
        const error = await retweet(
          params(key, { text, destination: DESTINATION, errors: 'true' }),
        ).expect(500);
        expect(error.body.error).toBe(500);
      } finally {
        await t.db.query('ALTER TABLE links_away RENAME TO links');
      }
    });

    it('but an invalid destination or errors value is answered, there being nowhere to send the visitor', async () => {
      const key = await newKey();
      const bad = await retweet(
        params(key, { text: 'x', destination: 'ftp://x.example/SVC_TEXT' }),
      ).expect(400);
      expect(bad.body).toEqual({
        error: 400,
        error_message: 'Invalid parameter destination: must be an absolute http(s) URL',
      });
      const errors = await retweet(
        params(key, { text: 'x', destination: DESTINATION, errors: 'maybe' }),
      ).expect(400);
      expect(errors.body).toEqual({
        error: 400,
        error_message: 'Invalid parameter errors: must be true or false',
      });
    });
  });

  it('leaves a link that is no URL in the text as it is, and replaces the others', async () => {
    const key = await newKey();
    const text =
      'a http://example.com:99999/ b http://foo%zz/ c http://xn--/ d http://example.com/ok';
    const res = await retweet(params(key, { text })).expect(200);
    expect(res.body.svc_urls).toHaveLength(1);
    const [link] = res.body.svc_urls as LinkRecord[];
    expect(link.original_url).toBe('http://example.com/ok');
    expect(res.body.svc_text).toBe(
      `a http://example.com:99999/ b http://foo%zz/ c http://xn--/ d ${link.svc_url}`,
    );
  });

  describe('SVC_TEXT keeps the caller’s escapes and escapes what is bare', () => {
    it('a caller who double-encodes & and # (Tom%2526Jerry) gets Tom&Jerry in the post', async () => {
      const key = await newKey();
      const res = await t.http
        .get(
          `/url/retweet?v=3&key=${key}&tool=t&channel=twitter&text=Tom%2526Jerry%20%2523fun%20http%3A%2F%2Fexample.com%2Ft&destination=${encodeURIComponent(DESTINATION)}`,
        )
        .set('User-Agent', BROWSER)
        .expect(302);
      const location = new URL(res.headers.location);
      const [row] = (await t.db.query('SELECT domain, path FROM links ORDER BY id DESC LIMIT 1'))
        .rows as { domain: string; path: string }[];
      expect(location.searchParams.get('text')).toBe(
        `Tom&Jerry #fun http://${row.domain}/${row.path}`,
      );
      expect(res.headers.location).toContain('?text=Tom%26Jerry%20%23fun%20http');
    });

    it('a caller who encodes once (Tom%26Jerry) gets Tom&Jerry too', async () => {
      const key = await newKey();
      const res = await t.http
        .get(
          `/url/retweet?v=3&key=${key}&tool=t&channel=twitter&text=Tom%26Jerry%20%23fun&destination=${encodeURIComponent(DESTINATION)}`,
        )
        .set('User-Agent', BROWSER)
        .expect(302);
      expect(new URL(res.headers.location).searchParams.get('text')).toBe('Tom&Jerry #fun');
    });
  });

  it('GET url/retweet.txt answers svc_text as plain text', async () => {
    const key = await newKey();
    const res = await retweet(
      params(key, { text: 'read http://example.com/txt now' }),
      '/url/retweet.txt',
    ).expect(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    const [row] = (await t.db.query('SELECT domain, path FROM links ORDER BY id DESC LIMIT 1'))
      .rows as { domain: string; path: string }[];
    expect(res.text).toBe(`read http://${row.domain}/${row.path} now`);
  });

  it('domain: the links are made on the project’s custom domain; another domain is refused (403)', async () => {
    const key = await newKey();
    await connectDomain(t, 'rt.example', [key]);
    const res = await retweet(
      params(key, { text: 'http://example.com/1 http://example.com/2', domain: 'rt.example' }),
    ).expect(200);
    expect(
      (res.body.svc_urls as LinkRecord[]).map((r) => [
        r.domain,
        r.svc_url.startsWith('http://rt.example/'),
      ]),
    ).toEqual([
      ['rt.example', true],
      ['rt.example', true],
    ]);
    const refused = await retweet(
      params(key, { text: 'http://example.com/3', domain: 'other.example' }),
    ).expect(403);
    expect(refused.body.error).toBe(403);
  });
});
