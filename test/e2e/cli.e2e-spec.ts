import { NestFactory } from '@nestjs/core';
import { INestApplicationContext, Module } from '@nestjs/common';
import { EXIT, runCli } from '../../src/cli/cli';
import { loadConfig } from '../../src/config/app-config';
import { ConfigModule } from '../../src/config/config.module';
import { DatabaseModule } from '../../src/database/database.module';
import { SubscriptionsModule } from '../../src/subscriptions/subscriptions.module';
import { SubscriptionsService } from '../../src/subscriptions/subscriptions.service';
import { createTestDatabase, dropTestDatabase } from '../support/app';
import { databaseUrl } from '../support/env';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Plain output: `key: value` lines, records separated by a blank line. */
function parseRecords(text: string): Record<string, string>[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) =>
      Object.fromEntries(
        block
          .trim()
          .split('\n')
          .map((line) => {
            const at = line.indexOf(': ');
            return [line.slice(0, at), line.slice(at + 2)];
          }),
      ),
    );
}

describe('cli', () => {
  let databaseName: string;
  let env: Record<string, string>;
  let context: INestApplicationContext;
  let service: SubscriptionsService;

  async function cli(...argv: string[]): Promise<Run> {
    let stdout = '';
    let stderr = '';
    const code = await runCli(
      argv,
      { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) },
      { env },
    );
    return { code, stdout, stderr };
  }

  async function accepted(subscriptionKey: string, applicationKey?: string): Promise<boolean> {
    try {
      await service.authenticate(
        { subscription_key: subscriptionKey, application_key: applicationKey },
        applicationKey !== undefined,
      );
      return true;
    } catch {
      return false;
    }
  }

  beforeAll(async () => {
    databaseName = await createTestDatabase();
    env = { DATABASE_URL: databaseUrl(databaseName), LOG_LEVEL: 'silent' };
    @Module({
      imports: [ConfigModule.forRoot(loadConfig(env)), DatabaseModule, SubscriptionsModule],
    })
    class VerifierModule {}
    context = await NestFactory.createApplicationContext(VerifierModule, { logger: false });
    service = context.get(SubscriptionsService);
  });

  afterAll(async () => {
    await context?.close();
    await dropTestDatabase(databaseName);
  });

  it('creates a subscription whose keys authenticate', async () => {
    const run = await cli('subscription:create', '--name', 'acme');
    expect(run).toMatchObject({ code: EXIT.ok, stderr: '' });
    const [created] = parseRecords(run.stdout);
    expect(Object.keys(created)).toEqual([
      'subscription_id',
      'subscription_name',
      'subscription_key',
      'application_id',
      'application_name',
      'application_key',
    ]);
    expect(created.subscription_name).toBe('acme');
    expect(created.application_name).toBe('acme admin');
    const subscription = await service.authenticate(
      { subscription_key: created.subscription_key, application_key: created.application_key },
      true,
    );
    expect(subscription.id).toBe(created.subscription_id);
  });

  it('lists subscriptions as text and as JSON', async () => {
    const created = parseRecords((await cli('subscription:create', '--name=beta')).stdout)[0];
    const text = await cli('subscription:list');
    expect(text.code).toBe(EXIT.ok);
    const records = parseRecords(text.stdout);
    expect(records.map((r) => r.name)).toEqual(['acme', 'beta']);
    expect(records[1].id).toBe(created.subscription_id);
    const json = await cli('subscription:list', '--json');
    expect(json.code).toBe(EXIT.ok);
    const parsed = JSON.parse(json.stdout) as { id: string; name: string; created_at: string }[];
    expect(parsed.map(({ id, name }) => ({ id, name }))).toEqual(
      records.map(({ id, name }) => ({ id, name })),
    );
    expect(parsed[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('rotates the subscription key: the new one works, the old one is refused', async () => {
    const created = parseRecords(
      (await cli('subscription:create', '--name', 'rotating')).stdout,
    )[0];
    const run = await cli('subscription:rotate-key', '--id', created.subscription_id, '--json');
    expect(run.code).toBe(EXIT.ok);
    const rotated = JSON.parse(run.stdout) as { subscription_id: string; subscription_key: string };
    expect(rotated.subscription_id).toBe(created.subscription_id);
    expect(rotated.subscription_key).not.toBe(created.subscription_key);
    expect(await accepted(rotated.subscription_key, created.application_key)).toBe(true);
    expect(await accepted(created.subscription_key, created.application_key)).toBe(false);
    expect(await accepted(created.subscription_key)).toBe(false);
  });

  it('creates, lists and rotates applications', async () => {
    const sub = parseRecords((await cli('subscription:create', '--name', 'apps')).stdout)[0];
    const run = await cli(
      'application:create',
      '--subscription',
      sub.subscription_id,
      '--name',
      'dashboard',
    );
    expect(run.code).toBe(EXIT.ok);
    const app = parseRecords(run.stdout)[0];
    expect(Object.keys(app)).toEqual([
      'application_id',
      'application_name',
      'subscription_id',
      'application_key',
    ]);
    expect(app).toMatchObject({
      application_name: 'dashboard',
      subscription_id: sub.subscription_id,
    });
    expect(await accepted(sub.subscription_key, app.application_key)).toBe(true);

    const list = await cli('application:list', '--subscription', sub.subscription_id);
    expect(list.code).toBe(EXIT.ok);
    expect(parseRecords(list.stdout).map((r) => [r.id, r.name])).toEqual([
      [sub.application_id, 'apps admin'],
      [app.application_id, 'dashboard'],
    ]);

    const rotate = await cli('application:rotate-key', '--id', app.application_id);
    expect(rotate.code).toBe(EXIT.ok);
    const rotated = parseRecords(rotate.stdout)[0];
    expect(rotated.application_id).toBe(app.application_id);
    expect(await accepted(sub.subscription_key, rotated.application_key)).toBe(true);
    expect(await accepted(sub.subscription_key, app.application_key)).toBe(false);
    // The other application of the subscription is untouched.
    expect(await accepted(sub.subscription_key, sub.application_key)).toBe(true);
  });

  it('refuses an application key on another subscription', async () => {
    const one = parseRecords((await cli('subscription:create', '--name', 'one')).stdout)[0];
    const two = parseRecords((await cli('subscription:create', '--name', 'two')).stdout)[0];
    expect(await accepted(one.subscription_key, two.application_key)).toBe(false);
  });

  it('prints help with exit 0', async () => {
    const run = await cli('help');
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toContain('subscription:create --name <name of the subscription>');
    expect(run.stderr).toBe('');
  });

  it.each([
    [[], 'no command given'],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['subscription:create'], 'subscription:create needs --name'],
    [['subscription:create', '--name'], '--name needs a value'],
    [['subscription:create', '--name', ''], '--name must not be empty'],
    [['subscription:create', '--name', 'a', '--name', 'b'], '--name given twice'],
    [['subscription:create', '--colour', 'red'], 'subscription:create has no option --colour'],
    [['subscription:create', 'acme'], 'unexpected argument "acme"'],
    [['subscription:rotate-key', '--id', '42'], '--id must be an id (a UUID), got "42"'],
    [['application:create', '--name', 'x'], 'application:create needs --subscription'],
    [['application:list', '--json=yes'], '--json takes no value'],
  ])('exits 2 on bad arguments %j', async (argv, message) => {
    const run = await cli(...argv);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`svc cli: ${message}`);
    expect(run.stderr).toContain('Usage: npm run cli');
  });

  it('exits 1 naming an unknown id', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const argv of [
      ['subscription:rotate-key', '--id', missing],
      ['application:rotate-key', '--id', missing],
      ['application:create', '--subscription', missing, '--name', 'x'],
      ['application:list', '--subscription', missing],
    ]) {
      const run = await cli(...argv);
      expect(run.code).toBe(EXIT.failed);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(
        new RegExp(`^svc cli: ${argv[0]} failed: No (subscription|application) ${missing}\\n$`),
      );
    }
  });

  it('exits 78 naming a bad configuration variable', async () => {
    let stderr = '';
    const code = await runCli(
      ['subscription:list'],
      { stdout: () => undefined, stderr: (t) => (stderr += t) },
      { env: { ...env, DATABASE_URL: 'mysql://localhost/x' } },
    );
    expect(code).toBe(EXIT.config);
    expect(stderr).toBe(
      'svc cli: configuration error: DATABASE_URL: must use postgres: or postgresql: (got mysql:)\n',
    );
  });
});
