import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import TestAgent from 'supertest/lib/agent';
import { DataSource } from 'typeorm';
import { AnalyticsClient } from '../../src/analytics/analytics-client';
import { testChdbEnv } from '../support/app';
import { createApp } from '../../src/app.factory';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { JobQueue } from '../../src/queue/job-queue';
import { ClickEvent, nextClickSequence } from '../../src/clicks/click-event';
import { ClicksService } from '../../src/clicks/clicks.service';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TIMESTAMP = expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
const UUID = expect.stringMatching(
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
);

/** The embedded default: no DATABASE_URL (PGlite under DATA_DIR), no REDIS_URL (in-process jobs). */
describe('embedded (PGlite, in-process jobs): project administration', () => {
  let app: NestExpressApplication;
  let http: TestAgent;
  let config: AppConfig;
  let dataDir: string;
  const keys = {
    subscription_key: `sub_${randomBytes(12).toString('hex')}`,
    application_key: `app_${randomBytes(12).toString('hex')}`,
  };
  const post = (url: string, params: Record<string, string>) =>
    http.post(url).type('form').send(params);
  const user = (email: string, username: string, defaultProject: string): Body => ({
    default_project: defaultProject,
    email,
    name: username,
    sharer_id: UUID,
    username,
  });

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-embedded-'));
    config = loadConfig({
      DATA_DIR: dataDir,
      // The embedded engine serves one folder per process: this jest worker's.
      ...testChdbEnv(),
      LOG_LEVEL: 'silent',
      DEFAULT_DOMAIN: 'svc.test',
      BOOTSTRAP_SUBSCRIPTION_KEY: keys.subscription_key,
      BOOTSTRAP_APPLICATION_KEY: keys.application_key,
    });
    app = await createApp(config);
    await app.init();
    http = request(app.getHttpServer());
    const dataSource = app.get(DataSource);
    const [subscription] = await dataSource.query<{ id: string }[]>(
      `SELECT id FROM subscriptions WHERE name = 'bootstrap'`,
    );
    await dataSource.query(
      `INSERT INTO domains (subscription_id, hostname, root_redirect, not_found_redirect) VALUES ($1, $2, $3, $3)`,
      [subscription.id, 'go.embedded.test', 'https://example.com/'],
    );
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the admin flow: new, update, show, list, destroy refused, remove_user, destroy, key refused', async () => {
    expect(config.databaseUrl).toBeNull();
    expect(config.redisUrl).toBeNull();

    const createParams = {
      ...keys,
      json: JSON.stringify({
        name: 'embedded',
        domains: ['go.embedded.test'],
        admins: ['eve@example.com'],
      }),
    };
    const created = await post('/projects/new', createParams);
    expect(created.status).toBe(200);
    const key = created.body.response.project.api_key as string;
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(created.body).toStrictEqual({
      request: { ...createParams, method: 'new', object: 'project' },
      response: {
        project: {
          name: 'embedded',
          api_key: key,
          publishable_key: expect.stringMatching(/^pk_[0-9a-f]{32}$/),
          created_at: TIMESTAMP,
          updated_at: TIMESTAMP,
          default_domain: 'svc.test',
          domains: ['go.embedded.test'],
          admins: [user('eve@example.com', 'eve', 'embedded')],
          sharers: [],
          viewers: [],
        },
      },
    });

    const updateParams = {
      ...keys,
      json: JSON.stringify({
        default_domain: 'go.embedded.test',
        sharers: 'frank@example.com',
        conversions: { enabled: true, domains: 'all', goal_1_label: 'Signup' },
      }),
    };
    const updated = await post(`/projects/${key}/update`, updateParams);
    expect(updated.status).toBe(200);
    expect(updated.body.request).toStrictEqual({
      ...updateParams,
      apikey: key,
      method: 'update',
      object: 'project',
    });
    expect(updated.body.response.project).toStrictEqual({
      ...created.body.response.project,
      updated_at: TIMESTAMP,
      default_domain: 'go.embedded.test',
      sharers: [user('frank@example.com', 'frank', 'embedded')],
    });

    // The welcome e-mails are written by the in-process mail job.
    await app.get(JobQueue).drain(10_000);
    const eveId = updated.body.response.project.admins[0].sharer_id as string;
    const frankId = updated.body.response.project.sharers[0].sharer_id as string;
    const [{ id: projectId }] = await app
      .get(DataSource)
      .query<{ id: string }[]>('SELECT id FROM projects WHERE api_key = $1', [key]);
    for (const [id, email] of [
      [eveId, 'eve@example.com'],
      [frankId, 'frank@example.com'],
    ]) {
      const eml = readFileSync(
        path.join(config.outboxDir, `welcome-${id}-${projectId}.eml`),
        'utf8',
      );
      expect(eml).toContain(`To: ${email}\r\n`);
    }

    const expectedShown = {
      ...updated.body.response.project,
      conversions: {
        enabled: true,
        domains: 'all',
        goal_1_label: 'Signup',
        ...Object.fromEntries([2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => [`goal_${n}_label`, null])),
      },
      redirection_patterns: {},
      utm_parameters: false,
      publishable_hosts: [],
      ip_storage: null,
      ua_storage: 'full',
      retention_days: null,
    };
    const shown = await http.get(`/projects/${key}/show`).query(keys);
    expect(shown.status).toBe(200);
    expect(shown.body).toStrictEqual({
      request: { ...keys, apikey: key, method: 'show', object: 'project' },
      response: { project: expectedShown },
    });

    const listed = await post('/projects/list', keys);
    expect(listed.status).toBe(200);
    expect(listed.body).toStrictEqual({
      request: { ...keys, method: 'list', object: 'project' },
      response: { projects: [expectedShown] },
    });

    const refused = await post(`/projects/${key}/destroy`, keys);
    expect(refused.status).toBe(400);
    expect(refused.body).toStrictEqual({
      request: { ...keys, apikey: key, method: 'delete', object: 'project' },
      error: {
        code: 10002,
        message:
          'Project embedded still has 2 users; remove them (json.remove_user on update) before destroying it',
      },
    });

    const emptied = await post(`/projects/${key}/update`, {
      ...keys,
      json: JSON.stringify({ remove_user: ['eve', frankId] }),
    });
    expect(emptied.status).toBe(200);
    expect({
      admins: emptied.body.response.project.admins,
      sharers: emptied.body.response.project.sharers,
    }).toEqual({
      admins: [],
      sharers: [],
    });

    const destroyed = await post(`/projects/${key}/destroy`, keys);
    expect(destroyed.status).toBe(200);
    expect(destroyed.body).toStrictEqual({
      request: { ...keys, apikey: key, method: 'delete', object: 'project' },
      response: { deleted: true },
    });

    const gone = await post(`/projects/${key}/show`, keys);
    expect(gone.status).toBe(404);
    expect(gone.body).toStrictEqual({
      request: { ...keys, apikey: key, method: 'show', object: 'project' },
      error: { code: 1003, message: 'Project not found: no live project has this api_key' },
    });
    const empty = await post('/projects/list', keys);
    expect(empty.body.response).toStrictEqual({ projects: [] });
  });

  it('stores a click batch given twice once (a retried job), on PGlite as on PostgreSQL', async () => {
    const created = await post('/projects/new', {
      ...keys,
      json: JSON.stringify({ name: 'embedded-clicks' }),
    });
    expect(created.status).toBe(200);
    const key = created.body.response.project.api_key as string;
    const link = await http
      .get('/url.json')
      .query({ v: '3', key, tool: 't', channel: 'email', url: 'https://example.com/e' });
    expect(link.status).toBe(200);
    const dataSource = app.get(DataSource);
    const [row] = await dataSource.query<{ id: string; project_id: string }[]>(
      'SELECT id::text AS id, project_id FROM links WHERE svc_id = $1',
      [link.body.svc_id],
    );
    const at = Date.now();
    const clicks: ClickEvent[] = [0, 1, 2].map((i) => ({
      id: nextClickSequence(),
      linkId: row.id,
      projectId: row.project_id,
      clickedAt: at - i,
      referrer: null,
      userAgent: 'Mozilla/5.0',
      ip: null,
      isBot: false,
    }));
    const service = app.get(ClicksService, { strict: false });
    expect(await service.ingest(clicks)).toBe(3);
    await service.ingest(clicks);
    const analytics = app.get(AnalyticsClient);
    const [counted] = await analytics.query<{ clicks: string; raw: string }>(
      `SELECT (SELECT countIf(is_bot = 0) FROM ${analytics.database}.clicks WHERE link_id = {link:UInt64}) AS clicks,
              (SELECT count() FROM ${analytics.database}.clicks WHERE link_id = {link:UInt64}) AS raw`,
      { link: Number(row.id) },
    );
    expect({ clicks: Number(counted.clicks), raw: Number(counted.raw) }).toEqual({
      clicks: 3,
      raw: 3,
    });
  });
});
