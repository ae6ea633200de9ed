import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { dataSourceOptions } from '../../src/database/data-source';
import { createTestDatabase, dropTestDatabase } from '../support/app';
import { databaseUrl } from '../support/env';

/** Migration 1763950000000: conversions recorded without a redirection id get one; the column then requires it. */
describe('migration: every conversion has a redirection_id', () => {
  let name: string;
  let dataSource: DataSource;
  beforeAll(async () => {
    name = await createTestDatabase();
    const url = databaseUrl(name);
    dataSource = new DataSource(dataSourceOptions(loadConfig({ DATABASE_URL: url }), url));
    await dataSource.initialize();
  });
  afterAll(async () => {
    await dataSource.destroy();
    await dropTestDatabase(name);
  });

  it('fills the ids conversions lacked, keeps the others, and makes the column NOT NULL (down undoes that)', async () => {
    // Back to just before this migration (later ones undone first).
    const last = async () =>
      (
        await dataSource.query<{ name: string }[]>(
          `SELECT name FROM migrations ORDER BY id DESC LIMIT 1`,
        )
      )[0].name;
    while ((await last()) !== 'ConversionRedirections1763950000000')
      await dataSource.undoLastMigration({ transaction: 'each' });
    await dataSource.undoLastMigration({ transaction: 'each' });
    const insert = (redirection: string | null) =>
      dataSource.query(
        `INSERT INTO conversions (project_id, link_id, svc_id, type, converted_at, redirection_id)
         VALUES (gen_random_uuid(), 1, 'svc.test_x', 'pageview', now(), $1) RETURNING id`,
        [redirection],
      );
    await dataSource.query(`SET session_replication_role = replica`);
    const kept = '0191e0a1-0000-7000-8000-00000000beef';
    const [[{ id: lacking }], [{ id: having }]] = [await insert(null), await insert(kept)];
    await dataSource.query(`SET session_replication_role = DEFAULT`);
    await dataSource.runMigrations({ transaction: 'each' });
    const rows = await dataSource.query<{ id: string; redirection_id: string | null }[]>(
      `SELECT id, redirection_id FROM conversions WHERE id = ANY($1::uuid[])`,
      [[lacking, having]],
    );
    const byId = Object.fromEntries(rows.map((r) => [r.id, r.redirection_id]));
    expect(byId[lacking]).toMatch(/^[0-9a-f-]{36}$/);
    expect(byId[having]).toBe(kept);
    await expect(insert(null)).rejects.toThrow(/null value in column "redirection_id"/);
  });
});
