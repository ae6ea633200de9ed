import { DataSource, DataSourceOptions } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { MIGRATIONS } from './migrations';
import { pgliteDriver } from './pglite';
import { QueryLogger } from './query-logger';
import { SnakeNamingStrategy } from './snake-naming.strategy';

/** Idle time before TCP keepalive probes start on a PostgreSQL connection. */
export const KEEPALIVE_DELAY_MS = 10_000;

/**
 * One set of options for the app, the CLI and the tests: migrations always (plain SQL: they need no
 * entity), never synchronize. The application's entities are its modules' (DatabaseModule).
 */
export function dataSourceOptions(config: AppConfig, url = config.databaseUrl): DataSourceOptions {
  const common = {
    type: 'postgres' as const,
    migrations: MIGRATIONS,
    migrationsRun: false,
    migrationsTransactionMode: 'each' as const,
    synchronize: false,
    installExtensions: false,
    uuidExtension: 'pgcrypto' as const,
    namingStrategy: new SnakeNamingStrategy(),
    logging: ['error' as const, 'warn' as const, 'migration' as const],
    logger: new QueryLogger(),
  };
  if (url) {
    // JIT off: it only kicks in on the big stats aggregations, where compiling (up to ~0.9 s on
    // bench:stats' totals) costs more than it saves. A server that does not answer fails a
    // connection attempt after 5 s instead of hanging the request. TCP keepalive probes a
    // connection after 10 s without traffic, every second, ten times (libuv's interval and count):
    // a server or network that vanished while a query waits for its answer (no reset ever comes)
    // fails it after about 20 s, its connection leaves the pool and the job retries, instead of
    // waiting forever.
    return {
      ...common,
      url,
      poolSize: 10,
      connectTimeoutMS: 5000,
      applicationName: `svc-${config.role}`,
      extra: {
        options: '-c jit=off',
        keepAlive: true,
        keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
      },
    };
  }
  return { ...common, driver: pgliteDriver(config.pgliteDir) };
}

const MIGRATION_LOCK = 7_361_245_001;

/** Opens the database and brings its schema up to date. */
export async function openDataSource(config: AppConfig, url?: string | null): Promise<DataSource> {
  return initializeAndMigrate(new DataSource(dataSourceOptions(config, url ?? config.databaseUrl)));
}

/** Connects and runs pending migrations, one process at a time on a shared server. */
export async function initializeAndMigrate(dataSource: DataSource): Promise<DataSource> {
  await dataSource.initialize();
  if (!('url' in dataSource.options && dataSource.options.url)) {
    await dataSource.runMigrations({ transaction: 'each' });
    return dataSource;
  }
  // Several processes may start at once (api + worker): one migrates, the others wait for it.
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
  return dataSource;
}
