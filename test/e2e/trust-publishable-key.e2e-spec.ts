import { DataSource } from 'typeorm';
import { PublishableKeys1764010000000 } from '../../src/database/migrations/1764010000000-publishable-keys';
import { CONTROLS, ControlParameter } from '../../src/links/controls/link-control-columns';
import type { LinkRecord } from '../../src/links/link-record';
import { TestApp, createTestApp } from '../support/app';
import { CreatedProject, createProject } from '../factories/projects';
import { createLink } from '../factories/links';

const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const PUBLISHABLE_RE = /^pk_[0-9a-f]{32}$/;
const NEEDS_API_KEY = {
  error: 403,
  error_message: "This endpoint needs the project's api_key; a publishable key may not call it",
};
const INVALID_KEY = { error: 403, error_message: 'Invalid API key specified' };
/** A value each control parameter would take (docs/api.md, "Link controls"). */
const CONTROL_VALUES: Record<ControlParameter, string> = {
  expires_at: '2099-01-01T00:00:00Z',
  max_clicks: '1',
  expired_url: 'https://phish.example/expired',
  disabled: 'true',
  ios_url: 'https://phish.example/ios',
  android_url: 'https://phish.example/android',
  geo: JSON.stringify({ US: 'https://phish.example/us' }),
  password: '',
};

/**
 * The tracking script's `data-key` is published in every landing page (docs/api.md, "Keys"): with
 * it, anyone tries everything the API key may do. Only conversions and the page endpoints
 * (retweet and share, without link controls) answer it (docs/api.md, "Keys").
 */
