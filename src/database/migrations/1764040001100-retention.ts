import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retention (docs/api.md, "Retention"; docs/architecture.md, "Retention"):
 *
 * - `projects.retention_days`: how many days the project's raw events are kept (1–36500); NULL:
 *   the instance's RETENTION_DAYS (unset there: forever), so that nothing changes for a project
 *   that never set it.
 * - `retention_state`: per project, how far its events are retired (`retired_until`: every raw
 *   event before it is gone, its rollups kept) and how far its rollups are written
 *   (`rolled_until`, ahead of `retired_until` while a chunk's raw rows are being deleted), so
 *   that the periodic job resumes where it stopped.
 * - An index of conversion records by project and time, for the job's bounded deletes.
 */
export class Retention1764040001100 implements MigrationInterface {
  name = 'Retention1764040001100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE projects
        ADD COLUMN retention_days integer NULL
          CONSTRAINT ck_projects_retention_days CHECK (retention_days BETWEEN 1 AND 36500)`);
    await q.query(`
      CREATE TABLE retention_state (
        project_id uuid NOT NULL,
        retired_until timestamptz NOT NULL,
        rolled_until timestamptz NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_retention_state PRIMARY KEY (project_id),
        CONSTRAINT fk_retention_state_project FOREIGN KEY (project_id)
          REFERENCES projects (id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX ix_conversions_project_time ON conversions (project_id, converted_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_conversions_project_time`);
    await q.query(`DROP TABLE retention_state`);
    await q.query(`ALTER TABLE projects DROP COLUMN retention_days`);
  }
}
