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
    const inserted: { link_id: string; project_id: string; hour: Date; bot: boolean; clicked_at: Date }[] =
      await manager.query(
        `INSERT INTO clicks (click_id, clicked_at, link_id, project_id, referrer, user_agent, ip, is_bot)
         SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::bigint[], $4::uuid[], $5::text[], $6::text[], $7::inet[], $8::boolean[])
         ON CONFLICT (click_id, clicked_at) DO NOTHING
         RETURNING link_id, project_id, date_trunc('hour', clicked_at, 'UTC') AS hour, is_bot AS bot, clicked_at`,
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
    if (inserted.length === 0) return 0;
    const rollup = new Map<string, { linkId: string; projectId: string; hour: string; clicks: number; bots: number; last: number }>();
    for (const row of inserted) {
      const hour = new Date(row.hour).toISOString();
      const key = `${row.link_id}|${hour}`;
      const entry = rollup.get(key) ?? { linkId: String(row.link_id), projectId: row.project_id, hour, clicks: 0, bots: 0, last: 0 };
      if (row.bot) entry.bots += 1;
      else entry.clicks += 1;
      entry.last = Math.max(entry.last, new Date(row.clicked_at).getTime());
      rollup.set(key, entry);
    }
    const rows = [...rollup.values()].sort((a, b) => (a.linkId === b.linkId ? a.hour.localeCompare(b.hour) : Number(a.linkId) - Number(b.linkId)));
    // Sorted, so concurrent workers lock rollup rows in one order (no deadlocks).
    await manager.query(
      `INSERT INTO link_clicks_hourly (link_id, hour, project_id, clicks, bot_clicks, last_clicked_at)
       SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::uuid[], $4::int[], $5::int[], $6::timestamptz[])
       ON CONFLICT (link_id, hour) DO UPDATE SET
         clicks = link_clicks_hourly.clicks + EXCLUDED.clicks,
         bot_clicks = link_clicks_hourly.bot_clicks + EXCLUDED.bot_clicks,
         last_clicked_at = GREATEST(link_clicks_hourly.last_clicked_at, EXCLUDED.last_clicked_at)`,
      [
        rows.map((r) => r.linkId),
        rows.map((r) => r.hour),
        rows.map((r) => r.projectId),
        rows.map((r) => r.clicks),
        rows.map((r) => r.bots),
        rows.map((r) => new Date(r.last).toISOString()),
      ],
    );
    return inserted.length;
  }
}
