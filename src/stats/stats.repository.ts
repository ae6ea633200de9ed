import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Interval } from './stats-params';

export interface IntervalRow {
  bucket: Date;
  clicks: number;
}

export interface IntervalConversionRow {
  bucket: Date;
  type: string;
  count: number;
  value: number;
}

/** Stats queries: they read the hourly rollups, never raw clicks. */
@Injectable()
export class StatsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Clicks of one link per interval in [start, end) (pk_link_clicks_hourly: link_id, hour). With
   * zeros, every interval of the period appears (generate_series).
   */
  async linkIntervals(
    linkId: string,
    start: Date,
    end: Date,
    interval: Interval,
    options: { withZeros: boolean; withBots: boolean },
  ): Promise<IntervalRow[]> {
    const clicks = options.withBots ? 'h.clicks + h.bot_clicks' : 'h.clicks';
    const activity = `
      SELECT date_trunc($4, h.hour, 'UTC') AS bucket, SUM(${clicks})::int AS clicks
      FROM link_clicks_hourly h
      WHERE h.link_id = $1 AND h.hour >= $2 AND h.hour < $3
      GROUP BY 1`;
    const sql = options.withZeros
      ? `WITH a AS (${activity})
         SELECT s.bucket, COALESCE(a.clicks, 0)::int AS clicks
         FROM generate_series(date_trunc($4, $2::timestamptz, 'UTC'), $3::timestamptz - interval '1 microsecond', ('1 ' || $4)::interval) AS s(bucket)
         LEFT JOIN a ON a.bucket = s.bucket
         ORDER BY s.bucket`
      : `${activity} ORDER BY 1`;
    const rows: { bucket: Date | string; clicks: number }[] = await this.dataSource.query(sql, [linkId, start, end, interval]);
    return rows.map((r) => ({ bucket: new Date(r.bucket), clicks: r.clicks }));
  }

  /** Conversions of one link per interval and type in [start, end) (pk_link_conversions_hourly). */
  async linkIntervalConversions(linkId: string, start: Date, end: Date, interval: Interval): Promise<IntervalConversionRow[]> {
    const rows: { bucket: Date | string; type: string; count: number; value: string | number }[] = await this.dataSource.query(
      `SELECT date_trunc($4, c.hour, 'UTC') AS bucket, c.type, SUM(c.count)::int AS count, SUM(c.value)::bigint AS value
       FROM link_conversions_hourly c
       WHERE c.link_id = $1 AND c.hour >= $2 AND c.hour < $3
       GROUP BY 1, 2`,
      [linkId, start, end, interval],
    );
    return rows.map((r) => ({ bucket: new Date(r.bucket), type: r.type, count: r.count, value: Number(r.value) }));
  }

  /** The latest click of a link, bots left out unless asked (pk_link_clicks_hourly). */
  async lastClickedAt(linkId: string, withBots: boolean): Promise<Date | null> {
    const rows: { last: Date | string | null }[] = await this.dataSource.query(
      `SELECT MAX(last_clicked_at) AS last FROM link_clicks_hourly
       WHERE link_id = $1 ${withBots ? '' : 'AND clicks > 0'}`,
      [linkId],
    );
    return rows[0]?.last ? new Date(rows[0].last) : null;
  }
}
