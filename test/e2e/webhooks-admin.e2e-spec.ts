import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import {
  IssuedSubscription,
  SubscriptionsService,
} from '../../src/subscriptions/subscriptions.service';
import { createLink } from '../factories/links';
import { CreatedProject, createProject } from '../factories/projects';
import { WebhookTargets } from '../../src/webhooks/webhook-targets';
import { TestApp, createTestApp } from '../support/app';
import { EmbeddedApp, startEmbeddedApp } from '../support/embedded-app';
import { eventually } from '../support/eventually';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const EVENTS_LIST = 'link.created, link.updated, link.clicked, conversion.created';

/** The record fields every answer carries; new, show and rotate-secret add `secret`. */
const RECORD_FIELDS = [
  'created_at',
  'description',
  'disabled_reason',
  'enabled',
  'events',
  'failing_since',
  'id',
  'links',
  'pageviews',
  'project',
  'updated_at',
  'url',
];

interface WebhookRecord {
  id: string;
  project: string;
  url: string;
  events: string[];
  description: string | null;
  links: string[] | null;
  pageviews: boolean;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
  secret?: string;
}

/**
 * The administration of webhooks (docs/api.md, "Administration of webhooks") on PostgreSQL, with
 * loopback receivers allowed (WEBHOOK_ALLOW_LOOPBACK=true, as tests run them); the URL checks
 * without that setting and the same queries on PGlite at the end.
 */
