import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { ProjectLookupsService } from '../../src/projects/project-lookups.service';
import { SubscriptionsService } from '../../src/subscriptions/subscriptions.service';
import { TestApp, createTestApp } from '../support/app';

const TIMESTAMP = expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
const API_KEY = expect.stringMatching(/^[0-9a-f]{64}$/);
const PUBLISHABLE_KEY = expect.stringMatching(/^pk_[0-9a-f]{32}$/);
const UUID = expect.stringMatching(
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
);

type Params = Record<string, string>;
type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const NO_GOALS = Object.fromEntries(
  Array.from({ length: 10 }, (_, i) => [`goal_${i + 1}_label`, null]),
);

function conversions(
  enabled: boolean,
  domains: 'all' | string[],
  labels: Record<string, string> = {},
): Body {
  return { enabled, domains, ...NO_GOALS, ...labels };
}

describe('projects administration', () => {
  let t: TestApp;
  let keys: Params;
  let other: Params;
  let subscriptionId: string;
  let otherSubscriptionId: string;

  const post = (url: string, params: Params) => t.http.post(url).type('form').send(params);
  const json = (object: unknown) => JSON.stringify(object);
  /** The request echo: every parameter as given, plus apikey, method and object. */
  const echo = (params: Params, method: string, apikey?: string): Body => ({
    ...params,
    ...(apikey ? { apikey } : {}),
    method,
    object: 'project',
  });
  const user = (
    email: string,
    username: string,
    defaultProject: string,
    name = username,
  ): Body => ({
    default_project: defaultProject,
    email,
    name,
    sharer_id: UUID,
    username,
  });
  const record = (fields: Body): Body => ({
    api_key: API_KEY,
    publishable_key: PUBLISHABLE_KEY,
    created_at: TIMESTAMP,
    updated_at: TIMESTAMP,
    default_domain: 'svc.test',
    domains: [],
    admins: [],
    sharers: [],
    viewers: [],
    ...fields,
  });
  const create = async (
    object: unknown,
    credentials: Params = { subscription_key: keys.subscription_key },
  ) => {
    const params = { ...credentials, json: json(object) };
    return post('/projects/new', params);
  };
  const createOk = async (object: unknown, credentials?: Params): Promise<Body> => {
    const res = await create(object, credentials);
    expect(res.status).toBe(200);
    return res.body.response.project as Body;
  };
  const projectsOf = (res: { body: Body }): Body[] => res.body.response.projects as Body[];
  const expectError = (
    res: { status: number; body: Body },
    status: number,
    code: number,
    message: string,
  ) => {
    expect({ status: res.status, error: res.body.error }).toEqual({
      status,
      error: { code, message },
    });
  };
  const userId = async (email: string): Promise<string> =>
    (await t.db.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [email])).rows[0].id;
  const projectId = async (apiKey: string): Promise<string> =>
    (await t.db.query<{ id: string }>('SELECT id FROM projects WHERE api_key = $1', [apiKey]))
      .rows[0].id;
  const connect = async (subscription: string, hostname: string) =>
    t.db.query(
      `INSERT INTO domains (subscription_id, hostname, root_redirect, not_found_redirect) VALUES ($1, $2, $3, $3)`,
      [subscription, hostname, 'https://example.com/'],
    );

  beforeAll(async () => {
    t = await createTestApp();
    keys = { subscription_key: t.subscriptionKey, application_key: t.applicationKey };
    const issued = await t.app.get(SubscriptionsService).createSubscription('other');
    other = { subscription_key: issued.subscriptionKey, application_key: issued.applicationKey };
    otherSubscriptionId = issued.subscription.id;
    subscriptionId = (
      await t.db.query<{ id: string }>(`SELECT id FROM subscriptions WHERE name = 'bootstrap'`)
    ).rows[0].id;
    for (const host of ['go.acme.test', 'links.acme.test', 'seg.acme.test_blog'])
      await connect(subscriptionId, host);
    await connect(otherSubscriptionId, 'other.test');
  });
  afterAll(() => t.close());

  describe('new', () => {
    it('creates a project from a name alone, with the shared default domain (application_key optional)', async () => {
      const params = { subscription_key: keys.subscription_key, json: json({ name: 'solo' }) };
      const res = await post('/projects/new', params);
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({
        request: echo(params, 'new'),
        response: { project: record({ name: 'solo' }) },
      });
      expect(res.body.response.project.created_at).toBe(res.body.response.project.updated_at);
    });

    it('creates a project with domains, users and conversions; new users get a welcome e-mail', async () => {
      const object = {
        name: 'acme',
        domains: ['go.acme.test', 'seg.acme.test_blog', 'svc.test'],
        default_domain: 'go.acme.test',
        admins: ['Ann@Example.com'],
        sharers: 'bob@example.com',
        viewers: [],
        conversions: { enabled: true, domains: 'shop.acme.test', goal_1_label: 'Signup' },
      };
      const params = { ...keys, json: json(object) };
      const res = await post('/projects/new', params);
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({
        request: echo(params, 'new'),
        response: {
          project: record({
            name: 'acme',
            default_domain: 'go.acme.test',
            domains: ['go.acme.test', 'seg.acme.test_blog'],
            admins: [user('ann@example.com', 'ann', 'acme')],
            sharers: [user('bob@example.com', 'bob', 'acme')],
          }),
        },
      });
      const project = await projectId(res.body.response.project.api_key);
      await t.settle();
      for (const email of ['ann@example.com', 'bob@example.com']) {
        const file = path.join(t.config.outboxDir, `welcome-${await userId(email)}-${project}.eml`);
        expect(existsSync(file)).toBe(true);
        const eml = readFileSync(file, 'utf8');
        expect(eml).toContain(`To: ${email}\r\n`);
        expect(eml).toContain('Subject: You have been added to acme\r\n');
      }
      expect(res.body.response.project.admins[0].sharer_id).toBe(await userId('ann@example.com'));
    });

    it('shows the conversions object only on show', async () => {
      const [acme] = projectsOf(await post('/projects/list', keys)).filter(
        (p) => p.name === 'acme',
      );
      const res = await post(`/projects/${acme.api_key}/show`, keys);
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({
        request: echo(keys, 'show', acme.api_key),
        response: {
          project: record({
            name: 'acme',
            api_key: acme.api_key,
            default_domain: 'go.acme.test',
            domains: ['go.acme.test', 'seg.acme.test_blog'],
            admins: [user('ann@example.com', 'ann', 'acme')],
            sharers: [user('bob@example.com', 'bob', 'acme')],
            conversions: conversions(true, ['shop.acme.test'], { goal_1_label: 'Signup' }),
            redirection_patterns: {},
            utm_parameters: false,
            publishable_hosts: [],
            ip_storage: null,
            ua_storage: 'full',
            retention_days: null,
          }),
        },
      });
    });

    it('finds existing users by e-mail, username and sharer_id; no welcome e-mail for them', async () => {
      const bob = await userId('bob@example.com');
      const outbox = readdirSync(t.config.outboxDir).sort();
      const project = await createOk({
        name: 'acme-team',
        admins: ['ANN@example.com'],
        viewers: bob,
      });
      expect(project).toStrictEqual(
        record({
          name: 'acme-team',
          admins: [user('ann@example.com', 'ann', 'acme')],
          viewers: [user('bob@example.com', 'bob', 'acme')],
        }),
      );
      const team = await post(`/projects/${project.api_key}/update`, {
        ...keys,
        json: json({ sharers: ['bob'] }),
      });
      expect(team.body.response.project.sharers).toEqual([user('bob@example.com', 'bob', 'acme')]);
      expect(team.body.response.project.viewers).toEqual([]);
      await t.settle();
      expect(readdirSync(t.config.outboxDir).sort()).toEqual(outbox);
    });

    it('refuses a user named twice', async () => {
      const res = await create({ name: 'twice', admins: ['ann@example.com'], viewers: ['ann'] });
      expectError(
        res,
        400,
        1002,
        'Invalid parameter json.viewers[0]: "ann" names the same user as json.admins[0]',
      );
    });

    it('makes usernames of new users unique with a numeric suffix', async () => {
      const project = await createOk({
        name: 'suffix',
        viewers: ['ann@other.example', 'ann.b+x@example.com'],
      });
      expect(project.viewers).toEqual([
        user('ann.b+x@example.com', 'ann.b_x', 'suffix', 'ann.b+x'),
        user('ann@other.example', 'ann2', 'suffix', 'ann'),
      ]);
    });

    it('refuses an unknown user that is not an e-mail address (10005) and a malformed e-mail', async () => {
      expectError(
        await create({ name: 'nobody', sharers: ['nobody'] }),
        400,
        10005,
        'Invalid parameter json.sharers[0]: "nobody" is not a user of this subscription; new users are added by e-mail address',
      );
      expectError(
        await create({ name: 'nobody', admins: 'ann@' }),
        400,
        1002,
        'Invalid parameter json.admins: "ann@" is not a valid e-mail address',
      );
      expectError(
        await create({ name: 'nobody', admins: [42] }),
        400,
        1002,
        'Invalid parameter json.admins[0]: must be a non-empty string',
      );
    });

    it("does not find another subscription's users by username or sharer_id", async () => {
      const ann = await userId('ann@example.com');
      expectError(
        await create({ name: 'foreign', admins: ['ann'] }, other),
        400,
        10005,
        'Invalid parameter json.admins[0]: "ann" is not a user of this subscription; new users are added by e-mail address',
      );
      expectError(
        await create({ name: 'foreign', admins: [ann] }, other),
        400,
        10005,
        `Invalid parameter json.admins[0]: "${ann}" is not a user of this subscription; new users are added by e-mail address`,
      );
      // An e-mail address names the person anywhere; another tenant's project names stay hidden.
      const project = await createOk({ name: 'foreign', admins: ['ann@example.com'] }, other);
      expect(project.admins).toEqual([user('ann@example.com', 'ann', 'foreign')]);
    });

    it('requires a name of a-z, A-Z, 0-9, _ and - that no live project has (10001)', async () => {
      expectError(
        await create({ domains: [] }),
        400,
        1001,
        'Missing required parameter: json.name',
      );
      expectError(
        await create({ name: 'has space' }),
        400,
        1002,
        'Invalid parameter json.name: "has space" may contain only a-z, A-Z, 0-9, underscore and hyphen',
      );
      expectError(
        await create({ name: 7 }),
        400,
        1002,
        'Invalid parameter json.name: must be a non-empty string',
      );
      expectError(
        await create({ name: 'acme' }, other),
        400,
        10001,
        'Invalid parameter json.name: a project named "acme" already exists',
      );
    });

    it('requires json to be a JSON object', async () => {
      expectError(
        await post('/projects/new', { subscription_key: keys.subscription_key }),
        400,
        1001,
        'Missing required parameter: json',
      );
      expectError(
        await post('/projects/new', { subscription_key: keys.subscription_key, json: '{name' }),
        400,
        1002,
        'Invalid parameter json: is not valid JSON',
      );
      expectError(
        await post('/projects/new', { subscription_key: keys.subscription_key, json: '["a"]' }),
        400,
        1002,
        'Invalid parameter json: must be a JSON object',
      );
    });

    it('refuses unknown fields, naming them', async () => {
      const res = await create({ name: 'x', remove_domain: 'go.acme.test' });
      expect(res.status).toBe(400);
      expect(res.body).toStrictEqual({
        request: echo(
          {
            subscription_key: keys.subscription_key,
            json: json({ name: 'x', remove_domain: 'go.acme.test' }),
          },
          'new',
        ),
        error: {
          code: 1002,
          message:
            'Invalid parameter json.remove_domain: not a field of the project creation object (allowed: name, conversions, domains, default_domain, admins, sharers, viewers, redirection_patterns, utm_parameters, publishable_hosts, ip_storage, ua_storage, retention_days)',
        },
      });
      expectError(
        await create({ name: 'x', foo: 1, bar: 2 }),
        400,
        1002,
        'Invalid parameter json: unknown fields foo, bar in the project creation object (allowed: name, conversions, domains, default_domain, admins, sharers, viewers, redirection_patterns, utm_parameters, publishable_hosts, ip_storage, ua_storage, retention_days)',
      );
      expectError(
        await create({ name: 'x', conversions: { enabled: true, goal_6_label: 'Six' } }),
        400,
        1002,
        'Invalid parameter json.conversions.goal_6_label: not a field of the conversions object (allowed: enabled, domains, goal_1_label, goal_2_label, goal_3_label, goal_4_label, goal_5_label)',
      );
      expectError(
        await create({ name: 'x', conversions: { remove_domain: 'a.test' } }),
        400,
        1002,
        'Invalid parameter json.conversions.remove_domain: not a field of the conversions object (allowed: enabled, domains, goal_1_label, goal_2_label, goal_3_label, goal_4_label, goal_5_label)',
      );
    });

    it('checks the conversions object', async () => {
      expectError(
        await create({ name: 'x', conversions: { goal_1_label: 'g'.repeat(257) } }),
        400,
        1002,
        'Invalid parameter json.conversions.goal_1_label: must be at most 256 characters',
      );
      expectError(
        await create({ name: 'x', conversions: { enabled: 'yes' } }),
        400,
        1002,
        'Invalid parameter json.conversions.enabled: must be true or false',
      );
      expectError(
        await create({ name: 'x', conversions: { domains: ['ok.test', 'not a host'] } }),
        400,
        1002,
        'Invalid parameter json.conversions.domains[1]: "not a host" is not a hostname',
      );
      expectError(
        await create({ name: 'x', conversions: [] }),
        400,
        1002,
        'Invalid parameter json.conversions: must be an object',
      );
      const project = await createOk({
        name: 'conv',
        conversions: { enabled: 'TRUE', domains: 'all', goal_5_label: 'g'.repeat(256) },
      });
      const shown = await post(`/projects/${project.api_key}/show`, keys);
      expect(shown.body.response.project.conversions).toStrictEqual(
        conversions(true, 'all', { goal_5_label: 'g'.repeat(256) }),
      );
    });

    it('accepts only domains connected to the owning subscription (10003)', async () => {
      expectError(
        await create({ name: 'x', domains: ['go.acme.test', 'unknown.test'] }),
        400,
        10003,
        'Invalid parameter json.domains[1]: unknown.test is not a domain connected to this subscription (connect it with /domains/new first)',
      );
      expectError(
        await create({ name: 'x', domains: 'other.test' }),
        400,
        10003,
        'Invalid parameter json.domains: other.test is not a domain connected to this subscription (connect it with /domains/new first)',
      );
      expectError(
        await create({ name: 'x', domains: ['go.acme.test'] }, other),
        400,
        10003,
        'Invalid parameter json.domains[0]: go.acme.test is not a domain connected to this subscription (connect it with /domains/new first)',
      );
      expectError(
        await create({ name: 'x', domains: ['http://go.acme.test/'] }),
        400,
        1002,
        'Invalid parameter json.domains[0]: "http://go.acme.test/" is not a hostname (domain or domain_segment form)',
      );
    });

    it('requires default_domain to be the shared domain or one of the project domains', async () => {
      expectError(
        await create({ name: 'x', domains: ['go.acme.test'], default_domain: 'links.acme.test' }),
        400,
        1002,
        'Invalid parameter json.default_domain: "links.acme.test" must be svc.test or one of the project\'s domains (json.domains)',
      );
      const project = await createOk({ name: 'explicit-default', default_domain: 'SVC.test' });
      expect(project.default_domain).toBe('svc.test');
    });

    it('checks the keys: subscription_key required, application_key optional but valid', async () => {
      expectError(
        await create({ name: 'x' }, {}),
        400,
        1001,
        'Missing required parameter: subscription_key',
      );
      expectError(
        await create({ name: 'x' }, { subscription_key: 'sub_wrongwrongwrongwrong' }),
        403,
        1000,
        'Invalid API key specified (subscription_key)',
      );
      expectError(
        await create(
          { name: 'x' },
          { subscription_key: keys.subscription_key, application_key: other.application_key },
        ),
        403,
        1000,
        'Invalid API key specified (application_key)',
      );
    });
  });

  describe('show, list and keys', () => {
    let acmeKey: string;
    beforeAll(async () => {
      const list = await post('/projects/list', keys);
      acmeKey = projectsOf(list).find((p) => p.name === 'acme')!.api_key as string;
    });

    it('lists the live projects of the subscription, oldest first, with conversions', async () => {
      const res = await post('/projects/list', keys);
      expect(res.status).toBe(200);
      expect(res.body.request).toStrictEqual(echo(keys, 'list'));
      expect(projectsOf(res).map((p) => p.name as string)).toEqual([
        'solo',
        'acme',
        'acme-team',
        'suffix',
        'conv',
        'explicit-default',
      ]);
      expect(res.body.response.projects[0]).toStrictEqual(
        record({
          name: 'solo',
          conversions: conversions(false, []),
          redirection_patterns: {},
          utm_parameters: false,
          publishable_hosts: [],
          ip_storage: null,
          ua_storage: 'full',
          retention_days: null,
        }),
      );
      const otherList = await post('/projects/list', other);
      expect(otherList.body).toStrictEqual({
        request: echo(other, 'list'),
        response: {
          projects: [
            record({
              name: 'foreign',
              admins: [user('ann@example.com', 'ann', 'foreign')],
              conversions: conversions(false, []),
              redirection_patterns: {},
              utm_parameters: false,
              publishable_hosts: [],
              ip_storage: null,
              ua_storage: 'full',
              retention_days: null,
            }),
          ],
        },
      });
    });

    it('answers GET for show and list', async () => {
      const list = await t.http.get('/projects/list').query(keys);
      expect(list.status).toBe(200);
      expect(list.body.response.projects).toHaveLength(6);
      const show = await t.http.get(`/projects/${acmeKey}/show`).query(keys);
      expect(show.status).toBe(200);
      expect(show.body.request).toStrictEqual(echo(keys, 'show', acmeKey));
      expect(show.body.response.project.name).toBe('acme');
    });

    it('requires application_key on show, list and destroy', async () => {
      const only = { subscription_key: keys.subscription_key };
      for (const url of [
        '/projects/list',
        `/projects/${acmeKey}/show`,
        `/projects/${acmeKey}/destroy`,
      ]) {
        expectError(
          await post(url, only),
          400,
          1001,
          'Missing required parameter: application_key',
        );
      }
      expectError(
        await post('/projects/list', { ...keys, application_key: 'app_wrongwrongwrongwrong' }),
        403,
        1000,
        'Invalid API key specified (application_key)',
      );
    });

    it("refuses another subscription's project (1004) and unknown keys (1003)", async () => {
      for (const action of ['show', 'update', 'destroy']) {
        const res = await post(`/projects/${acmeKey}/${action}`, { ...other, json: '{}' });
        expect(res.status).toBe(403);
        expect(res.body).toStrictEqual({
          request: echo(
            { ...other, json: '{}' },
            action === 'destroy' ? 'delete' : action,
            acmeKey,
          ),
          error: {
            code: 1004,
            message:
              'Not permitted: the project api_key belongs to another subscription than subscription_key',
          },
        });
      }
      for (const key of ['0'.repeat(64), 'not-a-key']) {
        expectError(
          await post(`/projects/${key}/show`, keys),
          404,
          1003,
          'Project not found: no live project has this api_key',
        );
      }
    });
  });

  describe('update', () => {
    let key: string;
    const update = (object: unknown, credentials: Params = keys) =>
      post(`/projects/${key}/update`, { ...credentials, json: json(object) });
    const updateOk = async (object: unknown): Promise<Body> => {
      const res = await update(object);
      expect(res.status).toBe(200);
      return res.body.response.project as Body;
    };

    beforeAll(async () => {
      const project = await createOk({
        name: 'upd',
        domains: ['go.acme.test'],
        admins: ['carol@example.com'],
        conversions: {
          enabled: false,
          domains: ['a.test'],
          goal_1_label: 'One',
          goal_2_label: 'Two',
        },
      });
      key = project.api_key;
      await t.settle();
    });

    it('renames, adds users and domains, and answers without conversions', async () => {
      const object = {
        name: 'upd-2',
        domains: ['links.acme.test'],
        sharers: 'dave@example.com',
        viewers: ['bob'],
      };
      const params = { subscription_key: keys.subscription_key, json: json(object) };
      const res = await post(`/projects/${key}/update`, params);
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({
        request: echo(params, 'update', key),
        response: {
          project: record({
            name: 'upd-2',
            api_key: key,
            domains: ['go.acme.test', 'links.acme.test'],
            admins: [user('carol@example.com', 'carol', 'upd-2')],
            sharers: [user('dave@example.com', 'dave', 'upd-2')],
            viewers: [user('bob@example.com', 'bob', 'acme')],
          }),
        },
      });
      await t.settle();
      const file = path.join(
        t.config.outboxDir,
        `welcome-${await userId('dave@example.com')}-${await projectId(key)}.eml`,
      );
      expect(readFileSync(file, 'utf8')).toContain('To: dave@example.com\r\n');
    });

    it('changes roles by naming a member again and with change_role; removes users', async () => {
      const dave = await userId('dave@example.com');
      const project = await updateOk({
        admins: ['bob'],
        change_role: [{ user: dave, role: 'viewer' }],
        remove_user: 'CAROL@example.com',
      });
      expect(project).toStrictEqual(
        record({
          name: 'upd-2',
          api_key: key,
          domains: ['go.acme.test', 'links.acme.test'],
          admins: [user('bob@example.com', 'bob', 'acme')],
          viewers: [user('dave@example.com', 'dave', 'upd-2')],
        }),
      );
    });

    it('checks change_role and remove_user', async () => {
      expectError(
        await update({ change_role: [{ user: 'bob', role: 'owner' }] }),
        400,
        1002,
        'Invalid parameter json.change_role[0].role: must be one of admin, sharer, viewer',
      );
      expectError(
        await update({ change_role: [{ user: 'ann', role: 'viewer' }] }),
        400,
        1002,
        'Invalid parameter json.change_role[0].user: "ann" is not a user of this project',
      );
      expectError(
        await update({ change_role: [{ user: 'bob', role: 'viewer', extra: 1 }] }),
        400,
        1002,
        'Invalid parameter json.change_role[0].extra: not a field of a change_role entry (allowed: user, role)',
      );
      expectError(
        await update({ remove_user: ['nobody@example.com'] }),
        400,
        1002,
        'Invalid parameter json.remove_user[0]: "nobody@example.com" is not a user of this project',
      );
      expectError(
        await update({
          remove_user: ['bob'],
          change_role: { user: 'bob@example.com', role: 'viewer' },
        }),
        400,
        1002,
        'Invalid parameter json.remove_user[0]: "bob" names the same user as json.change_role.user',
      );
    });

    it('moves the default domain and removes domains; the current default cannot be removed', async () => {
      expectError(
        await update({ default_domain: 'go.acme.test', remove_domain: ['go.acme.test'] }),
        400,
        1002,
        'Invalid parameter json.default_domain: "go.acme.test" must be svc.test or one of the project\'s domains',
      );
      expect((await updateOk({ default_domain: 'go.acme.test' })).default_domain).toBe(
        'go.acme.test',
      );
      expectError(
        await update({ remove_domain: 'go.acme.test' }),
        400,
        1002,
        "Invalid parameter json.remove_domain: go.acme.test is the project's default_domain; change default_domain first",
      );
      expectError(
        await update({ remove_domain: ['seg.acme.test_blog'] }),
        400,
        1002,
        'Invalid parameter json.remove_domain[0]: seg.acme.test_blog is not a domain of this project',
      );
      expectError(
        await update({ remove_domain: ['svc.test'] }),
        400,
        1002,
        'Invalid parameter json.remove_domain[0]: svc.test is the shared default domain, available to every project',
      );
      expectError(
        await update({ domains: ['other.test'] }),
        400,
        10003,
        'Invalid parameter json.domains[0]: other.test is not a domain connected to this subscription (connect it with /domains/new first)',
      );
      const project = await updateOk({
        default_domain: 'seg.acme.test_blog',
        domains: ['seg.acme.test_blog'],
        remove_domain: ['go.acme.test', 'links.acme.test'],
      });
      expect({ default_domain: project.default_domain, domains: project.domains }).toEqual({
        default_domain: 'seg.acme.test_blog',
        domains: ['seg.acme.test_blog'],
      });
      const service = t.app.get(ProjectLookupsService);
      const authorised = await service.getAuthorisedDomains(await projectId(key));
      expect(authorised.map((domain) => domain.hostname)).toEqual(['seg.acme.test_blog']);
    });

    it('updates conversions: domains are added, remove_domain removes, all covers every host, null clears a label', async () => {
      const show = async () =>
        (await post(`/projects/${key}/show`, keys)).body.response.project.conversions as Body;
      await updateOk({
        conversions: {
          enabled: true,
          domains: ['b.test', 'a.test'],
          goal_1_label: null,
          goal_3_label: 'Three',
        },
      });
      expect(await show()).toStrictEqual(
        conversions(true, ['a.test', 'b.test'], { goal_2_label: 'Two', goal_3_label: 'Three' }),
      );
      await updateOk({ conversions: { remove_domain: 'a.test' } });
      expect((await show()).domains).toEqual(['b.test']);
      expectError(
        await update({ conversions: { remove_domain: ['z.test'] } }),
        400,
        1002,
        'Invalid parameter json.conversions.remove_domain[0]: z.test is not a conversions domain of this project',
      );
      await updateOk({ conversions: { domains: 'all' } });
      expect((await show()).domains).toBe('all');
      await updateOk({ conversions: { domains: 'c.test' } });
      expect((await show()).domains).toBe('all');
      await updateOk({ conversions: { remove_domain: 'all', domains: ['c.test'] } });
      expect(await show()).toStrictEqual(
        conversions(true, ['c.test'], { goal_2_label: 'Two', goal_3_label: 'Three' }),
      );
    });

    it('keeps the update rules of creation: unique name, unknown fields', async () => {
      expectError(
        await update({ name: 'acme' }),
        400,
        10001,
        'Invalid parameter json.name: a project named "acme" already exists',
      );
      expectError(
        await update({ name: 'bad/name' }),
        400,
        1002,
        'Invalid parameter json.name: "bad/name" may contain only a-z, A-Z, 0-9, underscore and hyphen',
      );
      expectError(
        await update({ colour: 'red' }),
        400,
        1002,
        'Invalid parameter json.colour: not a field of the project update object (allowed: name, conversions, domains, default_domain, admins, sharers, viewers, redirection_patterns, utm_parameters, publishable_hosts, ip_storage, ua_storage, retention_days, remove_domain, remove_user, change_role, rotate_publishable_key)',
      );
      expect((await updateOk({ name: 'upd-2' })).name).toBe('upd-2');
    });

    it('leaves a default domain whose domain was disconnected until the caller changes it', async () => {
      await connect(subscriptionId, 'stale.acme.test');
      const project = await createOk({
        name: 'stale',
        domains: ['stale.acme.test'],
        default_domain: 'stale.acme.test',
      });
      await t.db.query(`DELETE FROM domains WHERE hostname = 'stale.acme.test'`);
      const renamed = await post(`/projects/${project.api_key}/update`, {
        ...keys,
        json: json({ name: 'stale-2' }),
      });
      expect(renamed.status).toBe(200);
      expect(renamed.body.response.project).toStrictEqual(
        record({
          name: 'stale-2',
          api_key: project.api_key,
          default_domain: 'stale.acme.test',
          domains: [],
        }),
      );
      expectError(
        await post(`/projects/${project.api_key}/update`, {
          ...keys,
          json: json({ default_domain: 'stale.acme.test' }),
        }),
        400,
        1002,
        'Invalid parameter json.default_domain: "stale.acme.test" must be svc.test or one of the project\'s domains',
      );
      const moved = await post(`/projects/${project.api_key}/update`, {
        ...keys,
        json: json({ default_domain: 'svc.test' }),
      });
      expect(moved.body.response.project.default_domain).toBe('svc.test');
    });

    it('checks application_key when given', async () => {
      expectError(
        await update(
          { name: 'y' },
          { subscription_key: keys.subscription_key, application_key: other.application_key },
        ),
        403,
        1000,
        'Invalid API key specified (application_key)',
      );
    });
  });

  describe('destroy', () => {
    it('is refused while the project has users, then frees the name and refuses the key at once', async () => {
      const project = await createOk({
        name: 'doomed',
        domains: ['links.acme.test'],
        admins: ['ann'],
        viewers: ['bob'],
      });
      const key = project.api_key as string;
      const service = t.app.get(ProjectLookupsService);
      expect((await service.findActiveByApiKey(key))?.name).toBe('doomed');

      const refused = await post(`/projects/${key}/destroy`, keys);
      expect(refused.status).toBe(400);
      expect(refused.body).toStrictEqual({
        request: echo(keys, 'delete', key),
        error: {
          code: 10002,
          message:
            'Project doomed still has 2 users; remove them (json.remove_user on update) before destroying it',
        },
      });

      const emptied = await post(`/projects/${key}/update`, {
        ...keys,
        json: json({ remove_user: ['ann', 'bob'] }),
      });
      expect(emptied.status).toBe(200);
      expect(emptied.body.response.project).toStrictEqual(
        record({ name: 'doomed', api_key: key, domains: ['links.acme.test'] }),
      );

      const destroyed = await post(`/projects/${key}/destroy`, keys);
      expect(destroyed.status).toBe(200);
      expect(destroyed.body).toStrictEqual({
        request: echo(keys, 'delete', key),
        response: { deleted: true },
      });

      expect(await service.findActiveByApiKey(key)).toBeNull();
      for (const action of ['show', 'update', 'destroy']) {
        expectError(
          await post(`/projects/${key}/${action}`, { ...keys, json: '{}' }),
          404,
          1003,
          'Project not found: no live project has this api_key',
        );
      }
      const list = await post('/projects/list', keys);
      expect(projectsOf(list).map((p) => p.name as string)).not.toContain('doomed');
      const again = await createOk({ name: 'doomed' });
      expect(again.api_key).not.toBe(key);
      const { rows } = await t.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM project_domains WHERE project_id = $1',
        [await projectId(key)],
      );
      expect(rows[0].n).toBe(0);
    });
  });

  it('documents every endpoint in the OpenAPI document', async () => {
    const doc = (await t.http.get('/docs-json').expect(200)).body as Body;
    const operations: [string, string][] = [
      ['/projects/new', 'post'],
      ['/projects/list', 'post'],
      ['/projects/list', 'get'],
      ['/projects/{api_key}/update', 'post'],
      ['/projects/{api_key}/show', 'post'],
      ['/projects/{api_key}/show', 'get'],
      ['/projects/{api_key}/destroy', 'post'],
    ];
    for (const [route, method] of operations) {
      const operation = doc.paths[route][method] as Body;
      expect(operation.tags).toEqual(['projects']);
      expect(typeof operation.summary).toBe('string');
      const errors = route.includes('{api_key}') ? ['400', '403', '404'] : ['400', '403'];
      expect(Object.keys(operation.responses).sort()).toEqual(['200', ...errors, 'default']);
      for (const status of [...errors, 'default']) {
        const schema = { $ref: '#/components/schemas/AdminErrorDto' };
        expect((operation.responses as Body)[status]).toMatchObject({
          content: { 'application/json': { schema } },
        });
      }
    }
    const getList = doc.paths['/projects/list'].get as Body;
    expect((getList.parameters as Body[]).map((p) => p.name as string)).toEqual([
      'subscription_key',
      'application_key',
    ]);
    const form =
      doc.paths['/projects/new'].post.requestBody.content['application/x-www-form-urlencoded']
        .schema;
    expect(form.$ref).toBe('#/components/schemas/CreateProjectParamsDto');
    expect(Object.keys(doc.components.schemas.CreateProjectParamsDto.properties)).toEqual([
      'subscription_key',
      'application_key',
      'json',
    ]);
  });
});
