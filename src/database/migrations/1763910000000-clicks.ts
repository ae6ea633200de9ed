import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Raw clicks (partitioned by month, idempotent by click id) and the hourly rollups stats read.
 * Monthly partitions are created ahead by the click processor (ClicksRepository.ensurePartitions);
 * the default partition only catches clicks outside every created month.
 */
export class Clicks1763910000000 implements MigrationInterface {
  name = 'Clicks1763910000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE clicks (
        click_id uuid NOT NULL,
        clicked_at timestamptz NOT NULL,
        link_id bigint NOT NULL,
        project_id uuid NOT NULL,
        referrer text NULL,
        user_agent text NULL,
        ip inet NULL,
        is_bot boolean NOT NULL DEFAULT false,
        CONSTRAINT pk_clicks PRIMARY KEY (click_id, clicked_at)
      ) PARTITION BY RANGE (clicked_at)`);
    await q.query(`CREATE TABLE clicks_default PARTITION OF clicks DEFAULT`);
    await q.query(`CREATE INDEX ix_clicks_link_time ON clicks (link_id, clicked_at)`);
    await q.query(`
      CREATE TABLE link_clicks_hourly (
        link_id bigint NOT NULL,
        hour timestamptz NOT NULL,
        project_id uuid NOT NULL,
        clicks integer NOT NULL DEFAULT 0,
        bot_clicks integer NOT NULL DEFAULT 0,
        last_clicked_at timestamptz NULL,
        CONSTRAINT pk_link_clicks_hourly PRIMARY KEY (link_id, hour),
        CONSTRAINT fk_link_clicks_hourly_link FOREIGN KEY (link_id) REFERENCES links (id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX ix_link_clicks_hourly_project_hour ON link_clicks_hourly (project_id, hour)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE link_clicks_hourly`);
    await q.query(`DROP TABLE clicks`);
  }
}