describe('webhooks administration API', () => {
  let t: TestApp;
  let other: IssuedSubscription;
  let receiver: http.Server;
  /** A local receiver: every stored webhook points here, so nothing leaves the machine. */
  let hook: string;
  let project: CreatedProject;
  let foreignProject: string;

  beforeAll(async () => {
    receiver = http.createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    t = await createTestApp({ env: { WEBHOOK_ALLOW_LOOPBACK: 'true' } });
    other = await t.app.get(SubscriptionsService).createSubscription('other');
    project = await createProject(t);
    const res = await post('/projects/new', {
      ...otherKeys(),
      json: JSON.stringify({ name: `foreign_${randomBytes(4).toString('hex')}` }),
    }).expect(200);
    foreignProject = (res.body as { response: { project: { api_key: string } } }).response.project
      .api_key;
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const keys = () => ({ subscription_key: t.subscriptionKey, application_key: t.applicationKey });
  const otherKeys = () => ({
    subscription_key: other.subscriptionKey,
    application_key: other.applicationKey,
  });
  const post = (path: string, params: Record<string, string>) =>
    t.http.post(path).type('form').send(params);

  /** The request echo: every parameter as a string, plus method and object (and id from the path). */
  const echo = (method: string, params: Record<string, string>, id?: string) => ({
    ...params,
    ...(id !== undefined ? { id } : {}),
    method,
    object: 'webhook',
  });

  async function create(
    object: Record<string, unknown> = {},
    apiKey = project.api_key,
  ): Promise<WebhookRecord> {
    const json = JSON.stringify({
      project: apiKey,
      url: hook,
      events: ['link.clicked'],
      ...object,
    });
    const res = await post('/webhooks/new', { ...keys(), json }).expect(200);
    return (res.body as { response: { webhook: WebhookRecord } }).response.webhook;
  }

  async function row(id: string): Promise<Record<string, unknown> | undefined> {
    const result = await t.db.query(
      `SELECT url, events, description, link_ids::text[] AS link_ids, pageviews, secret, previous_secret,
              previous_secret_expires_at, enabled, disabled_reason, failing_since
         FROM webhooks WHERE id = $1`,
      [id],
    );
    return result.rows[0] as Record<string, unknown> | undefined;
  }

  async function webhookCount(): Promise<number> {
    const result = await t.db.query<{ n: string }>('SELECT count(*) AS n FROM webhooks');
    return Number(result.rows[0].n);
  }

  describe('authentication', () => {
    it('requires application_key, naming it, in the admin shape', async () => {
      const params = { subscription_key: t.subscriptionKey };
      const res = await post('/webhooks/list', params).expect(400);
      expect(res.body).toEqual({
        request: echo('list', params),
        error: { code: 1001, message: 'Missing required parameter: application_key' },
      });
    });

    it('refuses a wrong application_key with 403 code 1000', async () => {
      const params = { ...keys(), application_key: 'app_nope' };
      const res = await t.http.get('/webhooks/list').query(params).expect(403);
      expect(res.body).toEqual({
        request: echo('list', params),
        error: { code: 1000, message: 'Invalid API key specified (application_key)' },
      });
    });
  });

  describe('new', () => {
    it('makes a webhook and answers its record with a new secret', async () => {
      const json = JSON.stringify({
        project: project.api_key,
        url: hook,
        events: ['link.clicked', 'conversion.created'],
        description: 'CRM',
      });
      const params = { ...keys(), json };
      const res = await post('/webhooks/new', params).expect(200);
      const webhook = (res.body as { response: { webhook: WebhookRecord } }).response.webhook;
      expect(res.body).toEqual({
        request: echo('new', params),
        response: {
          webhook: {
            id: expect.stringMatching(UUID),
            project: project.api_key,
            url: hook,
            events: ['link.clicked', 'conversion.created'],
            description: 'CRM',
            links: null,
            pageviews: false,
            secret: expect.stringMatching(SECRET),
            enabled: true,
            disabled_reason: null,
            failing_since: null,
            created_at: expect.stringMatching(TIMESTAMP),
            updated_at: expect.stringMatching(TIMESTAMP),
          },
        },
      });
      expect(await row(webhook.id)).toEqual({
        url: hook,
        events: ['link.clicked', 'conversion.created'],
        description: 'CRM',
        link_ids: null,
        pageviews: false,
        secret: webhook.secret,
        previous_secret: null,
        previous_secret_expires_at: null,
        enabled: true,
        disabled_reason: null,
        failing_since: null,
      });
    });

    it('gives every webhook a secret of its own', async () => {
      const a = await create();
      const b = await create();
      expect(a.secret).not.toBe(b.secret);
    });

    it('limits link.clicked to the links given, by svc_id, in their order; pageviews on request', async () => {
      const first = await createLink(t, project.api_key, { url: 'https://example.com/first' });
      const second = await createLink(t, project.api_key, { url: 'https://example.com/second' });
      const webhook = await create({
        links: [second.svc_id, first.svc_id],
        pageviews: true,
        events: 'conversion.created',
      });
      expect(webhook.links).toEqual([second.svc_id, first.svc_id]);
      expect(webhook.events).toEqual(['conversion.created']);
      expect(webhook.pageviews).toBe(true);
      const ids = await t.db.query<{ id: string; svc_id: string }>(
        'SELECT id::text AS id, svc_id FROM links WHERE svc_id = ANY($1)',
        [[first.svc_id, second.svc_id]],
      );
      const idOf = new Map(ids.rows.map((r) => [r.svc_id, r.id]));
      expect((await row(webhook.id))?.link_ids).toEqual([
        idOf.get(second.svc_id),
        idOf.get(first.svc_id),
      ]);
    });

    it('takes the parameters as a JSON body, the json object itself', async () => {
      const res = await t.http
        .post('/webhooks/new')
        .send({
          ...keys(),
          json: { project: project.api_key, url: hook, events: ['link.created'] },
        })
        .expect(200);
      expect(
        (res.body as { response: { webhook: WebhookRecord } }).response.webhook.events,
      ).toEqual(['link.created']);
    });

    describe('refuses, naming the parameter, and stores nothing', () => {
      const base = () => ({ project: project.api_key, url: hook, events: ['link.clicked'] });
      const cases: [string, () => Record<string, string>, number, string][] = [
        ['no json', () => ({}), 1001, 'Missing required parameter: json'],
        [
          'json that is not JSON',
          () => ({ json: '{nope' }),
          1002,
          'Invalid parameter json: is not valid JSON',
        ],
        [
          'a json array',
          () => ({ json: '[]' }),
          1002,
          'Invalid parameter json: must be a JSON object',
        ],
        [
          'an unknown field',
          () => ({ json: JSON.stringify({ ...base(), secret: 'whsec_x' }) }),
          1002,
          'Invalid parameter json.secret: not a field of the webhook creation object (allowed: project, url, events, description, links, pageviews)',
        ],
        [
          'no project',
          () => ({ json: JSON.stringify({ ...base(), project: undefined }) }),
          1001,
          'Missing required parameter: json.project',
        ],
        [
          'no url',
          () => ({ json: JSON.stringify({ ...base(), url: undefined }) }),
          1001,
          'Missing required parameter: json.url',
        ],
        [
          'a url that is not a string',
          () => ({ json: JSON.stringify({ ...base(), url: ['https://x.example'] }) }),
          1002,
          'Invalid parameter json.url: must be a string',
        ],
        [
          'a url that is not absolute',
          () => ({ json: JSON.stringify({ ...base(), url: 'hooks.example.com/x' }) }),
          1002,
          'Invalid parameter json.url: not an absolute URL',
        ],
        [
          'plain http to a public host',
          () => ({ json: JSON.stringify({ ...base(), url: 'http://example.com/hook' }) }),
          1002,
          'Invalid parameter json.url: must be https',
        ],
        [
          'the cloud metadata address',
          () => ({ json: JSON.stringify({ ...base(), url: 'https://169.254.169.254/' }) }),
          1002,
          'Invalid parameter json.url: 169.254.169.254 resolves to a forbidden address',
        ],
        [
          'a private address',
          () => ({ json: JSON.stringify({ ...base(), url: 'https://10.0.0.1/' }) }),
          1002,
          'Invalid parameter json.url: 10.0.0.1 resolves to a forbidden address',
        ],
        [
          'credentials in the url',
          () => ({ json: JSON.stringify({ ...base(), url: 'https://u:p@127.0.0.1/' }) }),
          1002,
          'Invalid parameter json.url: must not contain credentials',
        ],
        [
          'no events',
          () => ({ json: JSON.stringify({ ...base(), events: undefined }) }),
          1001,
          'Missing required parameter: json.events',
        ],
        [
          'an empty event list',
          () => ({ json: JSON.stringify({ ...base(), events: [] }) }),
          1002,
          `Invalid parameter json.events: must name at least one of ${EVENTS_LIST}`,
        ],
        [
          'an unknown event type',
          () => ({ json: JSON.stringify({ ...base(), events: ['link.clicked', 'ping'] }) }),
          1002,
          `Invalid parameter json.events[1]: "ping" is not an event type (one of ${EVENTS_LIST})`,
        ],
        [
          'an event listed twice',
          () => ({ json: JSON.stringify({ ...base(), events: ['link.clicked', 'link.clicked'] }) }),
          1002,
          'Invalid parameter json.events[1]: "link.clicked" is listed twice',
        ],
        [
          'a description of 501 characters',
          () => ({ json: JSON.stringify({ ...base(), description: 'x'.repeat(501) }) }),
          1002,
          'Invalid parameter json.description: must be at most 500 characters',
        ],
        [
          'an empty link list',
          () => ({ json: JSON.stringify({ ...base(), links: [] }) }),
          1002,
          'Invalid parameter json.links: must name at least one svc_id, or be null for every link',
        ],
        [
          '1,001 links',
          () => ({
            json: JSON.stringify({
              ...base(),
              links: Array.from({ length: 1001 }, (_, i) => `svc.test_${i}`),
            }),
          }),
          1002,
          'Invalid parameter json.links: takes at most 1000 links',
        ],
        [
          'a link that does not exist',
          () => ({ json: JSON.stringify({ ...base(), links: ['svc.test_nowhere'] }) }),
          1002,
          'Invalid parameter json.links[0]: svc.test_nowhere is not a link of this project',
        ],
        [
          'pageviews that is not a boolean',
          () => ({ json: JSON.stringify({ ...base(), pageviews: 'yes' }) }),
          1002,
          'Invalid parameter json.pageviews: must be true or false',
        ],
      ];

      it.each(cases)('%s', async (_name, params, code, message) => {
        const before = await webhookCount();
        const sent = { ...keys(), ...params() };
        const res = await post('/webhooks/new', sent).expect(400);
        expect(res.body).toEqual({ request: echo('new', sent), error: { code, message } });
        expect(await webhookCount()).toBe(before);
      });
    });

    it("refuses a link of another of the subscription's projects", async () => {
      const sibling = await createProject(t);
      const link = await createLink(t, sibling.api_key);
      const json = JSON.stringify({
        project: project.api_key,
        url: hook,
        events: ['link.clicked'],
        links: [link.svc_id],
      });
      const res = await post('/webhooks/new', { ...keys(), json }).expect(400);
      expect(res.body.error).toEqual({
        code: 1002,
        message: `Invalid parameter json.links[0]: ${link.svc_id} is not a link of this project`,
      });
    });

    it('refuses an unknown or destroyed project with 404, one of another subscription with 403', async () => {
      const gone = await createProject(t);
      await post(`/projects/${gone.api_key}/destroy`, keys()).expect(200);
      for (const apiKey of [gone.api_key, 'f'.repeat(64), 'not-a-key']) {
        const json = JSON.stringify({ project: apiKey, url: hook, events: ['link.clicked'] });
        const res = await post('/webhooks/new', { ...keys(), json }).expect(404);
        expect(res.body.error).toEqual({
          code: 1003,
          message: `Project not found: json.project ${apiKey}`,
        });
      }
      const json = JSON.stringify({ project: foreignProject, url: hook, events: ['link.clicked'] });
      const res = await post('/webhooks/new', { ...keys(), json }).expect(403);
      expect(res.body.error).toEqual({
        code: 1004,
        message: `Not permitted: json.project ${foreignProject} is a project of another subscription`,
      });
    });

    it('takes 20 webhooks per project, not 21', async () => {
      const crowded = await createProject(t);
      for (let i = 0; i < 20; i++) await create({}, crowded.api_key);
      const json = JSON.stringify({
        project: crowded.api_key,
        url: hook,
        events: ['link.clicked'],
      });
      const res = await post('/webhooks/new', { ...keys(), json }).expect(400);
      expect(res.body.error).toEqual({
        code: 1002,
        message: `Invalid parameter json.project: project ${crowded.name} already has 20 webhooks, the most a project may have; destroy one first`,
      });
      const count = await t.db.query<{ n: string }>(
        'SELECT count(*) AS n FROM webhooks w JOIN projects p ON p.id = w.project_id WHERE p.api_key = $1',
        [crowded.api_key],
      );
      expect(Number(count.rows[0].n)).toBe(20);
    });
  });

  describe('list', () => {
    let listed: CreatedProject;
    let a: WebhookRecord;
    let b: WebhookRecord;

    beforeAll(async () => {
      listed = await createProject(t);
      a = await create({ description: 'first' }, listed.api_key);
      b = await create({ events: ['link.created'] }, listed.api_key);
    });

    it("answers a project's webhooks oldest first, without their secrets, by POST and GET", async () => {
      const params = { ...keys(), project: listed.api_key };
      const expected = [a, b].map(({ secret: _secret, ...record }) => record);
      const res = await post('/webhooks/list', params).expect(200);
      expect(res.body).toEqual({ request: echo('list', params), response: { webhooks: expected } });
      const byGet = await t.http.get('/webhooks/list').query(params).expect(200);
      expect(byGet.body.response).toEqual({ webhooks: expected });
    });

    it("answers every project's webhooks of the subscription without project", async () => {
      const res = await post('/webhooks/list', keys()).expect(200);
      const webhooks = (res.body as { response: { webhooks: WebhookRecord[] } }).response.webhooks;
      expect(webhooks.map((w) => w.id)).toEqual(expect.arrayContaining([a.id, b.id]));
      const live = await t.db.query<{ n: string }>(
        `SELECT count(*) AS n FROM webhooks w JOIN projects p ON p.id = w.project_id
          WHERE p.deleted_at IS NULL AND p.api_key <> $1`,
        [foreignProject],
      );
      expect(webhooks.length).toBe(Number(live.rows[0].n));
      for (const webhook of webhooks) expect(Object.keys(webhook).sort()).toEqual(RECORD_FIELDS);
    });

    it('shows another subscription none of these webhooks', async () => {
      const res = await post('/webhooks/list', otherKeys()).expect(200);
      expect(res.body.response).toEqual({ webhooks: [] });
    });

    it('refuses an unknown project with 404 and one of another subscription with 403, naming project', async () => {
      const unknown = 'e'.repeat(64);
      const res = await post('/webhooks/list', { ...keys(), project: unknown }).expect(404);
      expect(res.body.error).toEqual({
        code: 1003,
        message: `Project not found: project ${unknown}`,
      });
      const foreign = await post('/webhooks/list', { ...keys(), project: foreignProject }).expect(
        403,
      );
      expect(foreign.body.error).toEqual({
        code: 1004,
        message: `Not permitted: project ${foreignProject} is a project of another subscription`,
      });
    });

    it("leaves out a destroyed project's webhooks", async () => {
      const doomed = await createProject(t);
      const webhook = await create({}, doomed.api_key);
      await post(`/projects/${doomed.api_key}/destroy`, keys()).expect(200);
      const res = await post('/webhooks/list', keys()).expect(200);
      const ids = (res.body as { response: { webhooks: WebhookRecord[] } }).response.webhooks.map(
        (w) => w.id,
      );
      expect(ids).not.toContain(webhook.id);
      await post(`/webhooks/${webhook.id}/show`, keys()).expect(404);
    });
  });

  describe('show', () => {
    it('answers the record with its secret, by POST and GET, and nothing of a previous secret', async () => {
      const made = await create({ description: 'shown' });
      const res = await post(`/webhooks/${made.id}/show`, keys()).expect(200);
      expect(res.body).toEqual({
        request: echo('show', keys(), made.id),
        response: { webhook: made },
      });
      const byGet = await t.http.get(`/webhooks/${made.id}/show`).query(keys()).expect(200);
      expect(byGet.body.response).toEqual({ webhook: made });
      expect(Object.keys(made).sort()).toEqual([...RECORD_FIELDS, 'secret'].sort());
    });
  });

  describe('update', () => {
    it('changes only the given fields and answers the record without its secret', async () => {
      const made = await create({
        description: 'before',
        events: ['link.clicked', 'link.created'],
      });
      const link = await createLink(t, project.api_key);
      const json = JSON.stringify({
        events: ['link.updated'],
        links: [link.svc_id],
        pageviews: true,
      });
      const params = { ...keys(), json };
      const res = await post(`/webhooks/${made.id}/update`, params).expect(200);
      const { secret, ...unchanged } = made;
      expect(res.body).toEqual({
        request: echo('update', params, made.id),
        response: {
          webhook: {
            ...unchanged,
            events: ['link.updated'],
            links: [link.svc_id],
            pageviews: true,
            updated_at: expect.stringMatching(TIMESTAMP),
          },
        },
      });
      const stored = await row(made.id);
      expect(stored).toMatchObject({ description: 'before', url: hook, secret });

      const cleared = await post(`/webhooks/${made.id}/update`, {
        ...keys(),
        json: JSON.stringify({ description: null, links: null, url: `${hook}/v2` }),
      }).expect(200);
      expect(cleared.body.response.webhook).toMatchObject({
        description: null,
        links: null,
        url: `${hook}/v2`,
      });
      expect(await row(made.id)).toMatchObject({ description: null, link_ids: null });
    });

    it('disables by hand, and enabling again forgets why it was disabled and since when it failed', async () => {
      const made = await create();
      const off = await post(`/webhooks/${made.id}/update`, {
        ...keys(),
        json: JSON.stringify({ enabled: false }),
      }).expect(200);
      expect(off.body.response.webhook).toMatchObject({
        enabled: false,
        disabled_reason: 'manual',
      });

      await t.db.query(
        `UPDATE webhooks SET disabled_reason = 'failing', failing_since = '2026-11-20 08:00:00+00' WHERE id = $1`,
        [made.id],
      );
      const shown = await post(`/webhooks/${made.id}/show`, keys()).expect(200);
      expect(shown.body.response.webhook).toMatchObject({
        enabled: false,
        disabled_reason: 'failing',
        failing_since: '2026-11-20 08:00:00',
      });

      const on = await post(`/webhooks/${made.id}/update`, {
        ...keys(),
        json: JSON.stringify({ enabled: true }),
      }).expect(200);
      expect(on.body.response.webhook).toMatchObject({
        enabled: true,
        disabled_reason: null,
        failing_since: null,
      });
      expect(await row(made.id)).toMatchObject({
        enabled: true,
        disabled_reason: null,
        failing_since: null,
      });
    });

    it.each([
      [
        { project: 'x' },
        'Invalid parameter json.project: a webhook cannot move to another project; destroy it and create one in the other project',
      ],
      [{ url: 'http://example.com/' }, 'Invalid parameter json.url: must be https'],
      [
        { url: 'https://10.0.0.1/' },
        'Invalid parameter json.url: 10.0.0.1 resolves to a forbidden address',
      ],
      [{ events: [] }, `Invalid parameter json.events: must name at least one of ${EVENTS_LIST}`],
      [{ enabled: 'no' }, 'Invalid parameter json.enabled: must be true or false'],
      [
        { links: ['svc.test_nowhere'] },
        'Invalid parameter json.links[0]: svc.test_nowhere is not a link of this project',
      ],
      [
        { secret: 'whsec_x' },
        'Invalid parameter json.secret: not a field of the webhook update object (allowed: url, events, description, links, pageviews, enabled)',
      ],
    ])('refuses %j, naming the parameter, and changes nothing', async (object, message) => {
      const made = await create();
      const before = await row(made.id);
      const res = await post(`/webhooks/${made.id}/update`, {
        ...keys(),
        json: JSON.stringify(object),
      }).expect(400);
      expect(res.body.error).toEqual({ code: 1002, message });
      expect(await row(made.id)).toEqual(before);
    });
  });

  describe('rotate-secret', () => {
    it('answers a new secret and keeps the old one as the previous secret for 24 hours', async () => {
      const made = await create();
      const res = await post(`/webhooks/${made.id}/rotate-secret`, keys()).expect(200);
      const rotated = (res.body as { response: { webhook: WebhookRecord } }).response.webhook;
      expect(res.body.request).toEqual(echo('rotate-secret', keys(), made.id));
      expect(rotated.secret).toMatch(SECRET);
      expect(rotated.secret).not.toBe(made.secret);
      expect(Object.keys(rotated).sort()).toEqual([...RECORD_FIELDS, 'secret'].sort());

      const stored = await t.db.query<{ secret: string; previous_secret: string; grace: string }>(
        `SELECT secret, previous_secret,
                extract(epoch FROM previous_secret_expires_at - now())::int AS grace
           FROM webhooks WHERE id = $1`,
        [made.id],
      );
      expect(stored.rows[0].secret).toBe(rotated.secret);
      expect(stored.rows[0].previous_secret).toBe(made.secret);
      const grace = Number(stored.rows[0].grace);
      expect(grace).toBeGreaterThan(24 * 3600 - 60);
      expect(grace).toBeLessThanOrEqual(24 * 3600);

      const shown = await post(`/webhooks/${made.id}/show`, keys()).expect(200);
      expect(shown.body.response.webhook.secret).toBe(rotated.secret);

      // A second rotation: the secret before it becomes the previous one, the first is gone.
      const again = await post(`/webhooks/${made.id}/rotate-secret`, keys()).expect(200);
      expect(await row(made.id)).toMatchObject({
        secret: again.body.response.webhook.secret,
        previous_secret: rotated.secret,
      });
    });
  });

  describe('destroy', () => {
    it('deletes the webhook and its delivery log', async () => {
      const made = await create();
      await t.db.query(
        `INSERT INTO webhook_delivery_log
           (webhook_id, attempt, bucket, event_ids, event_types, bodies, status_codes,
            durations_ms, responses, errors)
         VALUES ($1, 1, 0, '{evt_00000000000000000000000000000001}', '{link.clicked}', '{"{}"}',
                 '{200}', '{5}', '{""}', '{NULL}')`,
        [made.id],
      );
      const res = await post(`/webhooks/${made.id}/destroy`, keys()).expect(200);
      expect(res.body).toEqual({
        request: echo('delete', keys(), made.id),
        response: { deleted: true },
      });
      expect(await row(made.id)).toBeUndefined();
      const log = await t.db.query('SELECT 1 FROM webhook_delivery_log WHERE webhook_id = $1', [
        made.id,
      ]);
      expect(log.rowCount).toBe(0);
      await post(`/webhooks/${made.id}/destroy`, keys()).expect(404);
    });
  });

  describe('deliveries', () => {
    let webhook: WebhookRecord;
    /** Delivery ids of events 1 to 25 as inserted, oldest first. */
    let ids: number[];

    beforeAll(async () => {
      // An event type no fixture here sets off, so the log holds only the rows inserted below:
      // 25 attempts in 7 rows (jobs) of 4 events, the last of one, each row a minute after the
      // one before; the failed events of rows 5 and 6 are due again at 16:05:12.
      webhook = await create({ events: ['link.updated'] });
      const inserted = await t.db.query<{ id: string }>(
        `INSERT INTO webhook_delivery_log
           (webhook_id, attempt, bucket, event_ids, event_types, bodies, status_codes,
            durations_ms, responses, errors, next_retry_at, created_at)
         SELECT $1, 1 + g % 3, 0,
                array_agg('evt_' || lpad(to_hex(n), 32, '0') ORDER BY n),
                array_agg('link.updated'::text ORDER BY n), array_agg('{}'::text ORDER BY n),
                array_agg(CASE WHEN n % 5 = 0 THEN NULL WHEN n % 7 = 0 THEN 200 ELSE 500 END ORDER BY n),
                array_agg(n * 10 ORDER BY n),
                array_agg(CASE WHEN n % 5 = 0 THEN '' ELSE 'oops ' || n END ORDER BY n),
                array_agg(CASE WHEN n % 5 = 0 THEN 'connect ECONNREFUSED' END::text ORDER BY n),
                CASE WHEN g >= 5 THEN '2026-11-24 16:05:12+00'::timestamptz END,
                '2026-11-24 16:00:00+00'::timestamptz + g * interval '1 minute'
           FROM (SELECT n, (n - 1) / 4 AS g FROM generate_series(1, 25) AS n) AS events
          GROUP BY g ORDER BY g
         RETURNING id`,
        [webhook.id],
      );
      const rows = inserted.rows.map((r) => Number(r.id));
      // A row's id × 1000 + the event's place in the row.
      ids = Array.from({ length: 25 }, (_, i) => rows[Math.floor(i / 4)] * 1000 + (i % 4));
    });

    const deliveryIds = (body: unknown): number[] =>
      (body as { response: { deliveries: { id: number }[] } }).response.deliveries.map((d) => d.id);

    const page = (params: Record<string, string>) =>
      post(`/webhooks/${webhook.id}/deliveries`, { ...keys(), ...params });

    it('answers the newest 10 first, each attempt with every field', async () => {
      const res = await page({}).expect(200);
      const body = res.body as {
        request: unknown;
        response: { deliveries: Record<string, unknown>[] };
      };
      expect(body.request).toEqual(echo('deliveries', keys(), webhook.id));
      expect(body.response).toMatchObject({
        total_results: 25,
        page: 1,
        per_page: 10,
        offset: 0,
        last_offset: 10,
      });
      expect(body.response.deliveries.map((d) => d.id)).toEqual(ids.slice(15).reverse());
      expect(body.response.deliveries[0]).toEqual({
        id: ids[24],
        event_id: `evt_${(25).toString(16).padStart(32, '0')}`,
        event_type: 'link.updated',
        attempt: 1,
        status_code: null,
        duration_ms: 250,
        response: '',
        error: 'connect ECONNREFUSED',
        next_retry_at: '2026-11-24 16:05:12',
        created_at: '2026-11-24 16:06:00',
      });
      expect(body.response.deliveries[1]).toEqual({
        id: ids[23],
        event_id: `evt_${(24).toString(16).padStart(32, '0')}`,
        event_type: 'link.updated',
        attempt: 3,
        status_code: 500,
        duration_ms: 240,
        response: 'oops 24',
        error: null,
        next_retry_at: '2026-11-24 16:05:12',
        created_at: '2026-11-24 16:05:00',
      });
      // A success in a row whose failures are retried is not itself due again.
      expect(body.response.deliveries[4]).toMatchObject({
        id: ids[20],
        event_id: `evt_${(21).toString(16).padStart(32, '0')}`,
        status_code: 200,
        next_retry_at: null,
      });
      expect(body.response.deliveries[5]).toMatchObject({ id: ids[19], attempt: 2 });
    });

    it('pages by page and per_page, or by offset (page null), by POST and GET', async () => {
      const third = await page({ page: '3' }).expect(200);
      expect(deliveryIds(third.body)).toEqual(ids.slice(0, 5).reverse());
      expect(third.body.response).toMatchObject({ page: 3, offset: 20, last_offset: 25 });

      const byOffset = await t.http
        .get(`/webhooks/${webhook.id}/deliveries`)
        .query({ ...keys(), offset: '22', per_page: '2' })
        .expect(200);
      expect(byOffset.body.response).toEqual({
        deliveries: expect.any(Array),
        total_results: 25,
        page: null,
        per_page: 2,
        offset: 22,
        last_offset: 24,
      });
      expect(deliveryIds(byOffset.body)).toEqual([ids[2], ids[1]]);

      const beyond = await page({ page: '9' }).expect(200);
      expect(beyond.body.response).toMatchObject({ deliveries: [], offset: 80, last_offset: 80 });
    });

    it('refuses paging out of bounds, naming the parameter', async () => {
      for (const [params, message] of [
        [{ per_page: '0' }, 'Invalid parameter per_page: must be an integer from 1 to 1000'],
        [{ per_page: '1001' }, 'Invalid parameter per_page: must be an integer from 1 to 1000'],
        [{ page: '0' }, 'Invalid parameter page: must be an integer from 1 to 1000000'],
        [{ offset: '-1' }, 'Invalid parameter offset: must be an integer from 0 to 100000000'],
      ] as const) {
        const res = await page(params).expect(400);
        expect(res.body.error).toEqual({ code: 1002, message });
      }
    });
  });

  describe('an id that names no webhook of the subscription is a 404', () => {
    let theirs: string;
    let ours: WebhookRecord;

    beforeAll(async () => {
      ours = await create();
      const json = JSON.stringify({ project: foreignProject, url: hook, events: ['link.clicked'] });
      const res = await post('/webhooks/new', { ...otherKeys(), json }).expect(200);
      theirs = (res.body as { response: { webhook: WebhookRecord } }).response.webhook.id;
    });

    const routes = ['show', 'update', 'destroy', 'rotate-secret', 'deliveries'];
    const ids = () => [
      ['unknown', '0b8e6a52-3c1f-4d7e-9a25-6f4c8d1e2b37'],
      ['malformed', 'not-a-uuid'],
      ['quoted', "1' OR '1'='1"],
      ["another subscription's", theirs],
    ];

    it.each(routes)('%s', async (route) => {
      for (const [, id] of ids()) {
        const params = { ...keys(), json: JSON.stringify({ enabled: false }) };
        const res = await post(`/webhooks/${encodeURIComponent(id)}/${route}`, params).expect(404);
        expect(res.body.error).toEqual({ code: 1003, message: `Webhook not found: ${id}` });
      }
      // Nothing of the other subscription's webhook changed, and ours is still ours.
      const their = await t.db.query(
        'SELECT enabled, previous_secret FROM webhooks WHERE id = $1',
        [theirs],
      );
      expect(their.rows).toEqual([{ enabled: true, previous_secret: null }]);
      const res = await post(`/webhooks/${ours.id}/show`, otherKeys()).expect(404);
      expect(res.body.error.message).toBe(`Webhook not found: ${ours.id}`);
    });

    it('by GET too', async () => {
      await t.http.get(`/webhooks/${theirs}/show`).query(keys()).expect(404);
      await t.http.get(`/webhooks/${theirs}/deliveries`).query(keys()).expect(404);
    });
  });

  describe('without WEBHOOK_ALLOW_LOOPBACK, on PGlite', () => {
    let e: EmbeddedApp;
    let embeddedKeys: Record<string, string>;
    let projectKey: string;
    const embeddedPost = (path: string, params: Record<string, string>) =>
      e.http
        .post(path)
        .type('form')
        .send({ ...embeddedKeys, ...params });

    beforeAll(async () => {
      e = await startEmbeddedApp('embedded');
      const issued = await e.app.get(SubscriptionsService).createSubscription('webhooks');
      embeddedKeys = {
        subscription_key: issued.subscriptionKey,
        application_key: issued.applicationKey,
      };
      const res = await embeddedPost('/projects/new', {
        json: JSON.stringify({ name: 'embedded_webhooks' }),
      }).expect(200);
      projectKey = (res.body as { response: { project: { api_key: string } } }).response.project
        .api_key;
    });
    afterAll(() => e.close());

    it.each([
      ['http://127.0.0.1:8080/hook', 'must be https'],
      ['http://localhost:8080/hook', 'must be https'],
      ['https://127.0.0.1/hook', '127.0.0.1 resolves to a forbidden address'],
      ['https://localhost/hook', 'localhost resolves to a forbidden address'],
      ['https://[::1]/hook', '::1 resolves to a forbidden address'],
    ])('refuses %s', async (url, reason) => {
      const json = JSON.stringify({ project: projectKey, url, events: ['link.clicked'] });
      const res = await embeddedPost('/webhooks/new', { json }).expect(400);
      expect(res.body.error).toEqual({
        code: 1002,
        message: `Invalid parameter json.url: ${reason}`,
      });
    });

    it('lists, shows, updates, rotates, pages deliveries and destroys on PGlite', async () => {
      // Stored directly: without the loopback setting no address of this machine is accepted.
      const dataSource = e.app.get(DataSource);
      const [{ id }] = await dataSource.query<{ id: string }[]>(
        `INSERT INTO webhooks (subscription_id, project_id, url, events, secret)
         SELECT subscription_id, id, 'http://127.0.0.1:9/', '{link.clicked}', 'whsec_AAAA'
           FROM projects WHERE api_key = $1
         RETURNING id`,
        [projectKey],
      );
      await dataSource.query(
        `INSERT INTO webhook_delivery_log
           (webhook_id, attempt, bucket, event_ids, event_types, bodies, status_codes,
            durations_ms, responses, errors)
         VALUES ($1, 1, 0, '{evt_00000000000000000000000000000001}', '{link.clicked}', '{"{}"}',
                 '{NULL}', '{3}', '{""}', '{NULL}'),
                ($1, 2, 0, '{evt_00000000000000000000000000000001}', '{link.clicked}', '{"{}"}',
                 '{NULL}', '{4}', '{""}', '{NULL}')`,
        [id],
      );
      const list = await embeddedPost('/webhooks/list', { project: projectKey }).expect(200);
      expect(
        (list.body as { response: { webhooks: WebhookRecord[] } }).response.webhooks.map(
          (w) => w.id,
        ),
      ).toEqual([id]);
      const updated = await embeddedPost(`/webhooks/${id}/update`, {
        json: JSON.stringify({ enabled: false, description: 'off' }),
      }).expect(200);
      expect(updated.body.response.webhook).toMatchObject({
        enabled: false,
        disabled_reason: 'manual',
        description: 'off',
      });
      const rotated = await embeddedPost(`/webhooks/${id}/rotate-secret`, {}).expect(200);
      expect(rotated.body.response.webhook.secret).toMatch(SECRET);
      const [stored] = await dataSource.query<{ previous_secret: string; hours: number }[]>(
        `SELECT previous_secret,
                round(extract(epoch FROM previous_secret_expires_at - now()) / 3600)::int AS hours
           FROM webhooks WHERE id = $1`,
        [id],
      );
      expect(stored).toEqual({ previous_secret: 'whsec_AAAA', hours: 24 });
      const log = await embeddedPost(`/webhooks/${id}/deliveries`, { per_page: '1' }).expect(200);
      expect(log.body.response).toMatchObject({ total_results: 2, last_offset: 1 });
      expect(log.body.response.deliveries[0]).toMatchObject({ attempt: 2, status_code: null });
      await embeddedPost(`/webhooks/${id}/destroy`, {}).expect(200);
      await embeddedPost(`/webhooks/${id}/show`, {}).expect(404);
    });

    it('keeps the events of a request in the outbox and delivers them on PGlite', async () => {
      const dataSource = e.app.get(DataSource);
      const [{ id, project_id }] = await dataSource.query<{ id: string; project_id: string }[]>(
        `INSERT INTO webhooks (subscription_id, project_id, url, events, secret)
         SELECT subscription_id, id, 'http://127.0.0.1:9/', '{link.created}', 'whsec_AAAA'
           FROM projects WHERE api_key = $1
         RETURNING id, project_id`,
        [projectKey],
      );
      await e.app.get(WebhookTargets).changed(project_id);
      const made = await e.http
        .get('/url.json')
        .query({
          v: '3',
          key: projectKey,
          tool: 't',
          channel: 'email',
          url: 'https://shop.example/',
        })
        .expect(200);
      // Sent (and refused: the address is this machine's), logged, and the outbox row gone.
      const [attempt] = await eventually(`the delivery of ${made.body.svc_id}`, async () => {
        const log = await embeddedPost(`/webhooks/${id}/deliveries`, {}).expect(200);
        const deliveries = log.body.response.deliveries as Record<string, unknown>[];
        return deliveries.length > 0 && deliveries;
      });
      expect(attempt).toMatchObject({ event_type: 'link.created', error: 'forbidden_address' });
      expect(await dataSource.query('SELECT id FROM event_outbox')).toEqual([]);
    });
  });
});
