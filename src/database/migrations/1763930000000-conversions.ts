import { MigrationInterface, QueryRunner } from 'typeorm';

/** Recorded conversions; stats read their hourly rollup, link_conversions_hourly. */
export class Conversions1763930000000 implements MigrationInterface {
  name = 'Conversions1763930000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE conversions (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL,
        link_id bigint NOT NULL,
        svc_id text NOT NULL,
        type text NOT NULL,
        value bigint NOT NULL DEFAULT 0,
        converted_at timestamptz NOT NULL,
        account_conversion_id text NULL,
        account_user_id text NULL,
        clicker_id text NULL,
        href text NULL,
        ip inet NULL,
        language text NULL,
        redirection_id uuid NULL,
        referrer text NULL,
        session_id text NULL,
        user_agent text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_conversions PRIMARY KEY (id),
        CONSTRAINT ck_conversions_type CHECK (type IN ('pageview', 'goal_1', 'goal_2', 'goal_3', 'goal_4', 'goal_5')),
        CONSTRAINT fk_conversions_project FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE CASCADE,
        CONSTRAINT fk_conversions_link FOREIGN KEY (link_id) REFERENCES links (id) ON DELETE CASCADE
      )`);
    // A repeated account_conversion_id of a project returns the first conversion.
    await q.query(
      `CREATE UNIQUE INDEX uq_conversions_account_id ON conversions (project_id, account_conversion_id) WHERE account_conversion_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX ix_conversions_session ON conversions (project_id, session_id) WHERE session_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE conversions`);
  }
}
