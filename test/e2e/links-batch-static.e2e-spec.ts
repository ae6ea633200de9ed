import { TestApp, createTestApp } from '../support/app';
import type { LinkRecord } from '../../src/links/link-record';
import { createProject } from '../factories/projects';
import { LINK_FIELDS, form } from '../factories/links';

describe('url/batch.{format} and url/static.{format}', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  const common = (): [string, string][] => [
    ['v', '3'],
    ['key', key],
    ['tool', 'publisher-sharebar'],
    ['channel', 'twitter'],
  ];
  const linkCount = async () =>
    Number((await t.db.query('SELECT count(*)::int AS n FROM links')).rows[0].n);

  describe('batch', () => {
    it('creates one link per url[] element, in order, sharing the other parameters', async () => {
      const urls = ['https://example.com/1', 'https://example.com/2', 'https://example.com/3'];
      const res = await t.http
        .post('/url/batch.json')
        .type('form')
        .send(
          form([...common(), ...urls.map((u): [string, string] => ['url[]', u]), ['tag', 'T1']]),
        )
        .expect(200);
      expect(Object.keys(res.body)).toEqual(['svc_urls']);
      expect(res.body.svc_urls).toHaveLength(3);
      (res.body.svc_urls as LinkRecord[]).forEach((record, i) => {
        expect(Object.keys(record).sort()).toEqual(LINK_FIELDS);
        expect(record).toMatchObject({
          original_url: urls[i],
          redirect_url: urls[i],
          tag: 'T1',
          channel: 'twitter',
          service: 'twitter',
        });
        expect(record.svc_url).toBe(`http://svc.test/${record.path}`);
      });
      expect(new Set((res.body.svc_urls as LinkRecord[]).map((r) => r.path)).size).toBe(3);
    });

    it('takes any one listed parameter as the array (channel[], tag[], path[]) and works on GET', async () => {
      const channels = await t.http
        .get(
          `/url/batch.json?${form([...common().filter(([n]) => n !== 'channel'), ['url', 'https://example.com/c'], ['channel[]', 'twitter'], ['channel[]', 'facebook-post'], ['channel[]', 'email']])}`,
        )
        .expect(200);
      expect(
        (channels.body.svc_urls as LinkRecord[]).map((r) => [r.channel, r.service, r.original_url]),
      ).toEqual([
        ['twitter', 'twitter', 'https://example.com/c'],
        ['facebook-post', 'facebook', 'https://example.com/c'],
        ['email', 'email', 'https://example.com/c'],
      ]);
      const paths = await t.http
        .post('/url/batch.json')
        .type('form')
        .send(
          form([
            ...common(),
            ['url', 'https://example.com/p'],
            ['path[]', 'batch-one'],
            ['path[]', 'batch-two'],
          ]),
        )
        .expect(200);
      expect((paths.body.svc_urls as LinkRecord[]).map((r) => r.svc_id)).toEqual([
        'svc.test_batch-one',
        'svc.test_batch-two',
      ]);
      const tags = await t.http
        .post('/url/batch.json')
        .type('form')
        .send(
          form([
            ...common(),
            ['url', 'https://example.com/t'],
            ['tag[]', 'Alpha'],
            ['tag[]', 'beta'],
            ['user_id', 'U9'],
          ]),
        )
        .expect(200);
      expect((tags.body.svc_urls as LinkRecord[]).map((r) => [r.tag, r.user_id])).toEqual([
        ['Alpha', 'U9'],
        ['beta', 'U9'],
      ]);
      const users = await t.http
        .post('/url/batch.json')
        .type('form')
        .send(
          form([
            ...common(),
            ['url', 'https://example.com/u'],
            ['user_id[]', 'A'],
            ['user_id[]', 'B'],
            ['campaign', 'batch_camp'],
            ['campaign_description', 'Batch'],
          ]),
        )
        .expect(200);
      expect(
        (users.body.svc_urls as LinkRecord[]).map((r) => [
          r.user_id,
          r.campaign,
          r.campaign_metadata,
        ]),
      ).toEqual([
        ['A', 'batch_camp', { description: 'Batch', name: 'batch_camp' }],
        ['B', 'batch_camp', { description: 'Batch', name: 'batch_camp' }],
      ]);
    });

    it('creates one link when no parameter is an array', async () => {
      const res = await t.http
        .post('/url/batch.json')
        .type('form')
        .send(form([...common(), ['url', 'https://example.com/single']]))
        .expect(200);
      expect(res.body.svc_urls).toHaveLength(1);
      expect(res.body.svc_urls[0].original_url).toBe('https://example.com/single');
    });

    it('answers txt with one svc_url per line and JSON-P with callback', async () => {
      const txt = await t.http
        .post('/url/batch.txt')
        .type('form')
        .send(
          form([
            ...common(),
            ['url[]', 'https://example.com/x'],
            ['url[]', 'https://example.com/y'],
          ]),
        )
        .expect(200);
      expect(txt.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(txt.text).toMatch(
        /^http:\/\/svc\.test\/[0-9A-Za-z]{7}\nhttp:\/\/svc\.test\/[0-9A-Za-z]{7}$/,
      );
      const jsonp = await t.http
        .post('/url/batch.json')
        .type('form')
        .send(form([...common(), ['url[]', 'https://example.com/x'], ['callback', 'handle']]))
        .expect(200);
      expect(jsonp.headers['content-type']).toBe('application/javascript; charset=utf-8');
      expect(jsonp.text).toMatch(
        /^handle\(\{"svc_urls":\[\{"svc_url":"http:\/\/svc\.test\/[0-9A-Za-z]{7}",.*\}\]\}\);$/,
      );
    });

    it('refuses arrays for two parameters (400) and creates nothing', async () => {
      const before = await linkCount();
      const res = await t.http
        .post('/url/batch.json')
        .type('form')
        .send(
          form([
            ...common().filter(([n]) => n !== 'channel'),
            ['url[]', 'https://example.com/1'],
            ['url[]', 'https://example.com/2'],
            ['channel[]', 'twitter'],
            ['channel[]', 'email'],
          ]),
        )
        .expect(400);
      expect(res.body).toEqual({
        error: 400,
        error_message: 'Arrays given for more than one parameter (channel, url); only one may vary',
      });
      expect(await linkCount()).toBe(before);
    });

    it('refuses a single path with several values elsewhere (400), accepts it with one value', async () => {
      const res = await t.http
        .post('/url/batch.json')
        .type('form')
        .send(
          form([
            ...common(),
            ['path', 'one-path'],
            ['url[]', 'https://example.com/1'],
            ['url[]', 'https://example.com/2'],
          ]),
        )
        .expect(400);
      expect(res.body).toEqual({
        error: 400,
        error_message:
          'Invalid parameter path: a single path cannot be used with several values of another parameter',
      });
      const one = await t.http
        .post('/url/batch.json')
        .type('form')
        .send(form([...common(), ['path', 'one-path'], ['url[]', 'https://example.com/1']]))
        .expect(200);
      expect((one.body.svc_urls as LinkRecord[]).map((r) => r.svc_id)).toEqual([
        'svc.test_one-path',
      ]);
    });

    it('creates all links or none: a taken path[] element is a 409 and nothing is kept', async () => {
      const before = await linkCount();
      const res = await t.http
        .post('/url/batch.json')
        .type('form')
        .send(
          form([
            ...common(),
            ['url', 'https://example.com/p'],
            ['path[]', 'fresh-path'],
            ['path[]', 'batch-one'],
          ]),
        )
        .expect(409);
      expect(res.body).toEqual({
        error: 409,
        error_message: 'Path batch-one is already taken on svc.test',
      });
      expect(await linkCount()).toBe(before);
    });

    it('validates each element: an invalid url[] element is a 400 naming the parameter', async () => {
      const res = await t.http
        .post('/url/batch.json')
        .type('form')
        .send(
          form([
            ...common(),
            ['url[]', 'https://example.com/ok'],
            ['url[]', 'ftp://example.com/no'],
          ]),
        )
        .expect(400);
      expect(res.body).toEqual({
        error: 400,
        error_message: 'Invalid parameter url: must be an absolute http(s) URL',
      });
    });

    it('refuses formats other than json and txt, and requires v, key, tool, channel', async () => {
      const body = form([...common(), ['url[]', 'https://example.com/1']]);
      const xml = await t.http.post('/url/batch.xml').type('form').send(body).expect(400);
      expect(xml.body).toEqual({
        error: 400,
        error_message: 'Invalid parameter format: "xml" is not supported; use json or txt',
      });
      for (const name of ['v', 'key', 'tool', 'channel']) {
        const res = await t.http
          .post('/url/batch.json')
          .type('form')
          .send(form([...common().filter(([n]) => n !== name), ['url[]', 'https://example.com/1']]))
          .expect(400);
        expect(res.body).toEqual({
          error: 400,
          error_message: `Missing required parameter: ${name}`,
        });
      }
    });
  });

  describe('static', () => {
    const staticParams = (extra: Record<string, string> = {}) => ({
      v: '3',
      key,
      tool: 'publisher-static',
      url: 'https://example.com/static-page',
      ...extra,
    });

    it('creates a link the first time (new: true) and returns the same one after (new: false)', async () => {
      const first = await t.http
        .post('/url/static.json')
        .type('form')
        .send(staticParams())
        .expect(200);
      expect(Object.keys(first.body).sort()).toEqual([...LINK_FIELDS, 'new'].sort());
      expect(first.body).toMatchObject({
        new: true,
        original_url: 'https://example.com/static-page',
        channel: null,
        service: null,
      });
      const second = await t.http.get('/url/static.json').query(staticParams()).expect(200);
      expect(second.body).toEqual({ ...first.body, new: false });
    });

    it('creates another link when the url or any metadata differs', async () => {
      const base = await t.http
        .post('/url/static.json')
        .type('form')
        .send(staticParams({ channel: 'email' }))
        .expect(200);
      expect(base.body.new).toBe(true);
      const ids = new Set<string>([base.body.svc_id]);
      const variants: Record<string, string>[] = [
        { channel: 'email', tag: 'a' },
        { channel: 'email', notes: 'n' },
        { channel: 'email', user_id: 'u1' },
        { channel: 'twitter' },
        { channel: 'email', url: 'https://example.com/static-page?x=1' },
        { channel: 'email', tool: 'another-tool' },
      ];
      for (const extra of variants) {
        const res = await t.http
          .post('/url/static.json')
          .type('form')
          .send(staticParams(extra))
          .expect(200);
        expect(res.body.new).toBe(true);
        ids.add(res.body.svc_id);
        const again = await t.http
          .post('/url/static.json')
          .type('form')
          .send(staticParams(extra))
          .expect(200);
        expect([again.body.new, again.body.svc_id]).toEqual([false, res.body.svc_id]);
      }
      expect(ids.size).toBe(7);
    });

    it('returns a link made by create with the same url and metadata', async () => {
      const made = await t.http
        .post('/url.json')
        .type('form')
        .send(staticParams({ url: 'https://example.com/made-first', channel: 'email', tag: 'm' }))
        .expect(200);
      const found = await t.http
        .post('/url/static.json')
        .type('form')
        .send(staticParams({ url: 'https://example.com/made-first', channel: 'email', tag: 'm' }))
        .expect(200);
      expect(found.body).toEqual({ ...made.body, new: false });
      // Other metadata (no tag) is another link, kept for the next call.
      const other = await t.http
        .post('/url/static.json')
        .type('form')
        .send(staticParams({ url: 'https://example.com/made-first', channel: 'email' }))
        .expect(200);
      expect(other.body.new).toBe(true);
      const again = await t.http
        .post('/url/static.json')
        .type('form')
        .send(staticParams({ url: 'https://example.com/made-first', channel: 'email' }))
        .expect(200);
      expect([again.body.new, again.body.svc_id]).toEqual([false, other.body.svc_id]);
    });

    it('returns one link to concurrent identical requests (one new: true)', async () => {
      const params = staticParams({ tag: 'concurrent' });
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => t.http.post('/url/static.json').type('form').send(params)),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(new Set(answers.map((a) => (a.body as LinkRecord).svc_id)).size).toBe(1);
      expect(answers.filter((a) => a.body.new === true)).toHaveLength(1);
    });

    it('is per project: another project gets its own link', async () => {
      const otherKey = (await createProject(t)).api_key;
      const mine = await t.http
        .post('/url/static.json')
        .type('form')
        .send(staticParams())
        .expect(200);
      const theirs = await t.http
        .post('/url/static.json')
        .type('form')
        .send({ ...staticParams(), key: otherKey })
        .expect(200);
      expect(theirs.body.new).toBe(true);
      expect(theirs.body.svc_id).not.toBe(mine.body.svc_id);
    });

    it('matches a link by its current metadata: after an update the old metadata makes a new link', async () => {
      const params = staticParams({ url: 'https://example.com/static-updated', tag: 'a' });
      const first = await t.http.post('/url/static.json').type('form').send(params).expect(200);
      expect([first.body.new, first.body.tag]).toEqual([true, 'a']);
      const updated = await t.http
        .post(`/url/update/${first.body.svc_id}.json`)
        .type('form')
        .send({ v: '3', key, tool: 'publisher-static', tag: 'b' })
        .expect(200);
      expect(updated.body.tag).toBe('b');
      // The fingerprint of metadata the link no longer has is released with the update.
      const held = await t.db.query('SELECT static_key FROM links WHERE svc_id = $1', [
        first.body.svc_id,
      ]);
      expect(held.rows).toEqual([{ static_key: null }]);

      const again = await t.http.post('/url/static.json').type('form').send(params).expect(200);
      expect([again.body.new, again.body.tag, again.body.original_url]).toEqual([
        true,
        'a',
        'https://example.com/static-updated',
      ]);
      expect(again.body.svc_id).not.toBe(first.body.svc_id);
      const repeated = await t.http.post('/url/static.json').type('form').send(params).expect(200);
      expect(repeated.body).toEqual({ ...again.body, new: false });
      // The updated link is the static link of its new metadata.
      const b = await t.http
        .post('/url/static.json')
        .type('form')
        .send({ ...params, tag: 'b' })
        .expect(200);
      expect([b.body.new, b.body.svc_id, b.body.tag]).toEqual([false, first.body.svc_id, 'b']);
    });

    it('makes a new link when the static link holding the metadata was changed without a new fingerprint', async () => {
      // Links updated before update released their fingerprint still hold it.
      const params = staticParams({ url: 'https://example.com/static-stale', tag: 'old' });
      const first = await t.http.post('/url/static.json').type('form').send(params).expect(200);
      await t.db.query(`UPDATE links SET tag = 'changed' WHERE svc_id = $1`, [first.body.svc_id]);
      const again = await t.http.post('/url/static.json').type('form').send(params).expect(200);
      expect([again.body.new, again.body.tag]).toEqual([true, 'old']);
      expect(again.body.svc_id).not.toBe(first.body.svc_id);
      const repeated = await t.http.post('/url/static.json').type('form').send(params).expect(200);
      expect([repeated.body.new, repeated.body.svc_id]).toEqual([false, again.body.svc_id]);
    });

    it('keeps a custom path on the repeated call', async () => {
      const first = await t.http
        .post('/url/static.json')
        .type('form')
        .send(staticParams({ path: 'static-home' }))
        .expect(200);
      expect([first.body.new, first.body.svc_id]).toEqual([true, 'svc.test_static-home']);
      const again = await t.http
        .post('/url/static.json')
        .type('form')
        .send(staticParams({ path: 'static-home' }))
        .expect(200);
      expect([again.body.new, again.body.svc_id]).toEqual([false, 'svc.test_static-home']);
    });

    it('answers txt with the bare svc_url, JSON-P with callback; refuses other formats', async () => {
      const json = await t.http
        .post('/url/static.json')
        .type('form')
        .send(staticParams())
        .expect(200);
      const txt = await t.http
        .post('/url/static.txt')
        .type('form')
        .send(staticParams())
        .expect(200);
      expect(txt.text).toBe(json.body.svc_url);
      const jsonp = await t.http
        .get('/url/static.json')
        .query({ ...staticParams(), callback: 'cb' })
        .expect(200);
      expect(jsonp.text).toBe(`cb(${JSON.stringify({ ...json.body, new: false })});`);
      const xml = await t.http
        .post('/url/static.xml')
        .type('form')
        .send(staticParams())
        .expect(400);
      expect(xml.body).toEqual({
        error: 400,
        error_message: 'Invalid parameter format: "xml" is not supported; use json or txt',
      });
    });

    it('requires tool and url but not channel', async () => {
      for (const name of ['tool', 'url', 'v', 'key']) {
        const res = await t.http
          .post('/url/static.json')
          .type('form')
          .send({ ...staticParams(), [name]: '' })
          .expect(400);
        expect(res.body).toEqual({
          error: 400,
          error_message: `Missing required parameter: ${name}`,
        });
      }
    });
  });
});
