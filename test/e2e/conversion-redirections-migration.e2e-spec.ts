import { DataSource } from 'typeorm';
import { migratedDatabase, undoThrough } from '../support/migrations';

/** Migration 1763950000000: conversions recorded without a redirection id get one; the column then requires it. */
describe('migration: every conversion has a redirection_id', () => {
  let dataSource: DataSource;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ dataSource, drop } = await migratedDatabase());
  });
  afterAll(() => drop());

  it('fills the ids conversions lacked, keeps the others, and makes the column NOT NULL (down undoes that)', async () => {
    // Back to just before this migration (later ones undone first).
    await undoThrough(dataSource, 'ConversionRedirections1763950000000');
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
