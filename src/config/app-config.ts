import { accessSync, constants, statSync } from 'node:fs';
import * as path from 'node:path';
import { TrustProxy, parseTrustProxy } from './trust-proxy';

export type Role = 'all' | 'api' | 'worker';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

const ROLES: readonly Role[] = ['all', 'api', 'worker'];
const LOG_LEVELS: readonly LogLevel[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

/** Thrown at boot when an environment variable has a bad value; the message names the variable. */
/** A file the process must read (a typo stops the start, not the first click job that needs it). */
function readableFile(variable: string, file: string): string {
  try {
    accessSync(file, constants.R_OK);
    if (!statSync(file).isFile()) throw new Error('not a file');
  } catch {
    throw new ConfigError(variable, `${file} is not a readable file`);
  }
  return file;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** A budget of requests per hour, per project and per client address. */
export interface HourlyBudget {
  project: number;
  address: number;
}

/** The publishable key's budgets (AppConfig.publishableRateLimits). */
export interface PublishableRateLimits {
  /** url/retweet and url/share. */
  links: HourlyBudget;
  /** conversions/new. */
  conversions: HourlyBudget;
}

/**
 * The one typed configuration object. Nothing else in the code base reads process.env:
 * everything comes from here, validated once at boot.
 */
export class AppConfig {
  /** HTTP port (PORT). */
  readonly port: number;
  /** PostgreSQL connection string (DATABASE_URL); null → embedded PGlite under dataDir. */
  readonly databaseUrl: string | null;
  /** Folder for the embedded database and the mail outbox (DATA_DIR). */
  readonly dataDir: string;
  /** Redis connection string (REDIS_URL); null → jobs run in-process. */
  readonly redisUrl: string | null;
  /** Prefix of every Redis key this instance writes (REDIS_PREFIX). */
  readonly redisPrefix: string;
  /** The shared link domain every project may use (DEFAULT_DOMAIN). */
  readonly defaultDomain: string;
  /** Scheme of the links we hand out (PUBLIC_SCHEME). */
  readonly publicScheme: 'http' | 'https';
  readonly bootstrapSubscriptionKey: string | null;
  readonly bootstrapApplicationKey: string | null;
  readonly role: Role;
  readonly logLevel: LogLevel;
  /** SMTP transport URL for outgoing mail (SMTP_URL); null → mail is written to the outbox folder. */
  readonly smtpUrl: string | null;
  /** Sender of outgoing mail (MAIL_FROM). */
  readonly mailFrom: string;
  /** Create-API requests per hour per project (CREATE_RATE_LIMIT; default 8,000). */
  readonly createRateLimit: number;
  /** url/list, statistics and live-feed requests per hour per project (READ_RATE_LIMIT; default 3,600). */
  readonly readRateLimit: number;
  /**
   * The publishable key's budgets per hour, apart from the api_key's (docs/api.md, "Limits"):
   * retweet and share (PUBLISHABLE_LINK_RATE_LIMIT per project, PUBLISHABLE_LINK_ADDRESS_LIMIT per
   * client address) and conversions/new (PUBLISHABLE_CONVERSION_RATE_LIMIT,
   * PUBLISHABLE_CONVERSION_ADDRESS_LIMIT).
   */
  readonly publishableRateLimits: PublishableRateLimits;
  /** Tests only: the crawler may reach loopback addresses (CRAWLER_ALLOW_LOOPBACK). */
  readonly crawlerAllowLoopback: boolean;
  /** How long retweet waits for link unwrapping, in ms (UNWRAP_TIMEOUT_MS). */
  readonly unwrapTimeoutMs: number;
  /**
   * How a click's IP address is stored (CLICK_IP) in a project that sets no ip_storage (docs/api.md,
   * "Addresses"): full, anonymised (last octet / 80 bits zeroed) or none.
   */
  readonly clickIp: 'full' | 'anonymised' | 'none';
  /**
   * How many days a project's raw events are kept unless it sets retention_days (RETENTION_DAYS,
   * 1–36500; docs/api.md, "Retention"); null (unset): kept forever.
   */
  readonly retentionDays: number | null;
  /** An operator's GeoIP2/GeoLite2 City database file (GEOIP_DB); null → the shipped DB-IP. */
  readonly geoipDb: string | null;
  /**
   * Which proxies' X-Forwarded-For entries name the client (TRUST_PROXY): false, a hop count, or
   * trusted addresses and subnets (docs/operations.md, "Proxies").
   */
  readonly trustProxy: TrustProxy;
  /** Most entries of each process's in-memory link cache (REDIRECT_CACHE_SIZE). */
  readonly redirectCacheSize: number;
  /** Most megabytes of each process's in-memory link cache, entries weighed (REDIRECT_CACHE_MB). */
  readonly redirectCacheMb: number;
  /**
   * Not-found answers a second per client address answered at once, the rest of the second's
   * delayed (NOT_FOUND_RATE_LIMIT, default 50; 0: no brake per address; docs/operations.md,
   * "Floods of unknown paths").
   */
  readonly notFoundRateLimit: number;
  /** The same for all addresses together, per process (NOT_FOUND_INSTANCE_LIMIT, default 2,000; 0: none). */
  readonly notFoundInstanceLimit: number;
  /** How long a braked not-found answer waits, in ms (NOT_FOUND_DELAY_MS, default 1,000). */
  readonly notFoundDelayMs: number;
  /** ClickHouse server URL (CLICKHOUSE_URL, http(s)://user:password@host:8123); null → embedded chDB. */
  readonly clickhouseUrl: string | null;
  /** The analytics database (CLICKHOUSE_DATABASE). */
  readonly clickhouseDatabase: string;
  /** Folder of the embedded chDB engine (CHDB_DIR, default DATA_DIR/chdb); one per process. */
  readonly chdbDir: string;
  /** The event loop's busy %, above which statistics on chDB yield to redirects (STATS_YIELD_LOAD; 100: never). */
  readonly statsYieldLoad: number;
  /**
   * Most seconds one read of the analytics store may run (ANALYTICS_MAX_EXECUTION_SECONDS, its
   * max_execution_time; 0: no limit; docs/operations.md, "Statistics limits").
   */
  readonly analyticsMaxExecutionSeconds: number;
  /**
   * Most megabytes one read of the analytics store may use (ANALYTICS_MAX_MEMORY_MB, its
   * max_memory_usage; 0: no limit; docs/operations.md, "Statistics limits").
   */
  readonly analyticsMaxMemoryMb: number;
  /** Tests only: webhooks may point at plain-http loopback URLs (WEBHOOK_ALLOW_LOOPBACK). */
  readonly webhookAllowLoopback: boolean;
  /**
   * Delays before each retry of a failed webhook delivery, in ms (WEBHOOK_RETRY_DELAYS, durations
   * like 5s,5m,30m,2h,5h,10h,10h: the Standard Webhooks schedule); a delivery is tried once more
   * than there are delays.
   */
  readonly webhookRetryDelaysMs: number[];
  /** How long a webhook may fail without a success before it is disabled, in ms (WEBHOOK_DISABLE_AFTER, default 3d). */
  readonly webhookDisableAfterMs: number;
  /** How long one delivery may take, in ms (WEBHOOK_TIMEOUT_MS, default 10,000). */
  readonly webhookTimeoutMs: number;
  /** How long events and the delivery log are kept, in days (WEBHOOK_LOG_DAYS, default 7). */
  readonly webhookLogDays: number;
  /**
   * Events one webhook may have queued and not yet delivered (WEBHOOK_BACKLOG, default 10,000);
   * past it the newest are dropped and logged (docs/operations.md, "Webhooks").
   */
  readonly webhookBacklog: number;
  /** Test pings and redeliveries per hour per webhook, together (WEBHOOK_REPLAY_RATE_LIMIT, default 600). */
  readonly webhookReplayRateLimit: number;
  /** How many recent events per project a live stream can resume from (EVENTS_REPLAY_SIZE, default 1,000). */
  readonly eventsReplaySize: number;

  constructor(values: Omit<AppConfig, 'runsWorkers' | 'servesApi' | 'outboxDir' | 'pgliteDir'>) {
    Object.assign(this, values);
  }

  /** Whether this process runs the job processors. */
  get runsWorkers(): boolean {
    return this.role !== 'api';
  }

  /** Whether this process serves the public API (a worker serves only health and metrics). */
  get servesApi(): boolean {
    return this.role !== 'worker';
  }

  get outboxDir(): string {
    return path.join(this.dataDir, 'outbox');
  }

  get pgliteDir(): string {
    return path.join(this.dataDir, 'pglite');
  }
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function readUrl(env: Env, name: string, protocols: string[]): string | null {
  const value = read(env, name);
  if (value === undefined) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `"${value}" is not a URL`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')} (got ${url.protocol})`);
  }
  return value;
}

function readEnum<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = read(env, name);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

function readKey(env: Env, name: string): string | null {
  const value = read(env, name);
  if (value === undefined) return null;
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(value)) {
    throw new ConfigError(name, 'must be 16 to 128 characters of A-Z, a-z, 0-9, _ and -');
  }
  return value;
}

function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = read(env, name);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${value}")`);
  }
  return number;
}

