import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import TestAgent from 'supertest/lib/agent';
import { createApp } from '../../src/app.factory';
import { loadConfig } from '../../src/config/app-config';
import { testChdbEnv } from './app';

/** The service as `npm start` runs it: PGlite and chDB under a fresh DATA_DIR, in-process jobs. */
export interface EmbeddedApp {
  app: NestExpressApplication;
  http: TestAgent;
  /** The API key of a project made through the admin API. */
  key: string;
  /** The bootstrap keys: subscription_key and application_key. */
  keys: { subscription_key: string; application_key: string };
  close(): Promise<void>;
}

/**
 * Starts the embedded service (no DATABASE_URL, no REDIS_URL) on the default domain svc.test with
 * bootstrap keys, and creates one project named `project`; `env` adds to the configuration.
 */
export async function startEmbeddedApp(
  project: string,
  env: Record<string, string> = {},
): Promise<EmbeddedApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-embedded-'));
  const keys = {
    subscription_key: `sub_${randomBytes(12).toString('hex')}`,
    application_key: `app_${randomBytes(12).toString('hex')}`,
  };
  const config = loadConfig({
    DATA_DIR: dataDir,
    ...testChdbEnv(),
    LOG_LEVEL: 'silent',
    DEFAULT_DOMAIN: 'svc.test',
    BOOTSTRAP_SUBSCRIPTION_KEY: keys.subscription_key,
    BOOTSTRAP_APPLICATION_KEY: keys.application_key,
    ...env,
  });
  if (config.databaseUrl !== null || config.redisUrl !== null)
    throw new Error('the embedded app takes no DATABASE_URL or REDIS_URL');
  const app = await createApp(config);
  await app.init();
  const http = request(app.getHttpServer());
  const res = await http
    .post('/projects/new')
    .type('form')
    .send({ ...keys, json: JSON.stringify({ name: project }) })
    .expect(200);
  const key = (res.body as { response: { project: { api_key: string } } }).response.project.api_key;
  return {
    app,
    http,
    key,
    keys,
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
