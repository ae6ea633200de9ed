import { DynamicModule, INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AnalyticsClient } from '../analytics/analytics-client';
import { AnalyticsModule } from '../analytics/analytics.module';
import { createApp } from '../app.factory';
import { BackfillProgress, BackfillService } from './backfill.service';
import { runImport } from './import-command';
import { ClicksRepository } from '../clicks/clicks.repository';
import { ClicksService } from '../clicks/clicks.service';
import { AppError } from '../common/app-error';
import { AppConfig, ConfigError, loadConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { EnrichmentModule } from '../enrichment/enrichment.module';
import { IMPORT_FORMATS } from '../links/import/import-formats';
import { LinkEntity } from '../links/link.entity';
import { MetricsModule } from '../metrics/metrics.module';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import type { KeyHolder } from '../subscriptions/subscriptions.repository';
import { SubscriptionsService } from '../subscriptions/subscriptions.service';

/** Where the CLI writes; the tests capture both streams. */
export interface CliOutput {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal (the progress bar redraws in place). */
  isTTY?: boolean;
}

export interface CliOptions {
  /** The environment to read the configuration from (default: the process environment). */
  env?: Record<string, string | undefined>;
}

/** Exit codes (sysexits.h where one fits). */
export const EXIT = { ok: 0, failed: 1, usage: 2, config: 78 } as const;

type Record_ = Record<string, string>;

interface CommandSpec {
  summary: string;
  /** Arguments before the options, in order (name → what it is), all required. */
  positional?: Record<string, string>;
  /** Options the command requires (name → what it is). */
  required: Record<string, string>;
  /** Options it may take. */
  optional?: Record<string, string>;
  /** Whether the command needs the analytics store (opened only for those). */
  analytics?: boolean;
  /**
   * Whether it runs the whole application, without its listener (import: a link made here gets
   * what one made through the API gets: mirror, chains, events, the other instances told).
   */
  application?: boolean;
  run(
    context: INestApplicationContext,
    options: Record_,
    out: CliOutput,
  ): Promise<Record_ | Record_[]>;
}

/** subscription:rotate-key and application:rotate-key. */
function rotateKeyCommand(holder: KeyHolder): CommandSpec {
  return {
    summary: `Issues a new ${holder}_key; the old one stops working at once.`,
    required: { id: `${holder} id` },
    async run(context, { id }) {
      return {
        [`${holder}_id`]: id,
        [`${holder}_key`]: await context.get(SubscriptionsService).rotateKey(holder, id),
      };
    },
  };
}

/** A progress bar on stderr: redrawn in place on a terminal, a line per tenth otherwise. */
function progressBar(
  out: CliOutput,
  tty: boolean,
): (progress: Pick<BackfillProgress, 'done' | 'total'> & { step: string }) => void {
  let lastTenth = -1;
  return ({ step, done, total }) => {
    const share = total === 0 ? 1 : Math.min(1, done / total);
    const bar = `${'#'.repeat(Math.round(share * 30)).padEnd(30, '.')}`;
    const line = `${step.padEnd(12)} [${bar}] ${(share * 100).toFixed(1).padStart(5)}% ${done.toLocaleString('en')}/${total.toLocaleString('en')}`;
    if (tty) {
      out.stderr(`\r${line}${share >= 1 ? '\n' : ''}`);
    } else if (Math.floor(share * 10) !== lastTenth || share >= 1) {
      lastTenth = Math.floor(share * 10);
      out.stderr(`${line}\n`);
    }
  };
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const COMMANDS: Record<string, CommandSpec> = {
  'subscription:create': {
    summary:
      'Creates a subscription with one authorised application; prints both keys (shown only now).',
    required: { name: 'name of the subscription' },
    async run(context, { name }) {
      const issued = await context.get(SubscriptionsService).createSubscription(name);
      return {
        subscription_id: issued.subscription.id,
        subscription_name: issued.subscription.name,
        subscription_key: issued.subscriptionKey,
        application_id: issued.application.id,
        application_name: issued.application.name,
        application_key: issued.applicationKey,
      };
    },
  },
  'subscription:list': {
    summary: 'Lists the subscriptions (keys are stored hashed and cannot be shown).',
    required: {},
    async run(context) {
      const subscriptions = await context.get(SubscriptionsService).listSubscriptions();
      return subscriptions.map((s) => ({
        id: s.id,
        name: s.name,
        created_at: s.createdAt.toISOString(),
      }));
    },
  },
  'subscription:rotate-key': rotateKeyCommand('subscription'),
  'application:create': {
    summary:
      'Authorises a new application on a subscription; prints its application_key (shown only now).',
    required: { subscription: 'subscription id', name: 'name of the application' },
    async run(context, { subscription, name }) {
      const { application, applicationKey } = await context
        .get(SubscriptionsService)
        .createApplication(subscription, name);
      return {
        application_id: application.id,
        application_name: application.name,
        subscription_id: application.subscriptionId,
        application_key: applicationKey,
      };
    },
  },
  'application:list': {
    summary: 'Lists the applications of a subscription.',
    required: { subscription: 'subscription id' },
    async run(context, { subscription }) {
      const applications = await context.get(SubscriptionsService).listApplications(subscription);
      return applications.map((a) => ({
        id: a.id,
        name: a.name,
        created_at: a.createdAt.toISOString(),
      }));
    },
  },
  'analytics:backfill': {
    summary:
      "Copies the links, raw clicks and conversions PostgreSQL kept before statistics moved to the analytics store into it, gives the links made before share chains theirs, then stamps the events stored before stamps with their link's attributes, adds those stored before chain stamps to the chain figures and stamps them with their chain, and describes those stored before click dimensions (place, device, referring site); idempotent and resumable (run it again after an interruption).",
    required: {},
    analytics: true,
    async run(context, _options, out) {
      const copied = await context.get(BackfillService).run(progressBar(out, out.isTTY ?? false));
      return {
        links: String(copied.links),
        chains: String(copied.chains),
        clicks: String(copied.clicks),
        conversions: String(copied.conversions),
        stamps: String(copied.stamps),
        chain_stamps: String(copied.chain_stamps),
        dimensions: String(copied.dimensions),
      };
    },
  },
  'application:rotate-key': rotateKeyCommand('application'),
  import: {
    summary:
      'Imports the links of another shortener\'s export into the project (docs/operations.md, "Importing links"): each keeps its short path on its domain (--domain: another of the project\'s); a second run makes nothing. Prints made, skipped and each rejected line with its reason.',
    positional: { format: IMPORT_FORMATS.join('|'), file: 'path of the file' },
    required: { project: 'project api_key' },
    optional: { domain: "the links' domain" },
    application: true,
    run: (context, options, out) =>
      runImport(context, options, progressBar(out, out.isTTY ?? false)),
  },
};

/** Options that take an id are checked here, so a typo is a usage error and not a database error. */
const ID_OPTIONS = new Set(['id', 'subscription']);

class UsageError extends Error {}

interface Parsed {
  command: string;
  options: Record_;
  json: boolean;
}

/** `<command> [--name value | --name=value]... [--json]`; throws UsageError on anything else. */
export function parseArguments(argv: readonly string[]): Parsed | 'help' {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('no command given');
  if (command === 'help' || command === '--help' || command === '-h') return 'help';
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(`unknown command "${command}"`);
  const options: Record_ = {};
  let json = false;
  const positional = Object.keys(spec.positional ?? {});
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    const match = /^--([a-z][a-z-]*)(?:=(.*))?$/s.exec(arg);
    if (!match && positional.length > 0 && !arg.startsWith('-')) {
      options[positional.shift()!] = arg;
      continue;
    }
    if (!match) throw new UsageError(`unexpected argument "${arg}"`);
    const [, name, inline] = match;
    if (name === 'json') {
      if (inline !== undefined) throw new UsageError('--json takes no value');
      json = true;
      continue;
    }
    if (!(name in spec.required) && !(name in (spec.optional ?? {}))) {
      throw new UsageError(`${command} has no option --${name}`);
    }
    if (name in options) throw new UsageError(`--${name} given twice`);
    let value = inline;
    if (value === undefined) {
      const next = rest[i + 1];
      if (next === undefined || next.startsWith('--'))
        throw new UsageError(`--${name} needs a value`);
      value = next;
      i++;
    }
    value = value.trim();
    if (value === '') throw new UsageError(`--${name} must not be empty`);
    if (ID_OPTIONS.has(name) && !UUID_RE.test(value)) {
      throw new UsageError(`--${name} must be an id (a UUID), got "${value}"`);
    }
    options[name] = value;
  }
  if (positional.length > 0) {
    throw new UsageError(`${command} needs <${spec.positional![positional[0]]}>`);
  }
  for (const name of Object.keys(spec.required)) {
    if (!(name in options))
      throw new UsageError(`${command} needs --${name} <${spec.required[name]}>`);
  }
  return { command, options, json };
}

export function usage(): string {
  const lines = [
    'Usage: npm run cli -- <command> [options] [--json]   (npm run svc -- … is the same)',
    '',
    'Administers subscriptions and their applications on the database the service uses, copies',
    'what earlier versions kept in PostgreSQL into the analytics store (analytics:backfill) and',
    "imports other shorteners' links (import) (DATABASE_URL, or the embedded database under",
    'DATA_DIR: stop the service first then).',
    '',
    'Commands:',
  ];
  for (const [name, spec] of Object.entries(COMMANDS)) {
    const options = [
      ...Object.values(spec.positional ?? {}).map((what) => ` <${what}>`),
      ...Object.entries(spec.required).map(([option, what]) => ` --${option} <${what}>`),
      ...Object.entries(spec.optional ?? {}).map(([option, what]) => ` [--${option} <${what}>]`),
    ].join('');
    lines.push(`  ${name}${options}`, `      ${spec.summary}`);
  }
  lines.push(
    '  help',
    '      Shows this text.',
    '',
    'Output is "key: value" lines (a blank line between records); --json prints JSON instead.',
    'Exit codes: 0 done, 1 failed (e.g. unknown id), 2 bad command or arguments, 78 bad configuration.',
    '',
  );
  return lines.join('\n');
}

function render(result: Record_ | Record_[], json: boolean): string {
  if (json) return `${JSON.stringify(result, null, 2)}\n`;
  const records = Array.isArray(result) ? result : [result];
  return records
    .map((record) =>
      Object.entries(record)
        .map(([key, value]) => `${key}: ${value}\n`)
        .join(''),
    )
    .join('\n');
}

/** Only what the commands need: no HTTP, no queues, no first-start bootstrap. */
@Module({})
class CliModule {
  static forRoot(config: AppConfig, analytics: boolean): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        SubscriptionsModule,
        // The backfill reads links as entities; the links module, with its HTTP side, is not loaded.
        ...(analytics
          ? [
              MetricsModule,
              AnalyticsModule,
              EnrichmentModule,
              TypeOrmModule.forFeature([LinkEntity]),
            ]
          : []),
      ],
      providers: analytics ? [ClicksRepository, ClicksService, BackfillService] : [],
    };
  }
}

