import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { dataSourceOptions } from '../../src/database/data-source';
import { createTestDatabase, dropTestDatabase } from './app';
import { databaseUrl } from './env';

/** A scratch database with every migration run (as the service starts it), for a migration's test. */
export async function migratedDatabase(): Promise<{
  dataSource: DataSource;
  drop: () => Promise<void>;
}> {
  const name = await createTestDatabase();
  const url = databaseUrl(name);
  const dataSource = new DataSource(dataSourceOptions(loadConfig({ DATABASE_URL: url }), url));
  await dataSource.initialize();
  return {
    dataSource,
    drop: async () => {
      await dataSource.destroy();
      await dropTestDatabase(name);
    },
  };
}

/** The newest migration run. */
export async function lastMigration(dataSource: DataSource): Promise<string> {
  const [{ name }] = await dataSource.query<{ name: string }[]>(
    'SELECT name FROM migrations ORDER BY id DESC LIMIT 1',
  );
  return name;
}

/** Undoes migrations, newest first, through `name`: the schema as it was just before it. */
export async function undoThrough(dataSource: DataSource, name: string): Promise<void> {
  while ((await lastMigration(dataSource)) !== name) {
    await dataSource.undoLastMigration({ transaction: 'each' });
  }
  await dataSource.undoLastMigration({ transaction: 'each' });
}
