import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Controller, Get, INestApplication } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { Client } from 'pg';
import request from 'supertest';
import { createApp } from '../../src/app.factory';
import { AppModule } from '../../src/app.module';
import { AppConfig } from '../../src/config/app-config';
import { MailMessage, MailService } from '../../src/mail/mail.service';
import { SubscriptionsService } from '../../src/subscriptions/subscriptions.service';
import {
  TestApp,
  clearRedisPrefix,
  createTestApp,
  createTestDatabase,
  dropTestDatabase,
  testChdbEnv,
  testConfig,
} from '../support/app';
import { TEST_REDIS_URL, databaseUrl } from '../support/env';
import { eventually } from '../support/eventually';

function mail(to = 'ada@example.com'): MailMessage {
  return { id: randomUUID(), to, subject: 'Hello', text: 'First line\nSecond line' };
}

function expectEml(config: AppConfig, message: MailMessage): void {
  const file = path.join(config.outboxDir, `${message.id}.eml`);
  expect(existsSync(file)).toBe(true);
  const lines = readFileSync(file, 'utf8').split('\r\n');
  expect(lines.slice(0, 4)).toEqual([
    `Message-ID: <${message.id}@svc>`,
    'From: svc <no-reply@svc.test>',
    `To: ${message.to}`,
    `Subject: ${message.subject}`,
  ]);
  expect(lines.slice(-3)).toEqual(['', 'First line\nSecond line', '']);
}

/** An application on a given database, for tests that need two processes or control over close(). */
interface Started {
  app: NestExpressApplication;
  config: AppConfig;
  close(): Promise<void>;
}

/** The analytics engine and database every app of this file shares (one deployment). */
const analyticsEnv = testChdbEnv();

