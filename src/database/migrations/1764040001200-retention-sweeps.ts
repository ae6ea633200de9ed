import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retention's sweeps (docs/architecture.md, "Retention"): `retention_state.sweep_token`, the token
 * of the project's sweep of late events under way (null: none), saved before the sweep's first
 * write so that a sweep stopped midway resumes with the same set of events.
 */
export class RetentionSweeps1764040001200 implements MigrationInterface {
  name = 'RetentionSweeps1764040001200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE retention_state ADD COLUMN sweep_token uuid NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE retention_state DROP COLUMN sweep_token`);
  }
}
