import { randomBytes } from 'node:crypto';
import { DomainsService } from '../../src/domains/domains.service';
import {
  IssuedSubscription,
  SubscriptionsService,
} from '../../src/subscriptions/subscriptions.service';
import { TestApp, createTestApp } from '../support/app';
import { BROWSER } from '../support/clicks';
import { createProject } from '../factories/projects';

const TIMESTAMP = expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

/** The parts of the OpenAPI document the tests read. */
interface OpenApiOperation {
  tags: string[];
  summary: string;
  parameters: { in: string; name: string; description: string; schema: { example: unknown } }[];
  requestBody: { content: Record<string, { schema: { $ref: string } }> };
  responses: Record<
    string,
    {
      content: Record<
        string,
        {
          schema: { $ref: string };
          examples: Record<string, { value: { error: { code: number } } }>;
        }
      >;
    }
  >;
}

interface ProjectRow {
  id: string;
  name: string;
  api_key: string;
}

describe('domains administration API', () => {
  let t: TestApp;
  let subscriptionId: string;
  let other: IssuedSubscription;

  beforeAll(async () => {
    t = await createTestApp();
    subscriptionId = (await t.db.query<{ id: string }>('SELECT id FROM subscriptions')).rows[0].id;
    other = await t.app.get(SubscriptionsService).createSubscription('other');
  });
  afterAll(() => t.close());

  const keys = () => ({ subscription_key: t.subscriptionKey, application_key: t.applicationKey });
  const otherKeys = () => ({
    subscription_key: other.subscriptionKey,
    application_key: other.applicationKey,
  });

  /** The request echo: every parameter as a string, plus method and object (and hostname from the path). */
  const echo = (method: string, params: Record<string, string>, hostname?: string) => ({
    ...params,
    ...(hostname !== undefined ? { hostname } : {}),
    method,
    object: 'domain',
  });

  const post = (path: string, params: Record<string, string>) =>
    t.http.post(path).type('form').send(params);

  async function insertProject(
    name: string,
    options: { subscription?: string; defaultDomain?: string; deleted?: boolean } = {},
  ): Promise<ProjectRow> {
    const result = await t.db.query<ProjectRow>(
      `INSERT INTO projects (subscription_id, name, api_key, default_domain, deleted_at)
       VALUES ($1, $2, $3, $4, $5) RETURNING id, name, api_key`,
      [
        options.subscription ?? subscriptionId,
        name,
        randomBytes(32).toString('hex'),
        options.defaultDomain ?? 'svc.test',
        options.deleted ? new Date() : null,
      ],
    );
    return result.rows[0];
  }

  async function connect(
    hostname: string,
    projects: string[] = [],
    params: Record<string, string> = keys(),
  ): Promise<void> {
    const json = JSON.stringify({
      hostname,
      root_redirect: `https://${hostname.split(/[_:]/)[0]}/`,
      not_found_redirect: `https://${hostname.split(/[_:]/)[0]}/404`,
      projects,
    });
    await post('/domains/new', { ...params, json }).expect(200);
  }

  async function domainCount(hostname: string): Promise<number> {
    const result = await t.db.query('SELECT 1 FROM domains WHERE hostname = $1', [hostname]);
    return result.rowCount ?? 0;
  }

  describe('authentication', () => {
    it('requires subscription_key', async () => {
      const params = { application_key: t.applicationKey };
      const res = await post('/domains/list', params).expect(400);
      expect(res.body).toEqual({
        request: echo('list', params),
        error: { code: 1001, message: 'Missing required parameter: subscription_key' },
      });
    });

    it('requires application_key', async () => {
      const params = { subscription_key: t.subscriptionKey };
      const res = await post('/domains/list', params).expect(400);
      expect(res.body).toEqual({
        request: echo('list', params),
        error: { code: 1001, message: 'Missing required parameter: application_key' },
      });
    });

    it('refuses an unknown subscription_key with 403 code 1000', async () => {
      const params = { subscription_key: 'not-a-key-at-all', application_key: t.applicationKey };
      const res = await post('/domains/list', params).expect(403);
      expect(res.body).toEqual({
        request: echo('list', params),
        error: { code: 1000, message: 'Invalid API key specified (subscription_key)' },
      });
    });

    it("refuses another subscription's application_key with 403 code 1000", async () => {
      const params = { subscription_key: t.subscriptionKey, application_key: other.applicationKey };
      const res = await post('/domains/new', { ...params, json: '{}' }).expect(403);
      expect(res.body).toEqual({
        request: echo('new', { ...params, json: '{}' }),
        error: { code: 1000, message: 'Invalid API key specified (application_key)' },
      });
    });
  });

  describe('POST /domains/new', () => {
    it('connects a domain, lowercases the hostname and authorises the projects', async () => {
      const blog = await insertProject('new-blog');
      const shop = await insertProject('new-shop');
      const json = JSON.stringify({
        hostname: 'Go.Example.COM',
        root_redirect: 'https://www.example.com/',
        not_found_redirect: 'https://www.example.com/404',
        projects: [shop.api_key, blog.api_key, blog.api_key],
      });
      const res = await post('/domains/new', { ...keys(), json }).expect(200);
      expect(res.body).toEqual({
        request: echo('new', { ...keys(), json }),
        response: {
          domain: {
            hostname: 'go.example.com',
            root_redirect: 'https://www.example.com/',
            not_found_redirect: 'https://www.example.com/404',
            projects: ['new-blog', 'new-shop'],
            created_at: TIMESTAMP,
            updated_at: TIMESTAMP,
          },
        },
      });
      expect(res.body.response.domain.updated_at).toBe(res.body.response.domain.created_at);
      const rows = await t.db.query<{ name: string }>(
        `SELECT p.name FROM project_domains pd
           JOIN domains d ON d.id = pd.domain_id JOIN projects p ON p.id = pd.project_id
          WHERE d.hostname = 'go.example.com' ORDER BY p.name`,
      );
      expect(rows.rows).toEqual([{ name: 'new-blog' }, { name: 'new-shop' }]);
      const domain = await t.db.query('SELECT subscription_id FROM domains WHERE hostname = $1', [
        'go.example.com',
      ]);
      expect(domain.rows).toEqual([{ subscription_id: subscriptionId }]);
    });

    it('takes parameters from the query string too, a single project key as a string, and no projects', async () => {
      const solo = await insertProject('new-solo');
      const json = JSON.stringify({
        hostname: 'solo.example.com',
        root_redirect: 'http://solo.example.com/',
        not_found_redirect: 'http://solo.example.com/missing',
        projects: solo.api_key,
      });
      const res = await t.http
        .post('/domains/new')
        .query({ ...keys(), json })
        .expect(200);
      expect(res.body.request).toEqual(echo('new', { ...keys(), json }));
      expect(res.body.response.domain.projects).toEqual(['new-solo']);

      const bare = JSON.stringify({
        hostname: 'bare.example.com',
        root_redirect: 'https://bare.example.com/',
        not_found_redirect: 'https://bare.example.com/404',
      });
      const empty = await post('/domains/new', { ...keys(), json: bare }).expect(200);
      expect(empty.body.response.domain).toEqual({
        hostname: 'bare.example.com',
        root_redirect: 'https://bare.example.com/',
        not_found_redirect: 'https://bare.example.com/404',
        projects: [],
        created_at: TIMESTAMP,
        updated_at: TIMESTAMP,
      });
    });

    it('accepts hostname_segment and hostname:port', async () => {
      for (const hostname of [
        'seg.example.com_Blog-1',
        'port.example.com:8080',
        'port.example.com:8443_x',
      ]) {
        const json = JSON.stringify({
          hostname,
          root_redirect: 'https://example.com/',
          not_found_redirect: 'https://example.com/404',
        });
        const res = await post('/domains/new', { ...keys(), json }).expect(200);
        expect(res.body.response.domain.hostname).toBe(hostname);
      }
      // The host part is case-insensitive; the segment is a path segment of the links, kept as written.
      const json = JSON.stringify({
        hostname: 'SEG.Example.com_Blog',
        root_redirect: 'https://example.com/',
        not_found_redirect: 'https://example.com/404',
      });
      const res = await post('/domains/new', { ...keys(), json }).expect(200);
      expect(res.body.response.domain.hostname).toBe('seg.example.com_Blog');
      await post('/domains/SEG.example.COM_Blog/show', keys()).expect(200);
      await post('/domains/seg.example.com_blog/show', keys()).expect(404);
    });

    it('requires json', async () => {
      const res = await post('/domains/new', keys()).expect(400);
      expect(res.body).toEqual({
        request: echo('new', keys()),
        error: { code: 1001, message: 'Missing required parameter: json' },
      });
    });

    it('refuses json that is not a JSON object', async () => {
      for (const [json, message] of [
        ['{"hostname":', 'Invalid parameter json: is not valid JSON'],
        ['["a"]', 'Invalid parameter json: must be a JSON object'],
      ]) {
        const res = await post('/domains/new', { ...keys(), json }).expect(400);
        expect(res.body).toEqual({
          request: echo('new', { ...keys(), json }),
          error: { code: 1002, message },
        });
      }
    });

    it('refuses unknown fields, naming them', async () => {
      const json = JSON.stringify({
        hostname: 'unknown.example.com',
        root_redirect: 'https://example.com/',
        not_found_redirect: 'https://example.com/404',
        colour: 'blue',
        remove_projects: [],
      });
      const res = await post('/domains/new', { ...keys(), json }).expect(400);
      expect(res.body).toEqual({
        request: echo('new', { ...keys(), json }),
        error: {
          code: 1002,
          message:
            'Invalid parameter json: unknown fields colour, remove_projects in the domain creation object (allowed: hostname, root_redirect, not_found_redirect, projects)',
        },
      });
      expect(await domainCount('unknown.example.com')).toBe(0);
      const one = JSON.stringify({
        hostname: 'unknown.example.com',
        root_redirect: 'https://e.com/',
        size: 1,
      });
      const res2 = await post('/domains/new', { ...keys(), json: one }).expect(400);
      expect(res2.body).toEqual({
        request: echo('new', { ...keys(), json: one }),
        error: {
          code: 1002,
          message:
            'Invalid parameter json.size: not a field of the domain creation object (allowed: hostname, root_redirect, not_found_redirect, projects)',
        },
      });
    });

    it('requires hostname', async () => {
      const json = JSON.stringify({
        root_redirect: 'https://example.com/',
        not_found_redirect: 'https://example.com/404',
      });
      const res = await post('/domains/new', { ...keys(), json }).expect(400);
      expect(res.body.error).toEqual({
        code: 1001,
        message: 'Missing required parameter: json.hostname',
      });
    });

    it.each([
      [
        'https://scheme.example.com',
        'Invalid parameter json.hostname: "https://scheme.example.com" must be a hostname without a scheme (e.g. go.example.com)',
      ],
      [
        'path.example.com/blog',
        'Invalid parameter json.hostname: "path.example.com/blog" must be a hostname without a path; write one extra path segment as hostname_segment',
      ],
      [
        'bad host.example.com',
        'Invalid parameter json.hostname: "bad host.example.com" is not a valid hostname (hostname, optionally :port and one _segment of A-Z, a-z, 0-9 and -)',
      ],
      [
        'two.example.com_a_b',
        'Invalid parameter json.hostname: "two.example.com_a_b" is not a valid hostname (hostname, optionally :port and one _segment of A-Z, a-z, 0-9 and -)',
      ],
      [
        'port.example.com:70000',
        'Invalid parameter json.hostname: "port.example.com:70000" has a port outside 1 to 65535',
      ],
      [
        'svc.test',
        'Invalid parameter json.hostname: svc.test is the shared default domain and cannot be connected',
      ],
      [
        'SVC.Test',
        'Invalid parameter json.hostname: svc.test is the shared default domain and cannot be connected',
      ],
      [
        'svc.test_blog',
        'Invalid parameter json.hostname: svc.test is the shared default domain and cannot be connected',
      ],
    ])('refuses hostname %s with 400', async (hostname, message) => {
      const json = JSON.stringify({
        hostname,
        root_redirect: 'https://example.com/',
        not_found_redirect: 'https://example.com/404',
      });
      const res = await post('/domains/new', { ...keys(), json }).expect(400);
      expect(res.body).toEqual({
        request: echo('new', { ...keys(), json }),
        error: { code: 1002, message },
      });
    });

    it('refuses a hostname that is not a string', async () => {
      const json = JSON.stringify({
        hostname: 42,
        root_redirect: 'https://e.com/',
        not_found_redirect: 'https://e.com/',
      });
      const res = await post('/domains/new', { ...keys(), json }).expect(400);
      expect(res.body.error).toEqual({
        code: 1002,
        message: 'Invalid parameter json.hostname: must be a string',
      });
    });

    it.each([
      [
        { not_found_redirect: 'https://e.com/404' },
        1001,
        'Missing required parameter: json.root_redirect',
      ],
      [
        { root_redirect: 'https://e.com/' },
        1001,
        'Missing required parameter: json.not_found_redirect',
      ],
      [
        { root_redirect: '/home', not_found_redirect: 'https://e.com/404' },
        1002,
        'Invalid parameter json.root_redirect: must be an absolute http(s) URL',
      ],
      [
        { root_redirect: 'https://e.com/', not_found_redirect: 'ftp://e.com/404' },
        1002,
        'Invalid parameter json.not_found_redirect: must be an absolute http(s) URL',
      ],
      [
        { root_redirect: ['https://e.com/'], not_found_redirect: 'https://e.com/404' },
        1002,
        'Invalid parameter json.root_redirect: must be an absolute http(s) URL',
      ],
    ])('checks the redirects: %j', async (redirects, code, message) => {
      const json = JSON.stringify({ hostname: 'redirects.example.com', ...redirects });
      const res = await post('/domains/new', { ...keys(), json }).expect(400);
      expect(res.body).toEqual({
        request: echo('new', { ...keys(), json }),
        error: { code, message },
      });
      expect(await domainCount('redirects.example.com')).toBe(0);
    });

    it('refuses a hostname already connected, by this or another subscription, with 400 code 10004', async () => {
      await connect('taken.example.com');
      await connect('theirs.example.com', [], otherKeys());
      for (const [hostname, params] of [
        ['taken.example.com', keys()],
        ['TAKEN.example.com', otherKeys()],
        ['theirs.example.com', keys()],
        // Their host: a segment of it would put links under their domain.
        ['theirs.example.com_mine', keys()],
      ] as const) {
        const json = JSON.stringify({
          hostname,
          root_redirect: 'https://example.com/',
          not_found_redirect: 'https://example.com/404',
        });
        const res = await post('/domains/new', { ...params, json }).expect(400);
        expect(res.body).toEqual({
          request: echo('new', { ...params, json }),
          error: {
            code: 10004,
            message: `Invalid parameter json.hostname: ${hostname.toLowerCase()} is already connected`,
          },
        });
      }
      // The owner may add a segment domain on its own host.
      await connect('taken.example.com_sub');
    });

    it("refuses another subscription's project with 403 code 1004 and connects nothing", async () => {
      const mine = await insertProject('new-mine');
      const theirs = await insertProject('new-theirs', { subscription: other.subscription.id });
      const json = JSON.stringify({
        hostname: 'cross.example.com',
        root_redirect: 'https://example.com/',
        not_found_redirect: 'https://example.com/404',
        projects: [mine.api_key, theirs.api_key],
      });
      const res = await post('/domains/new', { ...keys(), json }).expect(403);
      expect(res.body).toEqual({
        request: echo('new', { ...keys(), json }),
        error: {
          code: 1004,
          message: `Not permitted: json.projects ${theirs.api_key} is a project of another subscription`,
        },
      });
      expect(await domainCount('cross.example.com')).toBe(0);
    });

    it('refuses an unknown or destroyed project key with 404 code 1003 naming the key', async () => {
      const gone = await insertProject('new-gone', { deleted: true });
      const unknown = 'f'.repeat(64);
      for (const key of [unknown, gone.api_key]) {
        const json = JSON.stringify({
          hostname: 'unknown-project.example.com',
          root_redirect: 'https://example.com/',
          not_found_redirect: 'https://example.com/404',
          projects: [key],
        });
        const res = await post('/domains/new', { ...keys(), json }).expect(404);
        expect(res.body).toEqual({
          request: echo('new', { ...keys(), json }),
          error: { code: 1003, message: `Project not found: json.projects ${key}` },
        });
      }
      expect(await domainCount('unknown-project.example.com')).toBe(0);
    });

    it('refuses project entries that are not strings', async () => {
      const json = JSON.stringify({
        hostname: 'typed.example.com',
        root_redirect: 'https://example.com/',
        not_found_redirect: 'https://example.com/404',
        projects: [7],
      });
      const res = await post('/domains/new', { ...keys(), json }).expect(400);
      expect(res.body.error).toEqual({
        code: 1002,
        message: 'Invalid parameter json.projects[0]: must be a non-empty string',
      });
    });
  });

  describe('list', () => {
    it("lists only the subscription's domains, by hostname, with live project names (POST and GET)", async () => {
      const sub = await t.app.get(SubscriptionsService).createSubscription('lister');
      const params = { subscription_key: sub.subscriptionKey, application_key: sub.applicationKey };
      const empty = await post('/domains/list', params).expect(200);
      expect(empty.body).toEqual({ request: echo('list', params), response: { domains: [] } });

      const zed = await insertProject('list-zed', { subscription: sub.subscription.id });
      const alpha = await insertProject('list-alpha', { subscription: sub.subscription.id });
      const dead = await insertProject('list-dead', { subscription: sub.subscription.id });
      await connect('zz.list.example.com', [zed.api_key], params);
      await connect('aa.list.example.com', [zed.api_key, alpha.api_key, dead.api_key], params);
      await t.db.query('UPDATE projects SET deleted_at = now() WHERE id = $1', [dead.id]);

      const expected = {
        request: echo('list', params),
        response: {
          domains: [
            {
              hostname: 'aa.list.example.com',
              root_redirect: 'https://aa.list.example.com/',
              not_found_redirect: 'https://aa.list.example.com/404',
              projects: ['list-alpha', 'list-zed'],
              created_at: TIMESTAMP,
              updated_at: TIMESTAMP,
            },
            {
              hostname: 'zz.list.example.com',
              root_redirect: 'https://zz.list.example.com/',
              not_found_redirect: 'https://zz.list.example.com/404',
              projects: ['list-zed'],
              created_at: TIMESTAMP,
              updated_at: TIMESTAMP,
            },
          ],
        },
      };
      expect((await post('/domains/list', params).expect(200)).body).toEqual(expected);
      expect((await t.http.get('/domains/list').query(params).expect(200)).body).toEqual(expected);
    });
  });

  describe('show', () => {
    beforeAll(async () => {
      const project = await insertProject('show-project');
      await connect('show.example.com', [project.api_key]);
      await connect('hidden.example.com', [], otherKeys());
    });

    it('shows a domain (POST and GET, hostname in any case)', async () => {
      const domain = {
        hostname: 'show.example.com',
        root_redirect: 'https://show.example.com/',
        not_found_redirect: 'https://show.example.com/404',
        projects: ['show-project'],
        created_at: TIMESTAMP,
        updated_at: TIMESTAMP,
      };
      const byPost = await post('/domains/show.example.com/show', keys()).expect(200);
      expect(byPost.body).toEqual({
        request: echo('show', keys(), 'show.example.com'),
        response: { domain },
      });
      const byGet = await t.http.get('/domains/Show.Example.com/show').query(keys()).expect(200);
      expect(byGet.body).toEqual({
        request: echo('show', keys(), 'Show.Example.com'),
        response: { domain },
      });
    });

    it('answers 404 code 1003 for a hostname that is not connected', async () => {
      const res = await t.http.get('/domains/nowhere.example.com/show').query(keys()).expect(404);
      expect(res.body).toEqual({
        request: echo('show', keys(), 'nowhere.example.com'),
        error: { code: 1003, message: 'Domain not found: nowhere.example.com' },
      });
    });

    it("answers 403 code 1004 for another subscription's domain, without its data", async () => {
      const res = await post('/domains/hidden.example.com/show', keys()).expect(403);
      expect(res.body).toEqual({
        request: echo('show', keys(), 'hidden.example.com'),
        error: {
          code: 1004,
          message: 'Not permitted: domain hidden.example.com is not connected to this subscription',
        },
      });
    });
  });

  describe('update', () => {
    let keep: ProjectRow;
    let drop: ProjectRow;
    let add: ProjectRow;

    beforeAll(async () => {
      keep = await insertProject('upd-keep');
      drop = await insertProject('upd-drop');
      add = await insertProject('upd-add');
      await connect('upd.example.com', [keep.api_key, drop.api_key]);
      await connect('upd-theirs.example.com', [], otherKeys());
    });

    async function backdate(hostname: string): Promise<void> {
      await t.db.query(
        `UPDATE domains SET created_at = '2024-01-02 03:04:05+00', updated_at = '2024-01-02 03:04:05+00'
          WHERE hostname = $1`,
        [hostname],
      );
    }

    it('changes only the given fields and touches updated_at', async () => {
      await backdate('upd.example.com');
      const json = JSON.stringify({ not_found_redirect: 'https://www.example.com/missing' });
      const res = await post('/domains/upd.example.com/update', { ...keys(), json }).expect(200);
      expect(res.body).toEqual({
        request: echo('update', { ...keys(), json }, 'upd.example.com'),
        response: {
          domain: {
            hostname: 'upd.example.com',
            root_redirect: 'https://upd.example.com/',
            not_found_redirect: 'https://www.example.com/missing',
            projects: ['upd-drop', 'upd-keep'],
            created_at: '2024-01-02 03:04:05',
            updated_at: TIMESTAMP,
          },
        },
      });
      expect(res.body.response.domain.updated_at).not.toBe('2024-01-02 03:04:05');
    });

    it('adds projects and removes others', async () => {
      const json = JSON.stringify({
        root_redirect: 'https://www.example.com/home',
        projects: add.api_key,
        remove_projects: [drop.api_key],
      });
      const res = await post('/domains/upd.example.com/update', { ...keys(), json }).expect(200);
      expect(res.body.response.domain).toEqual({
        hostname: 'upd.example.com',
        root_redirect: 'https://www.example.com/home',
        not_found_redirect: 'https://www.example.com/missing',
        projects: ['upd-add', 'upd-keep'],
        created_at: '2024-01-02 03:04:05',
        updated_at: TIMESTAMP,
      });
      // Adding an authorised project again and removing one that is not authorised change nothing.
      const again = JSON.stringify({ projects: [keep.api_key], remove_projects: [drop.api_key] });
      const res2 = await post('/domains/upd.example.com/update', { ...keys(), json: again }).expect(
        200,
      );
      expect(res2.body.response.domain.projects).toEqual(['upd-add', 'upd-keep']);
    });

    it('refuses to remove a project whose default_domain is this hostname', async () => {
      const pinned = await insertProject('upd-pinned', { defaultDomain: 'upd.example.com' });
      await post('/domains/upd.example.com/update', {
        ...keys(),
        json: JSON.stringify({ projects: [pinned.api_key] }),
      }).expect(200);
      const json = JSON.stringify({ remove_projects: [keep.api_key, pinned.api_key] });
      const res = await post('/domains/upd.example.com/update', { ...keys(), json }).expect(400);
      expect(res.body).toEqual({
        request: echo('update', { ...keys(), json }, 'upd.example.com'),
        error: {
          code: 1002,
          message:
            "Invalid parameter json.remove_projects: upd.example.com is the default_domain of project upd-pinned; change the project's default_domain first",
        },
      });
      const show = await post('/domains/upd.example.com/show', keys()).expect(200);
      expect(show.body.response.domain.projects).toEqual(['upd-add', 'upd-keep', 'upd-pinned']);
    });

    it.each([
      [
        { hostname: 'renamed.example.com' },
        'Invalid parameter json.hostname: a domain cannot be renamed; destroy it and connect the new hostname',
      ],
      [
        { colour: 'blue' },
        'Invalid parameter json.colour: not a field of the domain update object (allowed: root_redirect, not_found_redirect, projects, remove_projects)',
      ],
      [
        { root_redirect: 'example.com' },
        'Invalid parameter json.root_redirect: must be an absolute http(s) URL',
      ],
      [
        { root_redirect: null },
        'Invalid parameter json.root_redirect: must be an absolute http(s) URL',
      ],
      [
        { not_found_redirect: '' },
        'Invalid parameter json.not_found_redirect: must be an absolute http(s) URL',
      ],
      [
        { remove_projects: [''] },
        'Invalid parameter json.remove_projects[0]: must be a non-empty string',
      ],
      [
        { projects: ['a'.repeat(64)], remove_projects: ['a'.repeat(64)] },
        `Invalid parameter json.remove_projects: ${'a'.repeat(64)} is also listed in json.projects`,
      ],
    ])('refuses %j with 400 and changes nothing', async (object, message) => {
      const before = (await post('/domains/upd.example.com/show', keys()).expect(200)).body.response
        .domain;
      const json = JSON.stringify(object);
      const res = await post('/domains/upd.example.com/update', { ...keys(), json }).expect(400);
      expect(res.body).toEqual({
        request: echo('update', { ...keys(), json }, 'upd.example.com'),
        error: { code: 1002, message },
      });
      const after = (await post('/domains/upd.example.com/show', keys()).expect(200)).body.response
        .domain;
      expect(after).toEqual(before);
    });

    it('requires json', async () => {
      const res = await post('/domains/upd.example.com/update', keys()).expect(400);
      expect(res.body).toEqual({
        request: echo('update', keys(), 'upd.example.com'),
        error: { code: 1001, message: 'Missing required parameter: json' },
      });
    });

    it("refuses another subscription's project (403 code 1004) and unknown keys (404 code 1003)", async () => {
      const theirs = await insertProject('upd-theirs', { subscription: other.subscription.id });
      const json = JSON.stringify({ remove_projects: [theirs.api_key] });
      const forbidden = await post('/domains/upd.example.com/update', { ...keys(), json }).expect(
        403,
      );
      expect(forbidden.body).toEqual({
        request: echo('update', { ...keys(), json }, 'upd.example.com'),
        error: {
          code: 1004,
          message: `Not permitted: json.remove_projects ${theirs.api_key} is a project of another subscription`,
        },
      });
      const unknown = '0'.repeat(64);
      const json2 = JSON.stringify({ projects: [unknown] });
      const missing = await post('/domains/upd.example.com/update', {
        ...keys(),
        json: json2,
      }).expect(404);
      expect(missing.body).toEqual({
        request: echo('update', { ...keys(), json: json2 }, 'upd.example.com'),
        error: { code: 1003, message: `Project not found: json.projects ${unknown}` },
      });
    });

    it('answers 404 for an unknown hostname and 403 for one of another subscription', async () => {
      const json = JSON.stringify({ root_redirect: 'https://example.com/' });
      const missing = await post('/domains/nope.example.com/update', { ...keys(), json }).expect(
        404,
      );
      expect(missing.body).toEqual({
        request: echo('update', { ...keys(), json }, 'nope.example.com'),
        error: { code: 1003, message: 'Domain not found: nope.example.com' },
      });
      const forbidden = await post('/domains/upd-theirs.example.com/update', {
        ...keys(),
        json,
      }).expect(403);
      expect(forbidden.body).toEqual({
        request: echo('update', { ...keys(), json }, 'upd-theirs.example.com'),
        error: {
          code: 1004,
          message:
            'Not permitted: domain upd-theirs.example.com is not connected to this subscription',
        },
      });
      const theirs = await t.db.query('SELECT root_redirect FROM domains WHERE hostname = $1', [
        'upd-theirs.example.com',
      ]);
      expect(theirs.rows).toEqual([{ root_redirect: 'https://upd-theirs.example.com/' }]);
    });
  });

  describe('destroy', () => {
    it('is refused while live projects have the hostname as default_domain, naming them', async () => {
      const b = await insertProject('dst-b', { defaultDomain: 'dst.example.com' });
      const a = await insertProject('dst-a', { defaultDomain: 'dst.example.com' });
      await insertProject('dst-gone', { defaultDomain: 'dst.example.com', deleted: true });
      await connect('dst.example.com', [a.api_key, b.api_key]);
      const res = await post('/domains/dst.example.com/destroy', keys()).expect(400);
      expect(res.body).toEqual({
        request: echo('delete', keys(), 'dst.example.com'),
        error: {
          code: 1002,
          message:
            "Domain dst.example.com is the default_domain of project dst-a, dst-b; change the project's default_domain first",
        },
      });
      expect(await domainCount('dst.example.com')).toBe(1);

      await t.db.query(`UPDATE projects SET default_domain = 'svc.test' WHERE id IN ($1, $2)`, [
        a.id,
        b.id,
      ]);
      const done = await post('/domains/dst.example.com/destroy', keys()).expect(200);
      expect(done.body).toEqual({
        request: echo('delete', keys(), 'dst.example.com'),
        response: { deleted: true },
      });
      expect(await domainCount('dst.example.com')).toBe(0);
      const links = await t.db.query('SELECT 1 FROM project_domains WHERE project_id IN ($1, $2)', [
        a.id,
        b.id,
      ]);
      expect(links.rowCount).toBe(0);
      await post('/domains/dst.example.com/show', keys()).expect(404);
      // The hostname is free again.
      await connect('dst.example.com');
    });

    it('answers 404 for an unknown hostname and 403 for one of another subscription', async () => {
      await connect('dst-theirs.example.com', [], otherKeys());
      const missing = await post('/domains/nope.example.com/destroy', keys()).expect(404);
      expect(missing.body).toEqual({
        request: echo('delete', keys(), 'nope.example.com'),
        error: { code: 1003, message: 'Domain not found: nope.example.com' },
      });
      const forbidden = await post('/domains/dst-theirs.example.com/destroy', keys()).expect(403);
      expect(forbidden.body).toEqual({
        request: echo('delete', keys(), 'dst-theirs.example.com'),
        error: {
          code: 1004,
          message:
            'Not permitted: domain dst-theirs.example.com is not connected to this subscription',
        },
      });
      expect(await domainCount('dst-theirs.example.com')).toBe(1);
    });

    it('is POST only', async () => {
      const res = await t.http
        .get('/domains/dst-theirs.example.com/destroy')
        .query(keys())
        .expect(404);
      expect(res.body).toEqual({
        request: echo('delete', keys(), 'dst-theirs.example.com'),
        error: { code: 1003, message: 'Cannot GET /domains/dst-theirs.example.com/destroy' },
      });
    });
  });

  describe('links on a domain_segment', () => {
    it('takes the host in any case and the segment as connected: domain=, redirects and the stats domain filter', async () => {
      const project = await createProject(t);
      await connect('brand.example_Deals', [project.api_key]);
      const base = { v: '3', key: project.api_key, tool: 'pub-bar', channel: 'email' };
      const domain = 'BRAND.Example_Deals';

      const created = await post('/url.json', {
        ...base,
        url: 'https://example.com/create',
        domain,
      }).expect(200);
      const path = created.body.path as string;
      expect([created.body.domain, created.body.svc_id, created.body.svc_url]).toEqual([
        'brand.example_Deals',
        `brand.example_Deals_${path}`,
        `http://brand.example/Deals/${path}`,
      ]);
      const batch = await t.http
        .post('/url/batch.json')
        .type('form')
        .send(
          `${new URLSearchParams({ ...base, domain }).toString()}&url[]=https%3A%2F%2Fexample.com%2Fb1&url[]=https%3A%2F%2Fexample.com%2Fb2`,
        )
        .expect(200);
      const fixed = await post('/url/static.json', {
        ...base,
        url: 'https://example.com/static',
        domain,
      }).expect(200);
      const retweet = await post('/url/retweet.json', {
        ...base,
        text: 'see http://example.com/retweet now',
        domain,
      }).expect(200);
      expect(
        [...batch.body.svc_urls, fixed.body, ...retweet.body.svc_urls].map(
          (r: { domain: string }) => r.domain,
        ),
      ).toEqual([
        'brand.example_Deals',
        'brand.example_Deals',
        'brand.example_Deals',
        'brand.example_Deals',
      ]);
      // The segment is a path segment of the links: in another case it names another domain.
      const other = await post('/url.json', {
        ...base,
        url: 'https://example.com/create',
        domain: 'brand.example_deals',
      }).expect(403);
      expect(other.body).toEqual({
        error: 403,
        error_message: 'The project has no access to domain brand.example_deals',
      });

      const visit = (host: string, linkPath: string) =>
        t.http.get(`/${linkPath}`).set('Host', host).set('User-Agent', BROWSER);
      const hit = await visit('Brand.EXAMPLE', `Deals/${path}`).expect(302);
      expect(hit.headers.location).toBe('https://example.com/create');
      expect((await visit('brand.example', 'Deals').expect(302)).headers.location).toBe(
        'https://brand.example/',
      );
      expect((await visit('brand.example', `deals/${path}`).expect(404)).text).toContain(
        'Link not found',
      );
      await t.settle();

      const totals = async (filter: string) =>
        (
          await t.http
            .get('/stats/totals.json')
            .query({ v: '3', key: project.api_key, domain: filter })
            .expect(200)
        ).body.totals as unknown;
      expect(await totals('Brand.Example_Deals')).toEqual({
        clicks: 1,
        shares: 5,
        clicks_per_share: 0.2,
      });
      expect(await totals('brand.example_deals')).toEqual({
        clicks: 0,
        shares: 0,
        clicks_per_share: 0,
      });
      const range = await t.http
        .get('/stats/range.json')
        .query({ v: '3', key: project.api_key, domain: 'BRAND.EXAMPLE_Deals', group_by: 'domain' })
        .expect(200);
      expect([range.body.filters, range.body.groups]).toEqual([
        { domain: 'brand.example_Deals', domain_metadata: null },
        [{ domain: 'brand.example_Deals', clicks: 1, shares: 5, clicks_per_share: 0.2 }],
      ]);
    });
  });

  describe('DomainsService.findByHostname', () => {
    it('finds a connected domain of any subscription by hostname (host part case-insensitive)', async () => {
      await connect('find.example.com_seg');
      const service = t.app.get(DomainsService);
      const found = await service.findByHostname('FIND.example.com_seg');
      expect(found).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        subscriptionId,
        hostname: 'find.example.com_seg',
        rootRedirect: 'https://find.example.com/',
        notFoundRedirect: 'https://find.example.com/404',
        createdAt: expect.any(Date),
        updatedAt: expect.any(Date),
      });
      expect(await service.findByHostname('find.example.com')).toBeNull();
      expect(await service.findByHostname('find.example.com_SEG')).toBeNull();
    });
  });

  describe('OpenAPI', () => {
    it('documents every domains operation with parameters, examples and error responses', async () => {
      const doc = (await t.http.get('/docs-json').expect(200)).body;
      const operations: [string, string][] = [
        ['/domains/list', 'post'],
        ['/domains/list', 'get'],
        ['/domains/new', 'post'],
        ['/domains/{hostname}/show', 'post'],
        ['/domains/{hostname}/show', 'get'],
        ['/domains/{hostname}/update', 'post'],
        ['/domains/{hostname}/destroy', 'post'],
      ];
      expect(
        Object.keys(doc.paths)
          .filter((p) => p.startsWith('/domains'))
          .sort(),
      ).toEqual([
        '/domains/list',
        '/domains/new',
        '/domains/{hostname}/destroy',
        '/domains/{hostname}/show',
        '/domains/{hostname}/update',
      ]);
      for (const [path, method] of operations) {
        const operation = doc.paths[path][method] as OpenApiOperation;
        expect(operation.tags).toEqual(['domains']);
        expect(typeof operation.summary).toBe('string');
        const errors = path === '/domains/list' ? ['400', '403'] : ['400', '403', '404'];
        expect(Object.keys(operation.responses).sort()).toEqual(['200', ...errors, 'default']);
        for (const status of [...errors, 'default']) {
          expect(operation.responses[status].content['application/json'].schema).toEqual({
            $ref: '#/components/schemas/AdminErrorDto',
          });
        }
        for (const status of errors) {
          const examples = operation.responses[status].content['application/json'].examples;
          for (const example of Object.values(examples)) {
            expect(typeof example.value.error.code).toBe('number');
          }
        }
        if (method === 'get') {
          const names = operation.parameters.filter((p) => p.in === 'query').map((p) => p.name);
          expect(names).toEqual(['subscription_key', 'application_key']);
          for (const p of operation.parameters) {
            expect(p.description).toEqual(expect.any(String));
            expect(p.schema.example).toEqual(expect.any(String));
          }
        } else {
          const schema =
            operation.requestBody.content['application/x-www-form-urlencoded'].schema.$ref;
          expect(schema).toMatch(
            /^#\/components\/schemas\/(DomainKeysParamsDto|CreateDomainParamsDto|UpdateDomainParamsDto)$/,
          );
        }
      }
      const create = doc.components.schemas.CreateDomainParamsDto;
      expect(JSON.parse(create.properties.json.example)).toEqual({
        hostname: 'go.example.com',
        root_redirect: 'https://www.example.com/',
        not_found_redirect: 'https://www.example.com/404',
        projects: [expect.stringMatching(/^[0-9a-f]{64}$/)],
      });
      expect(doc.components.schemas.DomainCreationObjectDto.required).toEqual([
        'hostname',
        'root_redirect',
        'not_found_redirect',
      ]);
    });
  });
});
