import type { AddressInfo } from 'node:net';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import TestAgent from 'supertest/lib/agent';
import { createApp } from '../../src/app.factory';
import { AppConfig } from '../../src/config/app-config';
import { TestApp, testConfig } from './app';
import { leaveUnchecked } from './openapi-validation';

export interface SiblingApp {
  app: NestExpressApplication;
  http: TestAgent;
  config: AppConfig;
}

/**
 * Another instance of the application on a test app's database and Redis prefix (another process
 * of one deployment, or the same one restarted) with its own DATA_DIR (the spool of buffered clicks).
 * `env` overrides the test app's settings: an empty REDIS_URL runs jobs in-process. The caller closes
 * it (`app.close()`); the test app still owns and removes the database and the Redis prefix.
 */
export async function startSiblingApp(
  t: TestApp,
  dataDir: string,
  env: Record<string, string> = {},
): Promise<SiblingApp> {
  const config = testConfig({
    DATABASE_URL: t.config.databaseUrl ?? '',
    REDIS_URL: t.config.redisUrl ?? '',
    REDIS_PREFIX: t.config.redisPrefix,
    DATA_DIR: dataDir,
    CHDB_DIR: t.config.chdbDir,
    CLICKHOUSE_URL: t.config.clickhouseUrl ?? '',
    CLICKHOUSE_DATABASE: t.config.clickhouseDatabase,
    DEFAULT_DOMAIN: t.config.defaultDomain,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    BOOTSTRAP_SUBSCRIPTION_KEY: t.subscriptionKey,
    BOOTSTRAP_APPLICATION_KEY: t.applicationKey,
    ...env,
  });
  const app = await createApp(config);
  // Listening on a port of its own, so requests may run in parallel.
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  if (!config.servesApi) leaveUnchecked(url);
  return { app, http: request(url), config };
}