/** A number from 0 to `max`, decimals allowed (a fraction of a second or of a megabyte). */
function readDecimal(env: Env, name: string, fallback: number, max: number): number {
  const value = read(env, name);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d{1,9}(\.\d{1,9})?$/.test(value) || number > max) {
    throw new ConfigError(name, `must be a number from 0 to ${max} (got "${value}")`);
  }
  return number;
}

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A duration like 250ms, 5s, 5m, 2h or 3d, in ms. */
function parseDuration(name: string, text: string): number {
  const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(text.trim());
  if (!match)
    throw new ConfigError(name, `"${text}" is not a duration like 500ms, 5s, 5m, 2h or 3d`);
  return Number(match[1]) * DURATION_UNITS[match[2]];
}

function readDurations(env: Env, name: string, fallback: string): number[] {
  const text = read(env, name) ?? fallback;
  const delays = text.split(',').map((part) => parseDuration(name, part));
  if (delays.length > 20) throw new ConfigError(name, 'at most 20 delays');
  return delays;
}

function readTrustProxy(env: Env): TrustProxy {
  const value = read(env, 'TRUST_PROXY');
  if (value === undefined) return false;
  try {
    return parseTrustProxy(value);
  } catch (error) {
    throw new ConfigError('TRUST_PROXY', (error as Error).message);
  }
}

