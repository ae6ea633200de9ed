import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every conversion has a redirection_id, always a string (docs/api.md, "Conversions and the
 * tracking script"): conversions recorded without a click found get a new id, as the service now
 * gives them.
 */
export class ConversionRedirections1763950000000 implements MigrationInterface {
  name = 'ConversionRedirections1763950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE conversions SET redirection_id = gen_random_uuid() WHERE redirection_id IS NULL`,
    );
    await q.query(`ALTER TABLE conversions ALTER COLUMN redirection_id SET NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE conversions ALTER COLUMN redirection_id DROP NOT NULL`);
  }
}
