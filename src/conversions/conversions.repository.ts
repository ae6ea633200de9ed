import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/** A conversion row as stored (snake_case from SQL). */
export interface ConversionRow {
  id: string;
  project_id: string;
  link_id: string;
  svc_id: string;
  type: string;
  value: string | number;
  converted_at: Date;
  account_conversion_id: string | null;
  account_user_id: string | null;
  clicker_id: string | null;
  href: string | null;
  ip: string | null;
  language: string | null;
  redirection_id: string;
  referrer: string | null;
  session_id: string | null;
  user_agent: string | null;
}

export type NewConversion = Omit<ConversionRow, 'id'>;

const COLUMNS: (keyof NewConversion)[] = [
  'project_id',
  'link_id',
  'svc_id',
  'type',
  'value',
  'converted_at',
  'account_conversion_id',
  'account_user_id',
  'clicker_id',
  'href',
  'ip',
  'language',
  'redirection_id',
  'referrer',
  'session_id',
  'user_agent',
];

@Injectable()
export class ConversionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts the conversion, or returns null when the project already has one with the same
   * account_conversion_id (uq_conversions_account_id).
   */
  async insert(row: NewConversion, manager: EntityManager): Promise<ConversionRow | null> {
    const rows = await manager.query<ConversionRow[]>(
      `INSERT INTO conversions (${COLUMNS.join(', ')})
       VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
       ON CONFLICT (project_id, account_conversion_id) WHERE account_conversion_id IS NOT NULL DO NOTHING
       RETURNING id, ${COLUMNS.join(', ')}, host(ip) AS ip`,
      COLUMNS.map((c) => row[c]),
    );
    return rows[0] ?? null;
  }

  async findByAccountId(projectId: string, accountConversionId: string, manager?: EntityManager): Promise<ConversionRow | null> {
    const rows = await (manager ?? this.dataSource.manager).query<ConversionRow[]>(
      `SELECT *, host(ip) AS ip FROM conversions WHERE project_id = $1 AND account_conversion_id = $2`,
      [projectId, accountConversionId],
    );
    return rows[0] ?? null;
  }

  /** Adds the conversion to the hourly rollup stats read (pk_link_conversions_hourly). */
  async addToRollup(row: ConversionRow, manager: EntityManager): Promise<void> {
    await manager.query(
      `INSERT INTO link_conversions_hourly (link_id, hour, type, project_id, count, value)
       VALUES ($1, date_trunc('hour', $2::timestamptz, 'UTC'), $3, $4, 1, $5)
       ON CONFLICT (link_id, hour, type) DO UPDATE SET
         count = link_conversions_hourly.count + 1,
         value = link_conversions_hourly.value + EXCLUDED.value`,
      [row.link_id, row.converted_at, row.type, row.project_id, row.value],
    );
  }

  /** The click an earlier conversion of the same session was attributed to (ix_conversions_session). */
  async sessionRedirection(projectId: string, sessionId: string): Promise<string | null> {
    const rows = await this.dataSource.query<{ redirection_id: string }[]>(
      `SELECT redirection_id FROM conversions
       WHERE project_id = $1 AND session_id = $2
       ORDER BY converted_at LIMIT 1`,
      [projectId, sessionId],
    );
    return rows[0]?.redirection_id ?? null;
  }

  /**
   * The latest click on the link in the 30 days before the conversion, from the same visitor when
   * known (same stored IP and user agent), else from anyone (ix_clicks_link_time).
   */
  async latestClick(linkId: string, before: Date, visitor: { ip: string | null; userAgent: string | null }): Promise<string | null> {
    const rows = await this.dataSource.query<{ click_id: string; same: boolean }[]>(
      `SELECT click_id,
              (ip IS NOT DISTINCT FROM $3::inet AND user_agent IS NOT DISTINCT FROM $4) AS same
       FROM clicks WHERE link_id = $1 AND clicked_at <= $2 AND clicked_at > $2::timestamptz - interval '30 days'
       ORDER BY (ip IS NOT DISTINCT FROM $3::inet AND user_agent IS NOT DISTINCT FROM $4) DESC, clicked_at DESC
       LIMIT 1`,
      [linkId, before, visitor.ip, visitor.userAgent],
    );
    return rows[0]?.click_id ?? null;
  }
}
