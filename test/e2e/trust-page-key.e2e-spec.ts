import type { LinkRecord } from '../../src/links/link-record';
import { TestApp, createTestApp } from '../support/app';
import { CreatedProject, createProject, updateProject } from '../factories/projects';
import { createLink } from '../factories/links';

const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const NO_HOSTS = {
  error: 403,
  error_message:
    "The project's publishable_hosts setting lists no host: the publishable key makes no links",
};
const outside = (parameter: string) => ({
  error: 403,
  error_message: `${parameter} leads to a host outside the project's publishable_hosts setting; the publishable key makes links and redirects only to those hosts`,
});
/** The visitor fields of a conversion record (docs/api.md, "Conversions and the tracking script"). */
const VISITOR_FIELDS = [
  'account_userid',
  'clicker_id',
  'href',
  'ip_address',
  'language',
  'referrer',
  'session_id',
  'user_agent',
] as const;

/**
 * The publishable key is published in every landing page (docs/api.md, "Keys"): with it,
 * nobody reads a visitor's stored data, pre-empts a genuine order, makes brand links to a page of
 * their own, redirects anywhere, or spends the owner's budget (docs/api.md, "Keys" and "Limits").
 */
describe('the publishable key, second pass', () => {
  let t: TestApp;
  let addresses = 0;
  /** A client address of its own for each caller: the per-address budgets stay apart. */
  const nextAddress = () => `203.0.113.${++addresses}`;

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        TRUST_PROXY: '1',
        CREATE_RATE_LIMIT: '4',
        PUBLISHABLE_LINK_ADDRESS_LIMIT: '3',
        PUBLISHABLE_LINK_RATE_LIMIT: '5',
        PUBLISHABLE_CONVERSION_ADDRESS_LIMIT: '3',
        PUBLISHABLE_CONVERSION_RATE_LIMIT: '5',
      },
    });
  });
  afterAll(() => t.close());

  const pageProject = (object: Record<string, unknown> = {}) =>
    createProject(t, { conversions: { enabled: true, domains: 'all' }, ...object });

  describe('conversions/new', () => {
    let project: CreatedProject;
    let svcId: string;
    beforeAll(async () => {
      project = await pageProject();
      svcId = (await createLink(t, project.api_key, { url: 'https://shop.example/' })).svc_id;
    });
    const convert = (key: string, query: Record<string, string>, address = nextAddress()) =>
      t.http
        .get('/conversions/new')
        .set('X-Forwarded-For', address)
        .query({
          key,
          svc_url: svcId,
          conversion_type: 'goal_1',
          conversion_value: '1999',
          ...query,
        });
    const visitor = {
      ip: '198.51.100.7',
      user_agent: BROWSER,
      session_id: 'victim-session',
      clicker_id: 'clicker-1',
      href: 'https://shop.example/thanks?order=1',
      referrer: 'https://mail.example/inbox',
      language: 'de-DE',
      account_user: 'customer-42',
    };

    it('never reads a stored conversion back: a repeated order gives nothing the caller did not send', async () => {
      const genuine = await convert(project.api_key, { ...visitor, account_conversion_id: 'o-1' });
      expect(genuine.status).toBe(200);
      expect(genuine.body.response.conversion).toMatchObject({
        ip_address: '198.51.100.7',
        session_id: 'victim-session',
        account_userid: 'customer-42',
      });

      const probe = await convert(project.publishable_key, { account_conversion_id: 'o-1' });
      expect(probe.status).toBe(200);
      const answer = probe.body.response.conversion as Record<string, unknown>;
      for (const field of VISITOR_FIELDS)
        expect([field, answer[field]]).toStrictEqual([field, null]);
      expect(answer.id).not.toBe(genuine.body.response.conversion.id);
      // The api_key still gets its stored record back.
      const again = await convert(project.api_key, { account_conversion_id: 'o-1' });
      expect(again.body.response.conversion).toStrictEqual(genuine.body.response.conversion);
    });

    it('repeats within one visitor session: the first conversion’s id, this request’s own fields', async () => {
      const first = await convert(project.publishable_key, {
        ...visitor,
        session_id: 'page-session',
        account_conversion_id: 'o-2',
      });
      expect(first.status).toBe(200);
      const repeat = await convert(project.publishable_key, {
        session_id: 'page-session',
        account_conversion_id: 'o-2',
        conversion_value: '5',
      });
      expect(repeat.status).toBe(200);
      const answer = repeat.body.response.conversion as Record<string, unknown>;
      expect(answer.id).toBe(first.body.response.conversion.id);
      expect(answer.redirection_id).toBe(first.body.response.conversion.redirection_id);
      expect(answer.value).toBe(5);
      expect(answer.session_id).toBe('page-session');
      for (const field of VISITOR_FIELDS.filter((f) => f !== 'session_id')) {
        expect([field, answer[field]]).toStrictEqual([field, null]);
      }
      const stored = await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM conversions WHERE account_conversion_id = 'o-2'`,
      );
      expect(stored.rows[0].n).toBe(1);
    });

    it('cannot pre-empt an order: the genuine conversion is recorded after a page claimed its number', async () => {
      const claim = await convert(project.publishable_key, {
        account_conversion_id: 'o-3',
        conversion_value: '1',
      });
      expect(claim.status).toBe(200);
      // Another visitor's page, with its own session, and the publisher's server.
      const page = await convert(project.publishable_key, {
        session_id: 'real-visitor',
        account_conversion_id: 'o-3',
        conversion_value: '2',
      });
      const server = await convert(project.api_key, {
        account_conversion_id: 'o-3',
        conversion_value: '3',
      });
      const ids = [claim, page, server].map((res) => res.body.response.conversion.id as string);
      expect(new Set(ids).size).toBe(3);
      const stored = await t.db.query<{ value: string; idempotency_scope: string | null }>(
        `SELECT value::text, idempotency_scope FROM conversions WHERE account_conversion_id = 'o-3' ORDER BY value`,
      );
      expect(stored.rows).toStrictEqual([
        { value: '1', idempotency_scope: null },
        { value: '2', idempotency_scope: 'session:real-visitor' },
        { value: '3', idempotency_scope: '' },
      ]);
    });

    it('has its own budget per client address and per project: 429 in the endpoint’s shape', async () => {
      const own = await pageProject();
      const link = await createLink(t, own.api_key, { url: 'https://shop.example/b' });
      const call = (key: string, address: string) =>
        t.http.get('/conversions/new').set('X-Forwarded-For', address).query({
          key,
          svc_url: link.svc_id,
          conversion_type: 'pageview',
          conversion_value: '0',
        });
      const flood = nextAddress();
      for (let i = 0; i < 3; i++) expect((await call(own.publishable_key, flood)).status).toBe(200);
      const refused = await call(own.publishable_key, flood);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.body.error).toStrictEqual({
        code: 1006,
        message:
          'Rate limit exceeded: at most 3 conversions per hour per client address with the publishable key',
      });
      expect(refused.body.request).toMatchObject({ action: 'new', controller: 'conversion' });
      // The project's budget: two more from other addresses, then none from anywhere.
      expect((await call(own.publishable_key, nextAddress())).status).toBe(200);
      expect((await call(own.publishable_key, nextAddress())).status).toBe(200);
      const project = await call(own.publishable_key, nextAddress());
      expect(project.status).toBe(429);
      expect(project.body.error.message).toBe(
        'Rate limit exceeded: at most 5 conversions per hour per project with the publishable key',
      );
      // The publisher's own servers are not counted.
      expect((await call(own.api_key, flood)).status).toBe(200);
    });
  });

  describe('retweet and share', () => {
    // A project each: the publishable key's per-project budget (5 here) stays apart.
    let project: CreatedProject;
    beforeEach(async () => {
      project = await pageProject({ publishable_hosts: ['example.com', 'Twitter.com'] });
    });
    const page = (path: string, key: string, query: Record<string, string>) =>
      t.http
        .get(path)
        .set('User-Agent', BROWSER)
        .set('X-Forwarded-For', nextAddress())
        .query({ v: '3', key, tool: 'publisher-sharebar', channel: 'twitter', ...query });
    const linksTo = async (url: string) =>
      Number(
        (
          await t.db.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM links WHERE original_url = $1',
            [url],
          )
        ).rows[0].n,
      );

    it('is no open redirect: no fallback to a destination, before or after the key', async () => {
      const evil = 'https://evil.example/';
      // Without v (a check before the key), a foreign destination, a failing link, over the budget.
      const noVersion = await t.http
        .get('/url/share')
        .set('User-Agent', BROWSER)
        .query({ key: project.publishable_key, url: 'https://example.com/a', destination: evil });
      expect([noVersion.status, noVersion.body]).toStrictEqual([
        400,
        { error: 400, error_message: 'Missing required parameter: v' },
      ]);
      const foreign = await page('/url/share', project.publishable_key, {
        url: 'https://example.com/a',
        destination: evil,
      });
      expect([foreign.status, foreign.body]).toStrictEqual([403, outside('destination')]);
      // A link that cannot be made, to an allowed destination: the error, not the destination.
      const failed = await page('/url/retweet', project.publishable_key, {
        text: 'http://example.com/a',
        destination: 'https://twitter.com/intent/tweet?text=SVC_TEXT',
        campaign_description: 'without a campaign',
      });
      expect([failed.status, failed.headers.location]).toStrictEqual([400, undefined]);
      // The api_key's fallback is unchanged.
      const owner = await page('/url/share', project.api_key, { destination: evil });
      expect([owner.status, owner.headers.location]).toStrictEqual([302, evil]);
    });

    it('makes links only to the hosts of publishable_hosts and their subdomains (403 naming it)', async () => {
      const share = await page('/url/share', project.publishable_key, {
        url: 'https://evil.example/phish',
        destination: 'https://twitter.com/intent/tweet?url=SVC_URL',
      });
      expect([share.status, share.body]).toStrictEqual([403, outside('url')]);
      const lookalike = await page('/url/retweet.json', project.publishable_key, {
        text: 'Fine http://blog.example.com/a and http://notexample.com/b',
      });
      expect([lookalike.status, lookalike.body]).toStrictEqual([403, outside('text')]);
      expect(await linksTo('https://evil.example/phish')).toBe(0);
      expect(await linksTo('http://blog.example.com/a')).toBe(0);

      const allowed = await page('/url/retweet.json', project.publishable_key, {
        text: 'See http://blog.example.com/a and http://example.com/b',
      });
      expect(allowed.status).toBe(200);
      expect((allowed.body.svc_urls as LinkRecord[]).map((r) => r.original_url)).toStrictEqual([
        'http://blog.example.com/a',
        'http://example.com/b',
      ]);
      const shared = await page('/url/share', project.publishable_key, {
        url: 'https://example.com/post',
        destination: 'https://twitter.com/intent/tweet?url=SVC_URL',
      });
      expect(shared.status).toBe(302);
      expect(shared.headers.location).toMatch(/^https:\/\/twitter\.com\/intent\/tweet\?url=http/);

      // None listed: the page's key makes no links; the api_key makes them anywhere.
      const bare = await pageProject();
      const none = await page('/url/retweet.json', bare.publishable_key, {
        text: 'http://example.com/c',
      });
      expect([none.status, none.body]).toStrictEqual([403, NO_HOSTS]);
      const owner = await page('/url/retweet.json', bare.api_key, {
        text: 'http://evil.example/x',
      });
      expect(owner.status).toBe(200);
    });

    it('refuses unwrap (403) and a text of more than 50 links (400 naming text), with any key', async () => {
      const unwrap = await page('/url/retweet.json', project.publishable_key, {
        text: 'http://example.com/d',
        unwrap: 'true',
      });
      expect([unwrap.status, unwrap.body]).toStrictEqual([
        403,
        {
          error: 403,
          error_message: "A publishable key may not set unwrap; it needs the project's api_key",
        },
      ]);
      const text = Array.from({ length: 51 }, (_, i) => `http://example.com/${i}`).join(' ');
      for (const key of [project.publishable_key, project.api_key]) {
        const res = await t.http
          .post('/url/retweet.json')
          .set('User-Agent', BROWSER)
          .set('X-Forwarded-For', nextAddress())
          .type('form')
          .send({ v: '3', key, tool: 't', channel: 'twitter', text });
        expect([res.status, res.body]).toStrictEqual([
          400,
          {
            error: 400,
            error_message: 'Invalid parameter text: holds 51 links; one retweet makes at most 50',
          },
        ]);
      }
    });

    it('counts in budgets of its own: the owner’s create budget is left whole', async () => {
      const own = await pageProject({ publishable_hosts: ['example.com'] });
      const retweet = (key: string, address: string) =>
        t.http
          .get('/url/retweet.json')
          .set('User-Agent', BROWSER)
          .set('X-Forwarded-For', address)
          .query({ v: '3', key, tool: 't', channel: 'twitter', text: 'http://example.com/e' });
      const flood = nextAddress();
      for (let i = 0; i < 3; i++)
        expect((await retweet(own.publishable_key, flood)).status).toBe(200);
      const perAddress = await retweet(own.publishable_key, flood);
      expect([perAddress.status, perAddress.body]).toStrictEqual([
        429,
        {
          error: 429,
          error_message:
            'Rate limit exceeded: at most 3 retweet and share requests per hour per client address with the publishable key',
        },
      ]);
      expect((await retweet(own.publishable_key, nextAddress())).status).toBe(200);
      expect((await retweet(own.publishable_key, nextAddress())).status).toBe(200);
      const perProject = await retweet(own.publishable_key, nextAddress());
      expect(perProject.status).toBe(429);
      expect(perProject.body.error_message).toBe(
        'Rate limit exceeded: at most 5 retweet and share requests per hour per project with the publishable key',
      );
      // Over its budget, a share with a destination is refused, not redirected.
      const share = await t.http
        .get('/url/share')
        .set('User-Agent', BROWSER)
        .set('X-Forwarded-For', nextAddress())
        .query({
          v: '3',
          key: own.publishable_key,
          tool: 't',
          channel: 'twitter',
          url: 'https://example.com/f',
          destination: 'https://example.com/?u=SVC_URL',
        });
      expect([share.status, share.headers.location]).toStrictEqual([429, undefined]);
      // The owner's 4 creations an hour are all still there.
      for (let i = 0; i < 4; i++) {
        const created = await t.http.get('/url.json').query({
          v: '3',
          key: own.api_key,
          tool: 't',
          channel: 'email',
          url: `https://x.example/${i}`,
        });
        expect(created.status).toBe(200);
      }
    });

    it('takes publishable_hosts as hostnames, in show and list, replaced on update', async () => {
      const admin = { subscription_key: t.subscriptionKey, application_key: t.applicationKey };
      const show = async () =>
        (await t.http.post(`/projects/${project.api_key}/show`).type('form').send(admin)).body
          .response.project.publishable_hosts as string[];
      expect(await show()).toStrictEqual(['example.com', 'twitter.com']);
      await updateProject(t, project.api_key, {
        publishable_hosts: ['bücher.example', 'example.com'],
      });
      expect(await show()).toStrictEqual(['xn--bcher-kva.example', 'example.com']);
      for (const bad of ['"example.com"', '["https://example.com/"]', '["a b"]', '[1]']) {
        const res = await t.http
          .post(`/projects/${project.api_key}/update`)
          .type('form')
          .send({ ...admin, json: `{"publishable_hosts":${bad}}` });
        expect([bad, res.status, res.body.error.message]).toStrictEqual([
          bad,
          400,
          expect.stringMatching(/^Invalid parameter json\.publishable_hosts: /),
        ]);
      }
      await updateProject(t, project.api_key, {
        publishable_hosts: ['example.com', 'twitter.com'],
      });
    });
  });
});
