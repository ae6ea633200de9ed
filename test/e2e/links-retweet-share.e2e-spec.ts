import { AddressInfo } from 'node:net';
import { Server, createServer } from 'node:http';
import { TestApp, createTestApp } from '../support/app';
import type { LinkRecord } from '../../src/links/link-record';
import { createProject } from '../factories/projects';
import { LINK_FIELDS, createLink } from '../factories/links';

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

/**
 * A real peer for unwrapping: /start → /middle → /final (200), /loop redirects to itself,
 * /hops/<n> takes n redirects to /final, /to?u=<url> redirects to url.
 */
async function startPeer(): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    const redirects: Record<string, [number, string]> = {
      '/start': [302, '/middle'],
      '/middle': [301, '/final?from=chain'],
      '/loop': [302, '/loop'],
      '/to-metadata': [302, 'http://169.254.169.254/latest/meta-data/'],
      '/to-private': [302, 'http://10.1.2.3/admin'],
    };
    const path = (req.url ?? '/').split('?')[0];
    const hop = redirects[path];
    const hops = /^\/hops\/(\d+)$/.exec(path);
    if (hops) {
      // /hops/<n>: n redirects to /final.
      const n = Number(hops[1]);
      res.writeHead(302, { Location: n > 0 ? `/hops/${n - 1}` : '/final' }).end();
    } else if (path === '/to') {
      res
        .writeHead(302, {
          Location: new URL(req.url ?? '/', 'http://x').searchParams.get('u') ?? '/',
        })
        .end();
    } else if (hop) {
      res.writeHead(hop[0], { Location: hop[1] }).end();
    } else {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><title>final</title></html>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('url/retweet and url/share', () => {
  let t: TestApp;
  let key: string;
  let peer: { server: Server; base: string };
  beforeAll(async () => {
    peer = await startPeer();
    t = await createTestApp({ env: { CRAWLER_ALLOW_LOOPBACK: 'true' } });
    key = (await createProject(t)).api_key;
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => peer.server.close(resolve));
  });

  const params = (extra: Record<string, string> = {}) => ({
    v: '3',
    key,
    tool: 'publisher-retweet',
    channel: 'twitter',
    ...extra,
  });
  const retweet = (extra: Record<string, string>) =>
    t.http.post('/url/retweet.json').set('User-Agent', BROWSER).type('form').send(params(extra));
  const linkCount = async () =>
    Number((await t.db.query('SELECT count(*)::int AS n FROM links')).rows[0].n);

  describe('retweet', () => {
    it('replaces every http:// link of the text by a new link, never an https:// one', async () => {
      const text =
        'Read http://example.com/a, then http://example.org/b?x=1. And (HTTP://example.net/c)! Not https://example.io/d.';
      const res = await retweet({ text }).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(['svc_text', 'svc_urls']);
      const records = res.body.svc_urls as LinkRecord[];
      expect(records.map((r) => r.original_url)).toEqual([
        'http://example.com/a',
        'http://example.org/b?x=1',
        'HTTP://example.net/c',
      ]);
      for (const record of records) {
        expect(Object.keys(record).sort()).toEqual(LINK_FIELDS);
        expect(record).toMatchObject({
          channel: 'twitter',
          service: 'twitter',
          tool: 'publisher-retweet',
          parent: null,
        });
      }
      expect(res.body.svc_text).toBe(
        `Read ${records[0].svc_url}, then ${records[1].svc_url}. And (${records[2].svc_url})! Not https://example.io/d.`,
      );
    });

    it('gives each occurrence its own link and applies the metadata to all of them', async () => {
      const res = await retweet({
        text: 'http://example.com/same http://example.com/same',
        tag: 'rt',
        campaign: 'Retweets',
        campaign_description: 'From retweet',
        user_id: 'U5',
      }).expect(200);
      const [a, b] = res.body.svc_urls as LinkRecord[];
      expect(a.svc_id).not.toBe(b.svc_id);
      for (const r of [a, b]) {
        expect(r).toMatchObject({
          original_url: 'http://example.com/same',
          tag: 'rt',
          campaign: 'retweets',
          campaign_metadata: { description: 'From retweet', name: 'Retweets' },
          user_id: 'U5',
        });
      }
      expect(res.body.svc_text).toBe(`${a.svc_url} ${b.svc_url}`);
    });

    it('returns the text unchanged and no links when the text has none', async () => {
      const res = await retweet({
        text: 'nothing to see here, www.example.com is not a link',
      }).expect(200);
      expect(res.body).toEqual({
        svc_text: 'nothing to see here, www.example.com is not a link',
        svc_urls: [],
      });
    });

    it('answers GET url/retweet without format as JSON, url/retweet.txt with svc_text', async () => {
      const json = await t.http
        .get('/url/retweet')
        .set('User-Agent', BROWSER)
        .query(params({ text: 'see http://example.com/g' }))
        .expect(200);
      expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(json.body.svc_text).toBe(`see ${json.body.svc_urls[0].svc_url}`);
      const txt = await t.http
        .post('/url/retweet.txt')
        .type('form')
        .send(params({ text: 'see http://example.com/t' }))
        .expect(200);
      expect(txt.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(txt.text).toMatch(/^see http:\/\/svc\.test\/[0-9A-Za-z]{7}$/);
      const xml = await t.http
        .post('/url/retweet.xml')
        .type('form')
        .send(params({ text: 'x' }))
        .expect(400);
      expect(xml.body).toEqual({
        error: 400,
        error_message: 'Invalid parameter format: "xml" is not supported; use json or txt',
      });
    });

    it('requires v, key, tool, channel and text; refuses path', async () => {
      for (const name of ['v', 'key', 'tool', 'channel', 'text']) {
        const res = await t.http
          .post('/url/retweet.json')
          .type('form')
          .send({ ...params({ text: 'http://example.com/' }), [name]: '' })
          .expect(400);
        expect(res.body).toEqual({
          error: 400,
          error_message: `Missing required parameter: ${name}`,
        });
      }
      const path = await retweet({ text: 'http://example.com/', path: 'mine' }).expect(400);
      expect(path.body).toEqual({
        error: 400,
        error_message: 'Invalid parameter path: is not usable on this endpoint',
      });
    });

    describe('make_parent', () => {
      let parent: LinkRecord;
      beforeAll(async () => {
        parent = await createLink(t, key, { url: 'https://example.com/original' });
      });

      it('makes links of the service in the text parents by default (svc_url or svc= parameter)', async () => {
        const res = await retweet({
          text: `${parent.svc_url} and http://shop.example/?svc=${parent.svc_id}`,
        }).expect(200);
        expect((res.body.svc_urls as LinkRecord[]).map((r) => [r.original_url, r.parent])).toEqual([
          [parent.svc_url, parent.svc_id],
          [`http://shop.example/?svc=${parent.svc_id}`, parent.svc_id],
        ]);
      });

      it('leaves parent null with make_parent=false (any case)', async () => {
        const res = await retweet({ text: parent.svc_url, make_parent: 'FALSE' }).expect(200);
        expect(res.body.svc_urls[0]).toMatchObject({ original_url: parent.svc_url, parent: null });
      });

      it('does not make another project’s link a parent', async () => {
        const foreign = await createLink(t, (await createProject(t)).api_key);
        const res = await retweet({ text: foreign.svc_url }).expect(200);
        expect(res.body.svc_urls[0]).toMatchObject({ original_url: foreign.svc_url, parent: null });
      });

      it('unwraps links of the service from the database and keeps them as parents', async () => {
        const res = await retweet({ text: `look ${parent.svc_url}`, unwrap: 'true' }).expect(200);
        expect(res.body.svc_urls[0]).toMatchObject({
          original_url: 'https://example.com/original',
          parent: parent.svc_id,
        });
        const noParent = await retweet({
          text: parent.svc_url,
          unwrap: 'true',
          make_parent: 'false',
        }).expect(200);
        expect(noParent.body.svc_urls[0]).toMatchObject({
          original_url: 'https://example.com/original',
          parent: null,
        });
      });
    });

    describe('unwrap through the crawler (local peer, CRAWLER_ALLOW_LOOPBACK=true)', () => {
      it('follows a redirect chain to the final URL', async () => {
        const res = await retweet({
          text: `chain ${peer.base}/start and ${peer.base}/final`,
          unwrap: 'true',
        }).expect(200);
        expect((res.body.svc_urls as LinkRecord[]).map((r) => r.original_url)).toEqual([
          `${peer.base}/final?from=chain`,
          `${peer.base}/final`,
        ]);
      });

      it('follows a link of the service to its stored URL and on to where that redirects', async () => {
        const link = await createLink(t, key, { url: `${peer.base}/start` });
        const onward = await createLink(t, key, { url: link.svc_url });
        const res = await retweet({
          text: `${link.svc_url} ${onward.svc_url}`,
          unwrap: 'true',
        }).expect(200);
        expect((res.body.svc_urls as LinkRecord[]).map((r) => [r.original_url, r.parent])).toEqual([
          [`${peer.base}/final?from=chain`, link.svc_id],
          [`${peer.base}/final?from=chain`, onward.svc_id],
        ]);
      });

      it('resolves a link of the service reached by a redirect without requesting it', async () => {
        const link = await createLink(t, key, { url: `${peer.base}/start` });
        const res = await retweet({
          text: `${peer.base}/to?u=${encodeURIComponent(link.svc_url)}`,
          unwrap: 'true',
        }).expect(200);
        expect(res.body.svc_urls[0].original_url).toBe(`${peer.base}/final?from=chain`);
      });

      it('counts a link of the service as a hop of the ten; a failed crawl keeps its stored URL', async () => {
        // Nine redirects after the link: ten hops, the final page.
        const nine = await createLink(t, key, { url: `${peer.base}/hops/8` });
        // Ten after it: eleven hops, one too many.
        const ten = await createLink(t, key, { url: `${peer.base}/hops/9` });
        const loop = await createLink(t, key, { url: `${peer.base}/loop` });
        const toPrivate = await createLink(t, key, { url: `${peer.base}/to-private` });
        const res = await retweet({
          text: [nine, ten, loop, toPrivate].map((l) => l.svc_url).join(' '),
          unwrap: 'true',
        }).expect(200);
        expect((res.body.svc_urls as LinkRecord[]).map((r) => r.original_url)).toEqual([
          `${peer.base}/final`,
          `${peer.base}/hops/9`,
          `${peer.base}/loop`,
          `${peer.base}/to-private`,
        ]);
        // Without a link of the service first, ten redirects are within the limit.
        const direct = await retweet({ text: `${peer.base}/hops/9`, unwrap: 'true' }).expect(200);
        expect(direct.body.svc_urls[0].original_url).toBe(`${peer.base}/final`);
      });

      it('keeps the URL as given without unwrap, and when the crawl fails (redirect loop)', async () => {
        const plain = await retweet({ text: `${peer.base}/start` }).expect(200);
        expect(plain.body.svc_urls[0].original_url).toBe(`${peer.base}/start`);
        const loop = await retweet({ text: `${peer.base}/loop`, unwrap: 'true' }).expect(200);
        expect(loop.body.svc_urls[0].original_url).toBe(`${peer.base}/loop`);
      });

      it('refuses a hop to a metadata or private address (SSRF): the URL stays as given', async () => {
        const res = await retweet({
          text: `${peer.base}/to-metadata ${peer.base}/to-private`,
          unwrap: 'true',
        }).expect(200);
        expect((res.body.svc_urls as LinkRecord[]).map((r) => r.original_url)).toEqual([
          `${peer.base}/to-metadata`,
          `${peer.base}/to-private`,
        ]);
      });

      it('answers JSON-P with callback', async () => {
        const res = await retweet({ text: 'http://example.com/p', callback: 'rt' }).expect(200);
        expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
        expect(res.text).toMatch(
          /^rt\(\{"svc_text":"http:\/\/svc\.test\/[0-9A-Za-z]{7}","svc_urls":\[\{.*\}\]\}\);$/,
        );
      });
    });

    describe('destination (GET only)', () => {
      it('redirects 302 to destination with every SVC_TEXT replaced by the URL-escaped new text, SVC_URL by the link', async () => {
        const text = 'Great read: http://example.com/article #news & more SVC_URL';
        const res = await t.http
          .get('/url/retweet')
          .set('User-Agent', BROWSER)
          .query(
            params({
              text,
              destination:
                'https://twitter.example/intent/tweet?text=SVC_TEXT&via=svc&copy=SVC_TEXT&url=SVC_URL',
            }),
          )
          .expect(302);
        const [link] = (await t.db.query('SELECT domain, path FROM links ORDER BY id DESC LIMIT 1'))
          .rows as { domain: string; path: string }[];
        const svcUrl = `http://${link.domain}/${link.path}`;
        const escaped = encodeURIComponent(`Great read: ${svcUrl} #news & more SVC_URL`);
        expect(res.headers.location).toBe(
          `https://twitter.example/intent/tweet?text=${escaped}&via=svc&copy=${escaped}&url=${encodeURIComponent(svcUrl)}`,
        );
        expect(res.headers['cache-control']).toBe('private, max-age=0');
      });

      it('is refused on POST', async () => {
        const res = await retweet({
          text: 'http://example.com/',
          destination: 'https://twitter.example/?t=SVC_TEXT',
        }).expect(400);
        expect(res.body).toEqual({
          error: 400,
          error_message: 'Invalid parameter destination: is accepted on GET only',
        });
      });

      it('refuses a destination that is not an absolute http(s) URL', async () => {
        const res = await t.http
          .get('/url/retweet')
          .query(params({ text: 'x', destination: 'javascript:alert(SVC_TEXT)' }))
          .expect(400);
        expect(res.body).toEqual({
          error: 400,
          error_message: 'Invalid parameter destination: must be an absolute http(s) URL',
        });
      });

      it('errors=false (default): a failure still redirects, with the original text and its first link for SVC_URL', async () => {
        const before = await linkCount();
        const text = 'see http://example.com/x';
        const destination = 'https://twitter.example/intent/tweet?text=SVC_TEXT&url=SVC_URL';
        // Only for a valid key (docs/api.md, "Security"): a bad one is answered 403.
        const badKey = await t.http
          .get('/url/retweet')
          .query({ ...params({ text, destination }), key: 'bad-key' })
          .expect(403);
        expect(badKey.body).toEqual({ error: 403, error_message: 'Invalid API key specified' });
        for (const extra of [{ tool: '' }, { errors: 'false', v: '2' }]) {
          const res = await t.http
            .get('/url/retweet')
            .query({ ...params({ text, destination }), ...extra })
            .expect(302);
          expect(res.headers.location).toBe(
            `https://twitter.example/intent/tweet?text=${encodeURIComponent(text)}&url=${encodeURIComponent('http://example.com/x')}`,
          );
        }
        expect(await linkCount()).toBe(before);
      });

      it('errors=true: a failure answers the error', async () => {
        const query = params({
          text: 'see http://example.com/x',
          destination: 'https://twitter.example/?t=SVC_TEXT',
          errors: 'true',
        });
        const badKey = await t.http
          .get('/url/retweet')
          .query({ ...query, key: 'bad-key' })
          .expect(403);
        expect(badKey.body).toEqual({ error: 403, error_message: 'Invalid API key specified' });
        const noTool = await t.http
          .get('/url/retweet')
          .query({ ...query, tool: '' })
          .expect(400);
        expect(noTool.body).toEqual({
          error: 400,
          error_message: 'Missing required parameter: tool',
        });
      });
    });

    describe('known bots', () => {
      it('refuses a crawler user agent with 403 and creates nothing', async () => {
        const before = await linkCount();
        const post = await t.http
          .post('/url/retweet.json')
          .set('User-Agent', GOOGLEBOT)
          .type('form')
          .send(params({ text: 'http://example.com/' }))
          .expect(403);
        expect(post.body).toEqual({
          error: 403,
          error_message: 'Known bots may not create links through this endpoint',
        });
        const get = await t.http
          .get('/url/retweet')
          .set(
            'User-Agent',
            'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
          )
          .query(params({ text: 'http://example.com/' }))
          .expect(403);
        expect(get.body).toEqual({
          error: 403,
          error_message: 'Known bots may not create links through this endpoint',
        });
        expect(await linkCount()).toBe(before);
      });

      it('lets HTTP client libraries through: server-side applications call retweet', async () => {
        for (const agent of [
          'curl/8.5.0',
          'python-requests/2.31.0',
          'node',
          'Go-http-client/1.1',
        ]) {
          await t.http
            .get('/url/retweet')
            .set('User-Agent', agent)
            .query(params({ text: 'http://example.com/' }))
            .expect(200);
        }
      });

      it('with a destination and errors=false, redirects a bot with the original text without creating a link', async () => {
        const before = await linkCount();
        const res = await t.http
          .get('/url/retweet')
          .set('User-Agent', GOOGLEBOT)
          .query(
            params({
              text: 'http://example.com/',
              destination: 'https://twitter.example/?t=SVC_TEXT',
            }),
          )
          .expect(302);
        expect(res.headers.location).toBe(
          `https://twitter.example/?t=${encodeURIComponent('http://example.com/')}`,
        );
        expect(await linkCount()).toBe(before);
      });
    });
  });

  describe('share', () => {
    const share = (extra: Record<string, string>, ua = BROWSER) =>
      t.http
        .get('/url/share')
        .set('User-Agent', ua)
        .query(params({ url: 'https://example.com/shared', ...extra }));

    it('creates a link and redirects 302 to destination with every SVC_URL replaced', async () => {
      const res = await share({
        destination: 'https://facebook.example/sharer.php?u=SVC_URL&alt=SVC_URL',
        tag: 'share',
      }).expect(302);
      const rows = (
        await t.db.query(
          `SELECT domain, path, original_url, tag, channel FROM links WHERE tag = 'share'`,
        )
      ).rows as Record<string, string>[];
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        domain: 'svc.test',
        original_url: 'https://example.com/shared',
        tag: 'share',
        channel: 'twitter',
      });
      const escaped = encodeURIComponent(`http://svc.test/${rows[0].path}`);
      expect(res.headers.location).toBe(
        `https://facebook.example/sharer.php?u=${escaped}&alt=${escaped}`,
      );
      expect(res.headers['cache-control']).toBe('private, max-age=0');
    });

    it('requires destination', async () => {
      const res = await share({}).expect(400);
      expect(res.body).toEqual({
        error: 400,
        error_message: 'Missing required parameter: destination',
      });
    });

    it('errors=false: a failure redirects with the url as given; errors=true answers the error', async () => {
      const before = await linkCount();
      const destination = 'https://facebook.example/sharer.php?u=SVC_URL';
      const redirected = await share({ destination, tool: '' }).expect(302);
      expect(redirected.headers.location).toBe(
        `https://facebook.example/sharer.php?u=${encodeURIComponent('https://example.com/shared')}`,
      );
      const noTool = await share({ destination, tool: '', errors: 'true' }).expect(400);
      expect(noTool.body).toEqual({
        error: 400,
        error_message: 'Missing required parameter: tool',
      });
      // A bad key is answered whatever errors says (docs/api.md, "Security": no open redirect).
      for (const errors of ['true', 'false']) {
        const error = await share({ destination, key: 'bad-key', errors }).expect(403);
        expect(error.body).toEqual({ error: 403, error_message: 'Invalid API key specified' });
      }
      const badUrl = await share({ destination, url: 'ftp://example.com/', errors: 'true' }).expect(
        400,
      );
      expect(badUrl.body).toEqual({
        error: 400,
        error_message: 'Invalid parameter url: must be an absolute http(s) URL',
      });
      expect(await linkCount()).toBe(before);
    });

    it('refuses known bots: 403 with errors=true, a plain redirect without a link otherwise', async () => {
      const before = await linkCount();
      const destination = 'https://facebook.example/sharer.php?u=SVC_URL';
      const refused = await share({ destination, errors: 'true' }, GOOGLEBOT).expect(403);
      expect(refused.body).toEqual({
        error: 403,
        error_message: 'Known bots may not create links through this endpoint',
      });
      const redirected = await share({ destination }, GOOGLEBOT).expect(302);
      expect(redirected.headers.location).toBe(
        `https://facebook.example/sharer.php?u=${encodeURIComponent('https://example.com/shared')}`,
      );
      expect(await linkCount()).toBe(before);
    });
  });
});

