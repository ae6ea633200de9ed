import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import TestAgent from 'supertest/lib/agent';
import { testChdbEnv } from '../support/app';
import { createApp } from '../../src/app.factory';
import { loadConfig } from '../../src/config/app-config';
import { BROWSER } from '../support/clicks';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15';

/** Link controls on the embedded database (PGlite: its jsonb and booleans) with in-process jobs. */
describe('embedded (PGlite, in-process jobs): link controls', () => {
  let app: NestExpressApplication;
  let http: TestAgent;
  let dataDir: string;
  let key: string;
  const keys = {
    subscription_key: `sub_${randomBytes(12).toString('hex')}`,
    application_key: `app_${randomBytes(12).toString('hex')}`,
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-embedded-'));
    const config = loadConfig({
      DATA_DIR: dataDir,
      ...testChdbEnv(),
      LOG_LEVEL: 'silent',
      DEFAULT_DOMAIN: 'svc.test',
      TRUST_PROXY: 'true',
      BOOTSTRAP_SUBSCRIPTION_KEY: keys.subscription_key,
      BOOTSTRAP_APPLICATION_KEY: keys.application_key,
    });
    app = await createApp(config);
    await app.init();
    http = request(app.getHttpServer());
    const created = await http
      .post('/projects/new')
      .type('form')
      .send({ ...keys, json: JSON.stringify({ name: 'embedded_controls' }) })
      .expect(200);
    key = created.body.response.project.api_key as string;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const visit = (linkPath: string, agent = BROWSER, ip = '192.0.2.1') =>
    http
      .get(`/${linkPath}`)
      .set('Host', 'svc.test')
      .set('User-Agent', agent)
      .set('X-Forwarded-For', ip);

  it('stores, shows, applies and clears every control', async () => {
    const created = await http
      .post('/url.json')
      .type('form')
      .send({
        v: '3',
        key,
        tool: 't',
        channel: 'email',
        url: 'https://example.com/page',
        max_clicks: '2',
        expired_url: 'https://example.com/over',
        ios_url: 'https://example.com/ios',
        geo: '{"US":"https://example.com/us"}',
      })
      .expect(200);
    const link = created.body as { svc_id: string; path: string };
    expect(created.body).toMatchObject({
      max_clicks: 2,
      expired_url: 'https://example.com/over',
      ios_url: 'https://example.com/ios',
      geo: { US: 'https://example.com/us' },
    });
    expect((await visit(link.path, IPHONE).expect(302)).headers.location).toBe(
      'https://example.com/ios',
    );
    expect((await visit(link.path, BROWSER, '8.8.8.8').expect(302)).headers.location).toBe(
      'https://example.com/us',
    );
    expect((await visit(link.path).expect(302)).headers.location).toBe('https://example.com/over');
    const update = (params: Record<string, string>) =>
      http
        .post(`/url/update/${link.svc_id}.json`)
        .type('form')
        .send({ v: '3', key, tool: 'u', ...params })
        .expect(200);
    const protectedLink = await update({ max_clicks: '', disabled: 'true', password: 'pw' });
    expect(protectedLink.body).toMatchObject({ disabled: true, password_protected: true });
    expect(protectedLink.body.max_clicks).toBeUndefined();
    await visit(link.path).expect(404);
    await update({ disabled: 'false' });
    expect((await visit(link.path).expect(200)).text).toContain('<label for="password">');
    const right = await http
      .post(`/${link.path}`)
      .set('Host', 'svc.test')
      .set('User-Agent', BROWSER)
      .type('form')
      .send({ password: 'pw' })
      .expect(302);
    expect(right.headers.location).toBe('https://example.com/page');
    const cleared = await update({
      expired_url: '',
      ios_url: '',
      geo: '',
      password: '',
    });
    for (const field of [
      'max_clicks',
      'expired_url',
      'ios_url',
      'geo',
      'password_protected',
      'disabled',
    ])
      expect(cleared.body).not.toHaveProperty(field);
    expect((await visit(link.path, IPHONE).expect(302)).headers.location).toBe(
      'https://example.com/page',
    );
  });
});
