import { MigrationInterface, QueryRunner } from 'typeorm';
import { LinkTotals1763940000000 } from './1763940000000-link-totals';

/**
 * Statistics moved to the analytics store (ClickHouse): the hourly rollups, the per-link totals and
 * the triggers that kept them, and the index that selected links by shared time, go. The raw
 * `clicks` table stays, read-only, for `npm run cli -- analytics:backfill`, which copies what an
 * earlier version wrote into the analytics store.
 */
export class AnalyticsStore1763970000000 implements MigrationInterface {
  name = 'AnalyticsStore1763970000000';

  async up(q: QueryRunner): Promise<void> {
    await new LinkTotals1763940000000().down(q);
    await q.query(`DROP TABLE link_clicks_hourly`);
    await q.query(`DROP TABLE link_conversions_hourly`);
    await q.query(`DROP INDEX ix_links_project_shared_at`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX ix_links_project_shared_at ON links (project_id, (COALESCE(service_postid_shared_at, created_at)))`,
    );
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
    await new LinkTotals1763940000000().up(q);
  }
}
