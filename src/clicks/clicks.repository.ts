import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ClickColumns } from './click-event';

/** The months (UTC, as `YYYY-MM-01`) from the one of `from` to the one of `to` (ms since the epoch). */
export function monthsBetween(from: number, to: number): string[] {
  const months: string[] = [];
  const date = new Date(from);
  date.setUTCDate(1);
  date.setUTCHours(0, 0, 0, 0);
  while (date.getTime() <= to) {
    months.push(date.toISOString().slice(0, 10));
    date.setUTCMonth(date.getUTCMonth() + 1);
  }
  return months;
}

/**
 * Whether a database error is the unique violation of a clicks partition's key (a click of the
 * batch is stored already), as TypeORM throws it (QueryFailedError) or as the driver reports it.
 */
export function isStoredClick(error: unknown): boolean {
  const { code, constraint } = ((error as { driverError?: unknown }).driverError ?? error) as { code?: string; constraint?: string };
  return code === '23505' && (constraint ?? '').startsWith('clicks_');
}

function nextMonth(month: string): string {
  const date = new Date(`${month}T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + 1);
  return date.toISOString().slice(0, 10);
}

/**
 * A PostgreSQL array literal of values that need no quoting (UUIDs, integers): the batch's
 * columns go to the statement as one text each, without the driver escaping every element.
 */
function plainArray(values: readonly (string | number)[]): string {
  return `{${values.join(',')}}`;
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
   * transaction. `new`: a plain insert, which fails on a click already stored (isStoredClick);
   * `retried`: clicks already stored are skipped by ON CONFLICT and not counted again. The batch
   * goes in as columns: ids, times, links and bot flags, and indexes into the batch's lists of
   * projects, referrers, user agents and IPs.
   */
  async ingest(batch: ClickColumns, manager: EntityManager, mode: 'new' | 'retried'): Promise<number> {
    if (batch.ids.length === 0) return 0;
    // One statement: the rollup is summed in SQL over the rows the insert really added, ordered
    // so that concurrent workers lock rollup rows in one order (no deadlocks).
    const [result] = await manager.query<{ inserted: number }[]>(
      `WITH inserted AS (
         INSERT INTO clicks (click_id, clicked_at, link_id, project_id, referrer, user_agent, ip, is_bot)
         SELECT c.id, timestamptz 'epoch' + c.at * interval '1 millisecond', c.link, ($4::uuid[])[c.project + 1],
                ($6::text[])[c.referrer + 1], ($8::text[])[c.agent + 1], ($10::inet[])[c.ip + 1], c.bot = 1
         FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $5::int[], $7::int[], $9::int[], $11::int[], $12::int[])
           AS c(id, at, link, project, referrer, agent, ip, bot)
         ${mode === 'retried' ? 'ON CONFLICT (click_id, clicked_at) DO NOTHING' : ''}
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
        plainArray(batch.ids),
        plainArray(batch.at),
        plainArray(batch.links),
        batch.projects,
        plainArray(batch.project),
        batch.referrers,
        plainArray(batch.referrer),
        batch.agents,
        plainArray(batch.agent),
        batch.ips,
        plainArray(batch.ip),
        plainArray(batch.bots),
      ],
    );
    return result?.inserted ?? 0;
  }
}
