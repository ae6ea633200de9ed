import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import Redis from 'ioredis';
import { __resetOutOfContextForTests } from 'nestjs-pino/PinoLogger';
import type { DestinationStream } from 'pino';
import request from 'supertest';
import TestAgent from 'supertest/lib/agent';
import { AnalyticsClient, openAnalyticsClient } from '../../src/analytics/analytics-client';
import { DataSource, In } from 'typeorm';
import { LinkMirror } from '../../src/analytics/link-mirror';
import { LinkEntity } from '../../src/links/link.entity';
import { createApp } from '../../src/app.factory';
import { AppConfig, Role, loadConfig } from '../../src/config/app-config';
import { ClickBuffer } from '../../src/clicks/click-buffer';
import { JobQueue } from '../../src/queue/job-queue';
import {
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  databaseUrl,
  stampedName,
  templateDatabase,
} from './env';
import { waitForBullQueues } from './bull-queues';
import { installResponseValidation, leaveUnchecked, serviceValidator } from './openapi-validation';

// Every test file that starts the app imports this module: each answer its requests receive is
// checked against the OpenAPI document (see openapi-validation.ts).
installResponseValidation();

export interface TestAppOptions {
  /** BullMQ on the machine's Redis (default) or the in-process transport. */
  redis?: boolean;
  /** Extra environment for loadConfig. */
  env?: Record<string, string>;
  /**
   * The DATABASE_URL the app connects with, from its database name (default: the test server's
   * URL), e.g. through a proxy the test cuts; `db` always connects directly.
   */
  databaseUrl?: (databaseName: string) => string;
  /** Where the app's log lines go (LOG_LEVEL still applies: give one in `env`), to read them. */
  logDestination?: DestinationStream;
}

export interface TestApp {
  app: NestExpressApplication;
  http: TestAgent;
  config: AppConfig;
  /** The bootstrap keys the app was started with. */
  subscriptionKey: string;
  applicationKey: string;
  databaseName: string;
  /** A plain connection to the test file's database, for assertions and fixtures. */
  db: Client;
  /** The app's analytics store (this test app's own ClickHouse database), for assertions and fixtures. */
  analytics: AnalyticsClient;
  /** Mirrors links changed by a fixture straight in PostgreSQL into the analytics store, by svc_id. */
  remirror(svcIds: string[]): Promise<void>;
  /** Flushes the click buffer, then waits until queued jobs ran (in-process) or the BullMQ queues are empty. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The embedded analytics engine of this jest worker: chDB serves one data folder per process, so
 * every test app of the worker shares it, each with a ClickHouse database of its own.
 */
export function testChdbEnv(): { CHDB_DIR: string; CLICKHOUSE_DATABASE: string } {
  const root = process.env.SVC_TEST_CHDB_ROOT ?? path.join(tmpdir(), 'svc-test-chdb');
  return {
    CHDB_DIR: path.join(root, `worker-${process.env.JEST_WORKER_ID ?? process.pid}`),
    CLICKHOUSE_DATABASE: `t_${randomBytes(6).toString('hex')}`,
  };
}

/**
 * The configuration of an app under test: loadConfig, with ROLE applied after it. A deployment that
 * splits roles across processes needs CLICKHOUSE_URL (loadConfig refuses it otherwise: the embedded
 * engine serves one process); apps of one test process may split roles over that process's engine.
 */
export function testConfig(env: Record<string, string | undefined>): AppConfig {
  const { ROLE, ...rest } = env;
  const config = loadConfig(rest);
  return ROLE ? new AppConfig({ ...config, role: ROLE as Role }) : config;
}

/** A fresh database cloned from the migrated template, for one test file. */
export async function createTestDatabase(): Promise<string> {
  const name = stampedName('t', randomBytes(5).toString('hex'));
  const admin = new Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${templateDatabase()}"`);
  } finally {
    await admin.end();
  }
  return name;
}

export async function dropTestDatabase(name: string): Promise<void> {
  const admin = new Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/** Deletes every Redis key under a prefix (test files use their own prefix). */
export async function clearRedisPrefix(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** The whole application on its own database and Redis prefix, served by supertest. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  // The document is built before any answer arrives: built later, it could wait on a clock the test
  // has faked.
  await serviceValidator();
  // nestjs-pino writes Nest's log through the first logger it was given (an earlier app of the same
  // test file would keep it): an app whose lines are read gets its own.
  if (options.logDestination) __resetOutOfContextForTests();
  const useRedis = options.redis ?? true;
  const databaseName = await createTestDatabase();
  const prefix = `svctest:${randomBytes(4).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-test-'));
  const subscriptionKey = `sub_${randomBytes(12).toString('hex')}`;
  const applicationKey = `app_${randomBytes(12).toString('hex')}`;
  const config = testConfig({
    DATABASE_URL: (options.databaseUrl ?? databaseUrl)(databaseName),
    ...(useRedis ? { REDIS_URL: TEST_REDIS_URL } : {}),
    REDIS_PREFIX: prefix,
    DATA_DIR: dataDir,
    ...testChdbEnv(),
    DEFAULT_DOMAIN: 'svc.test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    BOOTSTRAP_SUBSCRIPTION_KEY: subscriptionKey,
    BOOTSTRAP_APPLICATION_KEY: applicationKey,
    ...options.env,
  });
  const app = await createApp(config, { logDestination: options.logDestination });
  await app.init();
  // Nest's own log waits in a buffer until listen() (which supertest never calls).
  if (options.logDestination) app.flushLogs();
  if (!config.servesApi) leaveUnchecked(app.getHttpServer());
  const db = new Client({ connectionString: databaseUrl(databaseName) });
  await db.connect();
  const queue = app.get(JobQueue);
  const analytics = app.get(AnalyticsClient);
  return {
    app,
    http: request(app.getHttpServer()),
    config,
    subscriptionKey,
    applicationKey,
    databaseName,
    db,
    analytics,
    remirror: async (svcIds) => {
      const links = await app
        .get(DataSource)
        .getRepository(LinkEntity)
        .findBy({ svcId: In(svcIds) });
      await app.get(LinkMirror).mirror(links, Date.now() * 1000);
    },
    settle: async () => {
      await app.get(ClickBuffer, { strict: false }).flush();
      await queue.drain(10_000);
      if (useRedis) await waitForBullQueues(TEST_REDIS_URL, prefix, 10_000);
    },
    close: async () => {
      await app.close();
      const store = await openAnalyticsClient({
        url: config.clickhouseUrl,
        embeddedDir: config.chdbDir,
        database: config.clickhouseDatabase,
      });
      await store.command(`DROP DATABASE IF EXISTS ${config.clickhouseDatabase}`);
      await store.close();
      await db.end();
      await dropTestDatabase(databaseName);
      if (useRedis) await clearRedisPrefix(prefix);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
