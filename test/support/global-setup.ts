import 'reflect-metadata';
import { Client } from 'pg';
import { loadConfig } from '../../src/config/app-config';
import { openDataSource } from '../../src/database/data-source';
import { TEMPLATE_DATABASE, TEST_DATABASE_URL, databaseUrl } from './env';

/** Migrations run once into a template database; every test file clones it (test/support/app.ts). */
export default async function globalSetup(): Promise<void> {
  const admin = new Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    // Leftovers of interrupted runs.
    const stale = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'svc_t_%' OR datname = $1`,
      [TEMPLATE_DATABASE],
    );
    for (const { datname } of stale.rows) {
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
    await admin.query(`CREATE DATABASE "${TEMPLATE_DATABASE}"`);
  } finally {
    await admin.end();
  }
  const config = loadConfig({ DATABASE_URL: databaseUrl(TEMPLATE_DATABASE), LOG_LEVEL: 'silent' });
  const dataSource = await openDataSource(config);
  await dataSource.destroy();
}