/**
 * The application without its listener, its log on stderr. With Redis it runs no workers (the
 * service's take the jobs its links cause); with the embedded stores the service is stopped, and
 * it runs them itself.
 */
async function applicationContext(
  config: AppConfig,
  out: CliOutput,
): Promise<INestApplicationContext> {
  const role = config.redisUrl ? 'api' : config.role;
  const app = await createApp(new AppConfig({ ...config, role }), {
    logDestination: { write: (line: string) => out.stderr(line) },
  });
  await app.init();
  return app;
}

/** Parses argv, runs one command and returns the process exit code. */
export async function runCli(
  argv: readonly string[],
  out: CliOutput,
  options: CliOptions = {},
): Promise<number> {
  let parsed: Parsed | 'help';
  try {
    parsed = parseArguments(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    out.stderr(`svc cli: ${error.message}\n\n${usage()}`);
    return EXIT.usage;
  }
  if (parsed === 'help') {
    out.stdout(usage());
    return EXIT.ok;
  }
  let config: AppConfig;
  try {
    config = loadConfig(options.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    out.stderr(`svc cli: configuration error: ${error.message}\n`);
    return EXIT.config;
  }
  const spec = COMMANDS[parsed.command];
  let context: INestApplicationContext | undefined;
  try {
    context = spec.application
      ? await applicationContext(config, out)
      : await NestFactory.createApplicationContext(
          CliModule.forRoot(config, spec.analytics ?? false),
          {
            logger: ['error', 'fatal'],
            abortOnError: false,
          },
        );
    // An operator's command runs to its end: the limits of reads are the API's (docs/operations.md, "Statistics limits").
    if (spec.analytics) context.get(AnalyticsClient).limits = { seconds: 0, megabytes: 0 };
    const result = await spec.run(context, parsed.options, out);
    out.stdout(render(result, parsed.json));
    return EXIT.ok;
  } catch (error) {
    const message =
      error instanceof AppError ? error.message : String((error as Error)?.message ?? error);
    out.stderr(`svc cli: ${parsed.command} failed: ${message}\n`);
    return EXIT.failed;
  } finally {
    await context?.close();
  }
}
