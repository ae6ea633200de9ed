import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '../../src/config/app-config';
import { openDataSource } from '../../src/database/data-source';
import { TEST_DATABASE_URL, databaseUrl, stampedName } from './env';

const STALE_AFTER_SECONDS = 3 * 3600;

/** Migrations run once into this run's template database; every test file clones it. */
export default async function globalSetup(): Promise<void> {
  const template = stampedName('tpl', randomBytes(4).toString('hex'));
  const admin = new Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    // Leftovers of interrupted runs, old enough not to belong to a run in progress.
    const stale = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname ~ '^svc_(tpl|t)_[0-9]+_'`,
    );
    const now = Date.now() / 1000;
    for (const { datname } of stale.rows) {
      if (now - Number(datname.split('_')[2]) > STALE_AFTER_SECONDS) {
        await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      }
    }
    await admin.query(`CREATE DATABASE "${template}"`);
  } finally {
    await admin.end();
  }
  const config = loadConfig({ DATABASE_URL: databaseUrl(template), LOG_LEVEL: 'silent' });
  const dataSource = await openDataSource(config);
  await dataSource.destroy();
  process.env.SVC_TEST_TEMPLATE = template;
  // The embedded analytics engines of this run's workers (test/support/app.ts: testChdbEnv).
  process.env.SVC_TEST_CHDB_ROOT = mkdtempSync(path.join(tmpdir(), 'svc-test-chdb-'));
}