const HOST_RE =
  /^(?=.{1,253}(:|$))[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/;

/** Reads and validates the environment; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): AppConfig {
  const portText = read(env, 'PORT') ?? '3000';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) {
    throw new ConfigError('PORT', `must be an integer from 1 to 65535 (got "${portText}")`);
  }
  const defaultDomain = (read(env, 'DEFAULT_DOMAIN') ?? `localhost:${port}`).toLowerCase();
  if (!HOST_RE.test(defaultDomain)) {
    throw new ConfigError(
      'DEFAULT_DOMAIN',
      `must be a hostname, optionally with :port (got "${defaultDomain}")`,
    );
  }
  const redisPrefix = read(env, 'REDIS_PREFIX') ?? 'svc';
  if (!/^[A-Za-z0-9_:.-]{1,64}$/.test(redisPrefix)) {
    throw new ConfigError('REDIS_PREFIX', 'must be 1 to 64 characters of A-Z, a-z, 0-9, _ : . -');
  }
  const databaseUrl = readUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = readUrl(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const role = readEnum(env, 'ROLE', ROLES, 'all');
  const clickhouseUrl = readUrl(env, 'CLICKHOUSE_URL', ['http:', 'https:']);
  if (role !== 'all' && (!databaseUrl || !redisUrl || !clickhouseUrl)) {
    throw new ConfigError(
      'ROLE',
      `"${role}" splits the service across processes, which needs DATABASE_URL, REDIS_URL and CLICKHOUSE_URL ` +
        '(the embedded PGlite and chDB serve one process)',
    );
  }
  const clickhouseDatabase = read(env, 'CLICKHOUSE_DATABASE') ?? 'svc';
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(clickhouseDatabase)) {
    throw new ConfigError(
      'CLICKHOUSE_DATABASE',
      'must be 1 to 64 characters of A-Z, a-z, 0-9 and _, not starting with a digit',
    );
  }
  const dataDir = path.resolve(read(env, 'DATA_DIR') ?? './data');
  const subscriptionKey = readKey(env, 'BOOTSTRAP_SUBSCRIPTION_KEY');
  const applicationKey = readKey(env, 'BOOTSTRAP_APPLICATION_KEY');
  if ((subscriptionKey === null) !== (applicationKey === null)) {
    throw new ConfigError(
      subscriptionKey === null ? 'BOOTSTRAP_SUBSCRIPTION_KEY' : 'BOOTSTRAP_APPLICATION_KEY',
      'BOOTSTRAP_SUBSCRIPTION_KEY and BOOTSTRAP_APPLICATION_KEY must be given together',
    );
  }
  const geoipDb = read(env, 'GEOIP_DB');
  const mailFrom = read(env, 'MAIL_FROM') ?? `svc <no-reply@${defaultDomain.replace(/:\d+$/, '')}>`;
  const createRateLimit = readInt(env, 'CREATE_RATE_LIMIT', 8000, 1, 10_000_000);
  const unwrapTimeoutMs = readInt(env, 'UNWRAP_TIMEOUT_MS', 8000, 100, 60_000);
  const allowLoopback =
    readEnum(env, 'CRAWLER_ALLOW_LOOPBACK', ['true', 'false'] as const, 'false') === 'true';
  return new AppConfig({
    clickIp: readEnum(env, 'CLICK_IP', ['full', 'anonymised', 'none'] as const, 'anonymised'),
    retentionDays:
      read(env, 'RETENTION_DAYS') === undefined
        ? null
        : readInt(env, 'RETENTION_DAYS', 0, 1, 36_500),
    geoipDb: geoipDb === undefined ? null : readableFile('GEOIP_DB', path.resolve(geoipDb)),
    trustProxy: readTrustProxy(env),
    redirectCacheSize: readInt(env, 'REDIRECT_CACHE_SIZE', 200_000, 100, 10_000_000),
    redirectCacheMb: readInt(env, 'REDIRECT_CACHE_MB', 128, 1, 65_536),
    notFoundRateLimit: readInt(env, 'NOT_FOUND_RATE_LIMIT', 50, 0, 1_000_000),
    notFoundInstanceLimit: readInt(env, 'NOT_FOUND_INSTANCE_LIMIT', 2000, 0, 10_000_000),
    notFoundDelayMs: readInt(env, 'NOT_FOUND_DELAY_MS', 1000, 1, 60_000),
    readRateLimit: readInt(env, 'READ_RATE_LIMIT', 3600, 1, 10_000_000),
    publishableRateLimits: {
      links: {
        project: readInt(env, 'PUBLISHABLE_LINK_RATE_LIMIT', 2000, 1, 10_000_000),
        address: readInt(env, 'PUBLISHABLE_LINK_ADDRESS_LIMIT', 60, 1, 10_000_000),
      },
      conversions: {
        project: readInt(env, 'PUBLISHABLE_CONVERSION_RATE_LIMIT', 360_000, 1, 100_000_000),
        address: readInt(env, 'PUBLISHABLE_CONVERSION_ADDRESS_LIMIT', 1200, 1, 10_000_000),
      },
    },
    createRateLimit,
    crawlerAllowLoopback: allowLoopback,
    unwrapTimeoutMs,
    port,
    databaseUrl,
    dataDir,
    clickhouseUrl,
    clickhouseDatabase,
    chdbDir: path.resolve(read(env, 'CHDB_DIR') ?? path.join(dataDir, 'chdb')),
    statsYieldLoad: readInt(env, 'STATS_YIELD_LOAD', 50, 0, 100),
    analyticsMaxExecutionSeconds: readDecimal(env, 'ANALYTICS_MAX_EXECUTION_SECONDS', 20, 3600),
    analyticsMaxMemoryMb: readDecimal(env, 'ANALYTICS_MAX_MEMORY_MB', 1024, 1_048_576),
    webhookAllowLoopback:
      readEnum(env, 'WEBHOOK_ALLOW_LOOPBACK', ['true', 'false'] as const, 'false') === 'true',
    webhookRetryDelaysMs: readDurations(env, 'WEBHOOK_RETRY_DELAYS', '5s,5m,30m,2h,5h,10h,10h'),
    webhookDisableAfterMs: parseDuration(
      'WEBHOOK_DISABLE_AFTER',
      read(env, 'WEBHOOK_DISABLE_AFTER') ?? '3d',
    ),
    webhookTimeoutMs: readInt(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    webhookLogDays: readInt(env, 'WEBHOOK_LOG_DAYS', 7, 1, 365),
    webhookBacklog: readInt(env, 'WEBHOOK_BACKLOG', 10_000, 100, 10_000_000),
    webhookReplayRateLimit: readInt(env, 'WEBHOOK_REPLAY_RATE_LIMIT', 600, 1, 1_000_000),
    eventsReplaySize: readInt(env, 'EVENTS_REPLAY_SIZE', 1000, 0, 100_000),
    redisUrl,
    redisPrefix,
    defaultDomain,
    publicScheme: readEnum(env, 'PUBLIC_SCHEME', ['http', 'https'] as const, 'http'),
    bootstrapSubscriptionKey: subscriptionKey,
    bootstrapApplicationKey: applicationKey,
    role,
    logLevel: readEnum(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    smtpUrl: readUrl(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom,
  });
}
