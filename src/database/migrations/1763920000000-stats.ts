import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What statistics read besides the hourly click rollups: conversions per link, hour and type
 * (fed by the conversions feature), and the index that selects links by shared time.
 */
export class Stats1763920000000 implements MigrationInterface {
  name = 'Stats1763920000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE link_conversions_hourly (
        link_id bigint NOT NULL,
        hour timestamptz NOT NULL,
        type text NOT NULL,
        project_id uuid NOT NULL,
        count integer NOT NULL DEFAULT 0,
        value bigint NOT NULL DEFAULT 0,
        CONSTRAINT pk_link_conversions_hourly PRIMARY KEY (link_id, hour, type),
        CONSTRAINT ck_link_conversions_hourly_type CHECK (type IN ('pageview', 'goal_1', 'goal_2', 'goal_3', 'goal_4', 'goal_5', 'goal_6', 'goal_7', 'goal_8', 'goal_9', 'goal_10')),
        CONSTRAINT fk_link_conversions_hourly_link FOREIGN KEY (link_id) REFERENCES links (id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX ix_link_conversions_hourly_project_hour ON link_conversions_hourly (project_id, hour)`,
    );
    // Totals select links by the time they were shared: the post's time when known, else creation.
    await q.query(
      `CREATE INDEX ix_links_project_shared_at ON links (project_id, (COALESCE(service_postid_shared_at, created_at)))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_links_project_shared_at`);
    await q.query(`DROP TABLE link_conversions_hourly`);
  }
}
