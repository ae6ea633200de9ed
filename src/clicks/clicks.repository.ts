import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ClickEvent } from './click-event';

/** Month start (UTC) of a timestamp, as `YYYY-MM-01`. */
export function monthOf(iso: string): string {
  return `${iso.slice(0, 7)}-01`;
}

function nextMonth(month: string): string {
  const date = new Date(`${month}T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + 1);
  return date.toISOString().slice(0, 10);
}

@Injectable()
export class ClicksRepository {
  private readonly partitions = new Set<string>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Creates the monthly partitions of `clicks` the months need (clicks_y2026m11 …), once per
   * process; concurrent workers serialise on an advisory lock. A partition is made before any click
   * of its month is written, so the default partition stays empty and never blocks creation.
   */
  async ensurePartitions(months: string[]): Promise<void> {
    const missing = [...new Set(months)].filter((m) => !this.partitions.has(m));
    if (missing.length === 0) return;
    await this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [7_361_245_003]);
      for (const month of missing) {
        const name = `clicks_y${month.slice(0, 4)}m${month.slice(5, 7)}`;
        await manager.query(
          `CREATE TABLE IF NOT EXISTS ${name} PARTITION OF clicks FOR VALUES FROM ('${month}') TO ('${nextMonth(month)}')`,
        );
      }
    });
    for (const month of missing) this.partitions.add(month);
  }

  /**
   * Writes raw clicks and adds the ones that are new to the hourly rollups, in the caller's
   * transaction. Clicks already stored (a retried job) are skipped by ON CONFLICT on pk_clicks and
   * not counted again.
   */
  async ingest(clicks: ClickEvent[], manager: EntityManager): Promise<number> {
    if (clicks.length === 0) return 0;
    // One statement: the rollup is summed in SQL over the rows the insert really added, ordered
    // so that concurrent workers lock rollup rows in one order (no deadlocks).
    const [result] = await manager.query<{ inserted: number }[]>(
      `WITH inserted AS (
         INSERT INTO clicks (click_id, clicked_at, link_id, project_id, referrer, user_agent, ip, is_bot)
         SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::bigint[], $4::uuid[], $5::text[], $6::text[], $7::inet[], $8::boolean[])
         ON CONFLICT (click_id, clicked_at) DO NOTHING
         RETURNING link_id, project_id, clicked_at, is_bot),
       rollup AS (
         INSERT INTO link_clicks_hourly (link_id, hour, project_id, clicks, bot_clicks, last_clicked_at)
         SELECT link_id, date_trunc('hour', clicked_at, 'UTC'), project_id,
                COUNT(*) FILTER (WHERE NOT is_bot), COUNT(*) FILTER (WHERE is_bot), MAX(clicked_at)
         FROM inserted
         GROUP BY link_id, date_trunc('hour', clicked_at, 'UTC'), project_id
         ORDER BY link_id, date_trunc('hour', clicked_at, 'UTC')
         ON CONFLICT (link_id, hour) DO UPDATE SET
           clicks = link_clicks_hourly.clicks + EXCLUDED.clicks,
           bot_clicks = link_clicks_hourly.bot_clicks + EXCLUDED.bot_clicks,
           last_clicked_at = GREATEST(link_clicks_hourly.last_clicked_at, EXCLUDED.last_clicked_at)
         RETURNING 1)
       SELECT (SELECT COUNT(*) FROM inserted)::int AS inserted`,
      [
        clicks.map((c) => c.id),
        clicks.map((c) => c.clickedAt),
        clicks.map((c) => c.linkId),
        clicks.map((c) => c.projectId),
        clicks.map((c) => c.referrer),
        clicks.map((c) => c.userAgent),
        clicks.map((c) => c.ip),
        clicks.map((c) => c.isBot),
      ],
    );
    return result?.inserted ?? 0;
  }
}
