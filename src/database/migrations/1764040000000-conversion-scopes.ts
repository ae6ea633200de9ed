import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The scope in which a conversion's account_conversion_id is unique (docs/api.md, "Conversions and
 * the tracking script", idempotency): '' for conversions recorded with the project's api_key (every
 * conversion before this migration), `session:<session_id>` for the publishable key with a
 * session, NULL for the publishable key without one (not deduplicated). So a page's key cannot
 * claim an order number before the server's genuine conversion, nor another visitor's.
 */
export class ConversionScopes1764040000000 implements MigrationInterface {
  name = 'ConversionScopes1764040000000';

  async up(q: QueryRunner): Promise<void> {
    // A constant default is kept in the catalogue: no rewrite of the table.
    await q.query(`ALTER TABLE conversions ADD COLUMN idempotency_scope text NULL DEFAULT ''`);
    await q.query(
      `CREATE UNIQUE INDEX uq_conversions_account_scope ON conversions (project_id, idempotency_scope, account_conversion_id)
       WHERE account_conversion_id IS NOT NULL AND idempotency_scope IS NOT NULL`,
    );
    await q.query(`DROP INDEX uq_conversions_account_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    // One conversion per project and account_conversion_id again: a later one of the same id (from
    // another scope) keeps its figures and loses the id.
    await q.query(`
      UPDATE conversions c SET account_conversion_id = NULL
      WHERE account_conversion_id IS NOT NULL AND EXISTS (
        SELECT 1 FROM conversions e
        WHERE e.project_id = c.project_id AND e.account_conversion_id = c.account_conversion_id
          AND (e.converted_at, e.id) < (c.converted_at, c.id))`);
    await q.query(
      `CREATE UNIQUE INDEX uq_conversions_account_id ON conversions (project_id, account_conversion_id) WHERE account_conversion_id IS NOT NULL`,
    );
    await q.query(`DROP INDEX uq_conversions_account_scope`);
    await q.query(`ALTER TABLE conversions DROP COLUMN idempotency_scope`);
  }
}