async function startApp(databaseName: string, env: Record<string, string> = {}): Promise<Started> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-test-'));
  const config = testConfig({
    DATABASE_URL: databaseUrl(databaseName),
    DATA_DIR: dataDir,
    ...analyticsEnv,
    DEFAULT_DOMAIN: 'svc.test',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const app = await createApp(config);
  await app.init();
  let closed = false;
  return {
    app,
    config,
    close: async () => {
      if (!closed) await app.close();
      closed = true;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Keys for BOOTSTRAP_*: without them a first start prints new keys to stdout. */
function bootstrapKeys(): Record<string, string> {
  return {
    BOOTSTRAP_SUBSCRIPTION_KEY: `sub_${randomBytes(12).toString('hex')}`,
    BOOTSTRAP_APPLICATION_KEY: `app_${randomBytes(12).toString('hex')}`,
  };
}

async function count(db: Client, table: 'subscriptions' | 'applications'): Promise<number> {
  const result = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return result.rows[0].n;
}

describe('jobs run the same on BullMQ and in-process', () => {
  it.each([
    ['BullMQ on Redis', true],
    ['in-process', false],
  ])('the mail job ends as an .eml in the outbox (%s)', async (_, redis) => {
    const t = await createTestApp({ redis });
    try {
      const message = mail();
      await t.app.get(MailService).enqueue(message);
      await t.settle();
      expectEml(t.config, message);
    } finally {
      await t.close();
    }
  });

  it('a ROLE=api process only enqueues; a ROLE=worker process runs the job', async () => {
    const databaseName = await createTestDatabase();
    const env = {
      ...bootstrapKeys(),
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: `svctest:${randomBytes(4).toString('hex')}`,
    };
    const api = await startApp(databaseName, { ...env, ROLE: 'api' });
    const worker = await startApp(databaseName, { ...env, ROLE: 'worker' });
    try {
      const message = mail();
      await api.app.get(MailService).enqueue(message);
      const inWorkerOutbox = path.join(worker.config.outboxDir, `${message.id}.eml`);
      await eventually("the mail in the worker's outbox", () => existsSync(inWorkerOutbox), 10_000);
      expectEml(worker.config, message);
      expect(existsSync(path.join(api.config.outboxDir, `${message.id}.eml`))).toBe(false);
    } finally {
      await api.close();
      await worker.close();
      await dropTestDatabase(databaseName);
      await clearRedisPrefix(env.REDIS_PREFIX);
    }
  });
});

describe('graceful shutdown', () => {
  it('finishes an in-process job accepted just before close()', async () => {
    const databaseName = await createTestDatabase();
    const started = await startApp(databaseName, bootstrapKeys());
    try {
      const messages = [mail('a@example.com'), mail('b@example.com'), mail('c@example.com')];
      const mailer = started.app.get(MailService);
      for (const message of messages) await mailer.enqueue(message);
      // Accepted, not yet run: only the shutdown drain can write them now.
      for (const message of messages) {
        expect(existsSync(path.join(started.config.outboxDir, `${message.id}.eml`))).toBe(false);
      }
      await started.app.close();
      for (const message of messages) expectEml(started.config, message);
    } finally {
      await started.close();
      await dropTestDatabase(databaseName);
    }
  });
});

describe('bootstrap', () => {
  let databaseName: string;
  let db: Client;

  beforeEach(async () => {
    databaseName = await createTestDatabase();
    db = new Client({ connectionString: databaseUrl(databaseName) });
    await db.connect();
  });

  afterEach(async () => {
    await db.end();
    await dropTestDatabase(databaseName);
  });

  it('with BOOTSTRAP keys is idempotent across starts', async () => {
    const env = bootstrapKeys();
    const first = await startApp(databaseName, env);
    await first.close();
    const second = await startApp(databaseName, env);
    try {
      expect(await count(db, 'subscriptions')).toBe(1);
      expect(await count(db, 'applications')).toBe(1);
      const subscription = await second.app.get(SubscriptionsService).authenticate(
        {
          subscription_key: env.BOOTSTRAP_SUBSCRIPTION_KEY,
          application_key: env.BOOTSTRAP_APPLICATION_KEY,
        },
        true,
      );
      expect(subscription.name).toBe('bootstrap');
    } finally {
      await second.close();
    }
  });

  it('without BOOTSTRAP keys creates one subscription on an empty database and prints its keys once', async () => {
    const printed: string[] = [];
    const write = jest
      .spyOn(process.stdout, 'write')
      .mockImplementation((chunk: string | Uint8Array) => {
        printed.push(chunk.toString());
        return true;
      });
    let first: Started | undefined;
    let second: Started | undefined;
    try {
      first = await startApp(databaseName);
      const firstOutput = printed.join('');
      printed.length = 0;
      await first.close();
      second = await startApp(databaseName);
      const secondOutput = printed.join('');
      write.mockRestore();

      expect(await count(db, 'subscriptions')).toBe(1);
      expect(await count(db, 'applications')).toBe(1);
      const subscriptionKey = /^ {2}subscription_key: (\S+)$/m.exec(firstOutput)?.[1];
      const applicationKey = /^ {2}application_key: {2}(\S+)$/m.exec(firstOutput)?.[1];
      expect(subscriptionKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(applicationKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const subscription = await second.app
        .get(SubscriptionsService)
        .authenticate({ subscription_key: subscriptionKey, application_key: applicationKey }, true);
      expect(subscription.name).toBe('default');
      // Printed once: a later start on the same database says nothing about keys.
      expect(secondOutput).not.toContain('subscription_key');
    } finally {
      write.mockRestore();
      await first?.close();
      await second?.close();
    }
  });
});

@Controller()
class ExplodingController {
  @Get('projects/explode-for-test/show')
  admin(): never {
    throw new Error('kaboom');
  }

  @Get('explode-for-test.json')
  link(): never {
    throw new TypeError('kaboom');
  }
}

describe('error layer', () => {
  let t: TestApp;
  let app: INestApplication;

  beforeAll(async () => {
    t = await createTestApp({ redis: false });
    // The application's module plus one test-only controller that throws something unexpected.
    const moduleRef = await Test.createTestingModule({
      imports: [AppModule.forRoot(t.config)],
      controllers: [ExplodingController],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  it('answers an unknown admin route with the admin shape and 404', async () => {
    const res = await t.http
      .post('/projects/somekey/frobnicate')
      .query({ subscription_key: 's' })
      .expect(404);
    expect(res.body).toEqual({
      request: {
        subscription_key: 's',
        apikey: 'somekey',
        method: 'frobnicate',
        object: 'project',
      },
      error: { code: 1003, message: 'Cannot POST /projects/somekey/frobnicate' },
    });
  });

  it('answers an unknown link route with the link shape and 404', async () => {
    const res = await t.http.get('/nothing-here.json').expect(404);
    expect(res.body).toEqual({ error: 404, error_message: 'Cannot GET /nothing-here.json' });
  });

  it('answers an unexpected exception with 500 in the admin shape, quoting the request id', async () => {
    const res = await request(app.getHttpServer())
      .get('/projects/explode-for-test/show')
      .set('X-Request-Id', 'req-500-admin')
      .expect(500);
    expect(res.headers['x-request-id']).toBe('req-500-admin');
    expect(res.body).toEqual({
      request: { apikey: 'explode-for-test', method: 'show', object: 'project' },
      error: {
        code: 1099,
        message: 'Internal error; quote request id req-500-admin when reporting it',
      },
    });
  });

  it('answers an unexpected exception with 500 in the link shape, with a generated request id', async () => {
    const res = await request(app.getHttpServer()).get('/explode-for-test.json').expect(500);
    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).toEqual({
      error: 500,
      error_message: `Internal error; quote request id ${id} when reporting it`,
    });
    expect(JSON.stringify(res.body)).not.toContain('kaboom');
  });
});

describe('ROLE=worker', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { ROLE: 'worker' } });
  });
  afterAll(() => t.close());

  it('answers health checks', async () => {
    expect((await t.http.get('/health').expect(200)).body).toEqual({ status: 'ok' });
    expect((await t.http.get('/health/ready').expect(200)).body.status).toBe('ok');
  });

  it('serves its metrics: the click ingestion is measured in the worker', async () => {
    const res = await t.http.get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/^# HELP svc_click_ingest_lag_seconds /m);
  });

  it.each([
    ['get', '/docs'],
    ['get', '/docs-json'],
    ['post', '/projects/list'],
    ['post', '/projects/new'],
    ['get', '/url.json'],
    ['get', '/abc123'],
    ['get', '/'],
  ] as const)('answers %s %s with 404', async (method, url) => {
    const res = await t.http[method](url).expect(404);
    expect(res.body).toEqual({
      error: 404,
      error_message: 'This process runs workers only (ROLE=worker)',
    });
  });
});