describe.each([
  ['BullMQ on Redis', true],
  ['the in-process queue', false],
])('retweet unwrap through %s', (_name, redis) => {
  let peer: { server: Server; base: string };
  let allowed: TestApp;
  let strict: TestApp;
  beforeAll(async () => {
    peer = await startPeer();
    allowed = await createTestApp({ redis, env: { CRAWLER_ALLOW_LOOPBACK: 'true' } });
    strict = await createTestApp({ redis });
  });
  afterAll(async () => {
    await allowed.close();
    await strict.close();
    await new Promise((resolve) => peer.server.close(resolve));
  });

  const unwrapped = async (t: TestApp, text: string) => {
    const key = (await createProject(t)).api_key;
    const res = await t.http
      .post('/url/retweet.json')
      .type('form')
      .send({ v: '3', key, tool: 'rt', channel: 'twitter', text, unwrap: 'true' })
      .expect(200);
    return (res.body.svc_urls as LinkRecord[]).map((r) => r.original_url);
  };

  it('gives the final URL of a local redirect chain with CRAWLER_ALLOW_LOOPBACK=true', async () => {
    expect(await unwrapped(allowed, `${peer.base}/start`)).toEqual([
      `${peer.base}/final?from=chain`,
    ]);
  });

  it('refuses the loopback peer without it: the link keeps the URL as given', async () => {
    expect(await unwrapped(strict, `${peer.base}/start`)).toEqual([`${peer.base}/start`]);
  });
});
