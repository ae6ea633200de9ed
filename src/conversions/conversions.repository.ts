import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AnalyticsClient, chTime } from '../analytics/analytics-client';
import { RAW_CLICKS_READ } from '../analytics/analytics-schema';
import { insertConversionEvents } from '../analytics/conversion-events';
import { LinkStamps } from '../analytics/link-stamps';

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

const COLUMNS: (keyof ConversionRow)[] = [
  'id',
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
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(AnalyticsClient) private readonly analytics: AnalyticsClient,
    @Inject(LinkStamps) private readonly stamps: LinkStamps,
  ) {}

  /**
   * Inserts the conversion, or returns null when the project already has one with the same
   * account_conversion_id (uq_conversions_account_id).
   */
  async insert(row: ConversionRow, manager: EntityManager): Promise<ConversionRow | null> {
    const rows = await manager.query<ConversionRow[]>(
      `INSERT INTO conversions (${COLUMNS.join(', ')})
       VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
       ON CONFLICT (project_id, account_conversion_id) WHERE account_conversion_id IS NOT NULL DO NOTHING
       RETURNING ${COLUMNS.join(', ')}, host(ip) AS ip`,
      COLUMNS.map((c) => row[c]),
    );
    return rows[0] ?? null;
  }

  async findByAccountId(
    projectId: string,
    accountConversionId: string,
    manager?: EntityManager,
  ): Promise<ConversionRow | null> {
    const rows = await (manager ?? this.dataSource.manager).query<ConversionRow[]>(
      `SELECT *, host(ip) AS ip FROM conversions WHERE project_id = $1 AND account_conversion_id = $2`,
      [projectId, accountConversionId],
    );
    return rows[0] ?? null;
  }

  /**
   * The conversion as an event of the analytics store, what statistics sum. Its id is the
   * deduplication token: the same conversion sent twice is stored once.
   */
  async addEvent(row: ConversionRow): Promise<void> {
    await insertConversionEvents(
      this.analytics,
      this.stamps,
      [
        {
          project_id: row.project_id,
          link_id: String(row.link_id),
          converted_at: new Date(row.converted_at),
          conversion_id: row.id,
          type: row.type,
          value: Number(row.value),
        },
      ],
      `conversion:${row.id}`,
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
   * known (same stored IP and user agent), else from anyone: a read of one link's key range of the
   * analytics store's clicks (sorted by project, link, time).
   */
  async latestClick(
    projectId: string,
    linkId: string,
    before: Date,
    visitor: { ip: string | null; userAgent: string | null },
  ): Promise<string | null> {
    const same = `(ifNull(ip, '') = ifNull({ip:Nullable(String)}, '') AND ifNull(user_agent, '') = ifNull({agent:Nullable(String)}, ''))`;
    const rows = await this.analytics.query<{ id: string }>(
      `SELECT toString(click_id) AS id FROM ${this.analytics.database}.clicks
       WHERE project_id = {project:UUID} AND link_id = {link:UInt64}
         AND clicked_at <= {before:DateTime64(3, 'UTC')} AND clicked_at > {before:DateTime64(3, 'UTC')} - INTERVAL 30 DAY
       ORDER BY ${same} DESC, clicked_at DESC
       LIMIT 1
       ${RAW_CLICKS_READ}`,
      {
        project: projectId,
        link: linkId,
        before: chTime(before),
        ip: visitor.ip,
        agent: visitor.userAgent,
      },
    );
    return rows[0]?.id ?? null;
  }
}
