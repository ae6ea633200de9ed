import { rmSync } from 'node:fs';
import { Client } from 'pg';
import { TEST_DATABASE_URL } from './env';

export default async function globalTeardown(): Promise<void> {
  const chdbRoot = process.env.SVC_TEST_CHDB_ROOT;
  if (chdbRoot) rmSync(chdbRoot, { recursive: true, force: true });
  const template = process.env.SVC_TEST_TEMPLATE;
  if (!template) return;
  const admin = new Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