describe('the publishable key', () => {
  let t: TestApp;
  let project: CreatedProject;
  let pk: string;
  let link: LinkRecord;

  beforeAll(async () => {
    t = await createTestApp();
    project = await createProject(t, {
      conversions: { enabled: true, domains: 'all', goal_1_label: 'Signup' },
      // The hosts its pages' key may make links and redirects to (trust-page-key.e2e-spec).
      publishable_hosts: ['example.com', 'facebook.com'],
    });
    pk = project.publishable_key;
    link = await createLink(t, project.api_key, { password: 'secret-1', notes: 'kept' });
  });
  afterAll(() => t.close());

  const admin = () => ({ subscription_key: t.subscriptionKey, application_key: t.applicationKey });
  const linkRow = async (svcId: string) =>
    (
      await t.db.query<{
        password_hash: string | null;
        disabled: boolean;
        ios_url: string | null;
        geo: unknown;
        expired_url: string | null;
        notes: string | null;
      }>(
        'SELECT password_hash, disabled, ios_url, geo, expired_url, notes FROM links WHERE svc_id = $1',
        [svcId],
      )
    ).rows[0];
  const linkCount = async () =>
    Number((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM links')).rows[0].n);

  it('is in the project record of new, show and list, pk_ and 128 bits, not the api_key', async () => {
    expect(pk).toMatch(PUBLISHABLE_RE);
    expect(project.api_key).toMatch(/^[0-9a-f]{64}$/);
    const other = await createProject(t);
    expect(other.publishable_key).toMatch(PUBLISHABLE_RE);
    expect(other.publishable_key).not.toBe(pk);

    const show = await t.http.post(`/projects/${project.api_key}/show`).type('form').send(admin());
    expect(show.status).toBe(200);
    expect(show.body.response.project.publishable_key).toBe(pk);
    const list = await t.http.get('/projects/list').query(admin());
    expect(list.status).toBe(200);
    const listed = (
      list.body.response.projects as { api_key: string; publishable_key: string }[]
    ).map((p) => [p.api_key, p.publishable_key]);
    expect(listed).toStrictEqual([
      [project.api_key, pk],
      [other.api_key, other.publishable_key],
    ]);
    // Stored as shown, in its own indexed column.
    const stored = await t.db.query<{ publishable_key: string }>(
      'SELECT publishable_key FROM projects WHERE api_key = $1',
      [project.api_key],
    );
    expect(stored.rows).toStrictEqual([{ publishable_key: pk }]);
  });

  describe('refused with 403 wherever it would read or change links', () => {
    it('cannot list the project’s links', async () => {
      for (const res of [
        await t.http.get('/url/list.json').query({ v: '3', key: pk }),
        await t.http.post('/url/list.json').type('form').send({ v: '3', key: pk }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body).toStrictEqual(NEEDS_API_KEY);
      }
      const txt = await t.http.get('/url/list.txt').query({ v: '3', key: pk });
      expect(txt.status).toBe(403);
      expect(txt.text).toBe(NEEDS_API_KEY.error_message);
    });

    it('cannot remove a password, disable a link or point its controls at a phishing page', async () => {
      const attacks: Record<string, string>[] = [
        { password: '' },
        { disabled: 'true' },
        { ios_url: 'https://phish.example/ios' },
        { android_url: 'https://phish.example/android' },
        { geo: JSON.stringify({ US: 'https://phish.example/us' }) },
        { expired_url: 'https://phish.example/expired', max_clicks: '1' },
        { notes: 'defaced' },
      ];
      for (const attack of attacks) {
        const params = { v: '3', key: pk, tool: 'publisher-sharebar', ...attack };
        const post = await t.http.post(`/url/update/${link.svc_id}.json`).type('form').send(params);
        expect([post.status, post.body]).toStrictEqual([403, NEEDS_API_KEY]);
        const get = await t.http.get(`/url/update/${link.svc_id}.json`).query(params);
        expect([get.status, get.body]).toStrictEqual([403, NEEDS_API_KEY]);
      }
      const row = await linkRow(link.svc_id);
      expect(row.password_hash).toMatch(/^scrypt\$/);
      expect({ ...row, password_hash: null }).toStrictEqual({
        password_hash: null,
        disabled: false,
        ios_url: null,
        geo: null,
        expired_url: null,
        notes: 'kept',
      });
      // The link still asks for its password.
      const visit = await t.http
        .get(`/${link.path}`)
        .set('Host', 'svc.test')
        .set('User-Agent', BROWSER);
      expect(visit.status).toBe(200);
      expect(visit.text).toContain('name="password" type="password"');
    });

    it('cannot create links through create, batch or static', async () => {
      const before = await linkCount();
      const create = { v: '3', key: pk, tool: 't', channel: 'twitter', url: 'https://x.example/' };
      const requests = [
        t.http.post('/url.json').type('form').send(create),
        t.http.get('/url.json').query(create),
        t.http
          .post('/url/batch.json')
          .type('form')
          .send(
            'v=3&tool=t&channel=twitter&url[]=https://x.example/a&url[]=https://x.example/b&key=' +
              pk,
          ),
        t.http.get('/url/batch.json').query({ ...create, 'url[]': 'https://x.example/c' }),
        t.http.post('/url/static.json').type('form').send(create),
        t.http.get('/url/static.json').query(create),
      ];
      for (const request of requests) {
        const res = await request;
        expect([res.status, res.body]).toStrictEqual([403, NEEDS_API_KEY]);
      }
      expect(await linkCount()).toBe(before);
    });

    it('cannot read statistics: info, intervals, range, batch, totals (key and key[])', async () => {
      const query = { v: '3', key: pk };
      const paths = [
        `/stats/${link.svc_id}.json`,
        `/stats/${link.svc_id}/intervals.json`,
        '/stats/range.json',
        '/stats/range/intervals.json',
        '/stats/svc_ids/batch.json',
        '/stats/totals.json',
      ];
      for (const path of paths) {
        const get = await t.http.get(path).query(query);
        expect([path, get.status, get.body]).toStrictEqual([path, 403, NEEDS_API_KEY]);
        const post = await t.http.post(path).type('form').send(query);
        expect([path, post.status, post.body]).toStrictEqual([path, 403, NEEDS_API_KEY]);
      }
      // key[] of totals takes API keys only, alone or among them.
      for (const keys of [[pk], [project.api_key, pk]]) {
        const res = await t.http
          .get('/stats/totals.json')
          .query(`v=3&${keys.map((k) => `key[]=${k}`).join('&')}`);
        expect([res.status, res.body]).toStrictEqual([403, NEEDS_API_KEY]);
      }
    });

    it('is an unknown key once altered (upper case)', async () => {
      const res = await t.http.get('/url/list.json').query({ v: '3', key: pk.toUpperCase() });
      expect([res.status, res.body]).toStrictEqual([403, INVALID_KEY]);
    });
  });

  describe('accepted where pages call the service', () => {
    it('records conversions (conversions/new, the tracking script’s call)', async () => {
      const res = await t.http.get('/conversions/new').query({
        key: pk,
        svc_url: link.svc_id,
        conversion_type: 'goal_1',
        conversion_value: '1999',
        account_conversion_id: 'order-pk',
      });
      expect(res.status).toBe(200);
      expect(res.body.request).toStrictEqual({
        key: pk,
        svc_url: link.svc_id,
        conversion_type: 'goal_1',
        conversion_value: '1999',
        account_conversion_id: 'order-pk',
        action: 'new',
        controller: 'conversion',
      });
      expect(res.body.response.conversion).toMatchObject({
        svc_url: link.svc_id,
        type: 'goal_1',
        value: 1999,
        account_conversionid: 'order-pk',
      });
      const post = await t.http.post('/conversions/new').type('form').send({
        key: pk,
        svc_url: link.svc_id,
        conversion_type: 'pageview',
        conversion_value: '0',
      });
      expect(post.status).toBe(200);
      expect(post.body.response.conversion.type).toBe('pageview');
    });

    it('creates links through retweet (POST and GET) and share', async () => {
      const retweet = await t.http
        .post('/url/retweet.json')
        .set('User-Agent', BROWSER)
        .type('form')
        .send({
          v: '3',
          key: pk,
          tool: 'publisher-retweet',
          channel: 'twitter',
          text: 'See http://example.com/a',
        });
      expect(retweet.status).toBe(200);
      const records = retweet.body.svc_urls as LinkRecord[];
      expect(records.map((r) => r.original_url)).toStrictEqual(['http://example.com/a']);
      expect(retweet.body.svc_text).toBe(`See ${records[0].svc_url}`);

      const get = await t.http.get('/url/retweet.json').set('User-Agent', BROWSER).query({
        v: '3',
        key: pk,
        tool: 'publisher-retweet',
        channel: 'twitter',
        text: 'http://example.com/b',
      });
      expect(get.status).toBe(200);
      expect((get.body.svc_urls as LinkRecord[]).map((r) => r.original_url)).toStrictEqual([
        'http://example.com/b',
      ]);

      const share = await t.http.get('/url/share').set('User-Agent', BROWSER).query({
        v: '3',
        key: pk,
        tool: 'publisher-sharebar',
        channel: 'facebook',
        url: 'https://example.com/shared',
        destination: 'https://www.facebook.com/sharer.php?u=SVC_URL',
      });
      expect(share.status).toBe(302);
      const shared = await t.db.query<{ svc_id: string; original_url: string; project: string }>(
        `SELECT l.svc_id, l.original_url, p.api_key AS project FROM links l JOIN projects p ON p.id = l.project_id
          WHERE l.original_url = 'https://example.com/shared'`,
      );
      expect(shared.rows).toHaveLength(1);
      expect(shared.rows[0].project).toBe(project.api_key);
      expect(share.headers.location).toMatch(
        /^https:\/\/www\.facebook\.com\/sharer\.php\?u=http%3A%2F%2Fsvc\.test%2F/,
      );
    });

    it('never sets a link control: retweet and share answer 403 naming it', async () => {
      const before = await linkCount();
      const base = { v: '3', key: pk, tool: 'publisher-retweet', channel: 'twitter' };
      for (const { parameter: name } of CONTROLS) {
        const message = {
          error: 403,
          error_message: `A publishable key may not set ${name}; it needs the project's api_key`,
        };
        const retweet = await t.http
          .post('/url/retweet.json')
          .set('User-Agent', BROWSER)
          .type('form')
          .send({ ...base, text: 'http://example.com/c', [name]: CONTROL_VALUES[name] });
        expect([name, retweet.status, retweet.body]).toStrictEqual([name, 403, message]);
        const retweetGet = await t.http
          .get('/url/retweet')
          .set('User-Agent', BROWSER)
          .query({ ...base, text: 'http://example.com/c', [name]: CONTROL_VALUES[name] });
        expect([name, retweetGet.status, retweetGet.body]).toStrictEqual([name, 403, message]);
        const share = await t.http
          .get('/url/share')
          .set('User-Agent', BROWSER)
          .query({
            ...base,
            url: 'https://example.com/c',
            destination: 'https://share.example/?u=SVC_URL',
            errors: 'true',
            [name]: CONTROL_VALUES[name],
          });
        expect([name, share.status, share.body]).toStrictEqual([name, 403, message]);
      }
      expect(await linkCount()).toBe(before);
    });
  });

  it('is replaced by rotate_publishable_key: the old one is refused at once, the new one works', async () => {
    const update = (json: string) =>
      t.http
        .post(`/projects/${project.api_key}/update`)
        .type('form')
        .send({ ...admin(), json });
    for (const value of ['"true"', '1', 'null']) {
      const bad = await update(`{"rotate_publishable_key":${value}}`);
      expect(bad.status).toBe(400);
      expect(bad.body.error).toStrictEqual({
        code: 1002,
        message:
          'Invalid parameter json.rotate_publishable_key: must be true or false (a JSON boolean)',
      });
    }
    const unchanged = await update('{"rotate_publishable_key":false}');
    expect(unchanged.status).toBe(200);
    expect(unchanged.body.response.project.publishable_key).toBe(pk);

    // The old key is cached by a request first: the rotation must drop it.
    const convert = (key: string) =>
      t.http.get('/conversions/new').query({
        key,
        svc_url: link.svc_id,
        conversion_type: 'pageview',
        conversion_value: '0',
      });
    expect((await convert(pk)).status).toBe(200);
    const rotated = await update('{"rotate_publishable_key":true}');
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.response.project.publishable_key as string;
    expect(fresh).toMatch(PUBLISHABLE_RE);
    expect(fresh).not.toBe(pk);
    expect(rotated.body.response.project.api_key).toBe(project.api_key);

    const old = await convert(pk);
    expect(old.status).toBe(403);
    expect(old.body.error).toStrictEqual({ code: 1000, message: 'Invalid API key specified' });
    const oldRetweet = await t.http
      .post('/url/retweet.json')
      .set('User-Agent', BROWSER)
      .type('form')
      .send({ v: '3', key: pk, tool: 't', channel: 'twitter', text: 'http://example.com/d' });
    expect([oldRetweet.status, oldRetweet.body]).toStrictEqual([403, INVALID_KEY]);
    expect((await convert(fresh)).status).toBe(200);
    const newList = await t.http.get('/url/list.json').query({ v: '3', key: fresh });
    expect([newList.status, newList.body]).toStrictEqual([403, NEEDS_API_KEY]);
    pk = fresh;
  });

  it('leaves the api_key working everywhere, link controls on retweet ignored as before', async () => {
    const key = project.api_key;
    const list = await t.http.get('/url/list.json').query({ v: '3', key });
    expect(list.status).toBe(200);
    const created = await createLink(t, key, { url: 'https://example.com/secret-ok' });
    const update = await t.http
      .post(`/url/update/${created.svc_id}.json`)
      .type('form')
      .send({ v: '3', key, tool: 'publisher-sharebar', disabled: 'true' });
    expect(update.status).toBe(200);
    expect(update.body.disabled).toBe(true);
    const removal = await t.http
      .post(`/url/update/${link.svc_id}.json`)
      .type('form')
      .send({ v: '3', key, tool: 'publisher-sharebar', password: '' });
    expect(removal.status).toBe(200);
    expect((await linkRow(link.svc_id)).password_hash).toBeNull();
    for (const path of ['/stats/range.json', '/stats/totals.json', `/stats/${link.svc_id}.json`]) {
      const res = await t.http.get(path).query({ v: '3', key });
      expect([path, res.status]).toStrictEqual([path, 200]);
    }
    const totals = await t.http.get('/stats/totals.json').query(`v=3&key[]=${key}`);
    expect(totals.status).toBe(200);
    const retweet = await t.http
      .post('/url/retweet.json')
      .set('User-Agent', BROWSER)
      .type('form')
      .send({
        v: '3',
        key,
        tool: 't',
        channel: 'twitter',
        text: 'http://example.com/e',
        disabled: 'true',
      });
    expect(retweet.status).toBe(200);
    expect(retweet.body.svc_urls[0].disabled).toBeUndefined();
    const conversion = await t.http.get('/conversions/new').query({
      key,
      svc_url: link.svc_id,
      conversion_type: 'pageview',
      conversion_value: '0',
    });
    expect(conversion.status).toBe(200);
  });

  it('migration: every existing project gets a key of its own, in the format the service makes', async () => {
    const runner = t.app.get(DataSource).createQueryRunner();
    try {
      const migration = new PublishableKeys1764010000000();
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    const rows = (
      await t.db.query<{ publishable_key: string }>('SELECT publishable_key FROM projects')
    ).rows.map((row) => row.publishable_key);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const key of rows) expect(key).toMatch(PUBLISHABLE_RE);
    expect(new Set(rows).size).toBe(rows.length);
    const index = await t.db.query<{ indexdef: string }>(
      "SELECT indexdef FROM pg_indexes WHERE indexname = 'uq_projects_publishable_key'",
    );
    expect(index.rows).toStrictEqual([
      {
        indexdef:
          'CREATE UNIQUE INDEX uq_projects_publishable_key ON public.projects USING btree (publishable_key)',
      },
    ]);
  });
});
