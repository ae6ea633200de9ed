import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AnalyticsClient, chTime } from '../analytics/analytics-client';
import { CLICK_DIMENSION_COLUMNS, RAW_CLICKS_READ } from '../analytics/analytics-schema';
import { ClickDimensions, insertConversionEvents } from '../analytics/conversion-events';
import { LinkStamps } from '../analytics/link-stamps';

/** A click that led to a conversion: its id, and its dimensions when it was stored with them. */
export interface ConvertingClick {
  id: string;
  dimensions: ClickDimensions | null;
}

/** The columns a converting click is read with (ConvertingClick). */
const CLICK_READ = `toString(click_id) AS id, enriched, ${CLICK_DIMENSION_COLUMNS.join(', ')}`;

type ClickReadRow = { id: string; enriched: number } & ClickDimensions;

function convertingClick(row: ClickReadRow | undefined): ConvertingClick | null {
  if (!row) return null;
  const dimensions = Object.fromEntries(
    CLICK_DIMENSION_COLUMNS.map((c) => [c, row[c] ?? null]),
  ) as ClickDimensions;
  return { id: row.id, dimensions: Number(row.enriched) === 1 ? dimensions : null };
}

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
  /**
   * Where account_conversion_id is unique (docs/api.md, "Conversions and the tracking script"):
   * '' for the api_key, `session:<session_id>` for the publishable key, null: not deduplicated.
   */
  idempotency_scope: string | null;
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
  'idempotency_scope',
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
   * account_conversion_id in the same scope (uq_conversions_account_scope).
   */
  async insert(row: ConversionRow, manager: EntityManager): Promise<ConversionRow | null> {
    const rows = await manager.query<ConversionRow[]>(
      `INSERT INTO conversions (${COLUMNS.join(', ')})
       VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
       ON CONFLICT (project_id, idempotency_scope, account_conversion_id)
         WHERE account_conversion_id IS NOT NULL AND idempotency_scope IS NOT NULL DO NOTHING
       RETURNING ${COLUMNS.join(', ')}, host(ip) AS ip`,
      COLUMNS.map((c) => row[c]),
    );
    return rows[0] ?? null;
  }

  /** The conversion of an account_conversion_id in its scope (uq_conversions_account_scope). */
  async findByAccountId(
    projectId: string,
    scope: string,
    accountConversionId: string,
    manager?: EntityManager,
  ): Promise<ConversionRow | null> {
    const rows = await (manager ?? this.dataSource.manager).query<ConversionRow[]>(
      `SELECT *, host(ip) AS ip FROM conversions
       WHERE project_id = $1 AND idempotency_scope = $2 AND account_conversion_id = $3`,
      [projectId, scope, accountConversionId],
    );
    return rows[0] ?? null;
  }

  /**
   * The conversion as an event of the analytics store, what statistics sum. Its id is the
   * deduplication token: the same conversion sent twice is stored once.
   */
  async addEvent(row: ConversionRow, click: ConvertingClick | null): Promise<void> {
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
          click_id: row.redirection_id,
          dimensions: click?.dimensions ?? null,
        },
      ],
      `conversion:${row.id}`,
    );
  }

  /**
   * The click an earlier conversion of the same session was attributed to, and that conversion's
   * link (ix_conversions_session).
   */
  async sessionRedirection(
    projectId: string,
    sessionId: string,
  ): Promise<{ redirectionId: string; linkId: string } | null> {
    const rows = await this.dataSource.query<{ redirection_id: string; link_id: string }[]>(
      `SELECT redirection_id, link_id FROM conversions
       WHERE project_id = $1 AND session_id = $2
       ORDER BY converted_at LIMIT 1`,
      [projectId, sessionId],
    );
    return rows[0]
      ? { redirectionId: rows[0].redirection_id, linkId: String(rows[0].link_id) }
      : null;
  }

  /**
   * A click of the link by its id, with its dimensions, in the 30 days before `before` (a read of
   * one link's key range of the analytics store's clicks); null when the store does not hold it.
   */
  async clickOf(
    projectId: string,
    linkId: string,
    clickId: string,
    before: Date,
  ): Promise<ConvertingClick | null> {
    if (!UUID.test(clickId)) return null;
    const rows = await this.analytics.query<ClickReadRow>(
      `SELECT ${CLICK_READ} FROM ${this.analytics.database}.clicks
       WHERE project_id = {project:UUID} AND link_id = {link:UInt64}
         AND clicked_at <= {before:DateTime64(3, 'UTC')} AND clicked_at > {before:DateTime64(3, 'UTC')} - INTERVAL 30 DAY
         AND click_id = {click:UUID}
       LIMIT 1
       ${RAW_CLICKS_READ}`,
      { project: projectId, link: linkId, before: chTime(before), click: clickId },
    );
    return convertingClick(rows[0]);
  }

  /**
   * The latest click on the link in the 30 days before the conversion, from the same visitor when
   * known (same stored IP and user agent), else from anyone, with its dimensions: a read of one
   * link's key range of the analytics store's clicks (sorted by project, link, time).
   */
  async latestClick(
    projectId: string,
    linkId: string,
    before: Date,
    visitor: { ip: string | null; userAgent: string | null },
  ): Promise<ConvertingClick | null> {
    const same = `(ifNull(ip, '') = ifNull({ip:Nullable(String)}, '') AND ifNull(user_agent, '') = ifNull({agent:Nullable(String)}, ''))`;
    const rows = await this.analytics.query<ClickReadRow>(
      `SELECT ${CLICK_READ} FROM ${this.analytics.database}.clicks
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
    return convertingClick(rows[0]);
  }

  /**
   * Retention (docs/api.md, "Retention"): the time of the project's first conversion record at or
   * after `from` and before `to`, or null (ix_conversions_project_time).
   */
  async firstRecordAt(projectId: string, from: Date, to: Date): Promise<Date | null> {
    const [row] = await this.dataSource.query<{ at: Date | null }[]>(
      `SELECT min(converted_at) AS at FROM conversions
       WHERE project_id = $1 AND converted_at >= $2 AND converted_at < $3`,
      [projectId, from, to],
    );
    return row?.at ? new Date(row.at) : null;
  }

  /**
   * Retention: deletes up to `limit` of the project's conversion records older than `before`
   * (ix_conversions_project_time), one short statement; returns how many it deleted.
   */
  async deleteRecordsBefore(projectId: string, before: Date, limit: number): Promise<number> {
    const rows = await this.dataSource.query<{ id: string }[]>(
      `DELETE FROM conversions WHERE id IN (
         SELECT id FROM conversions WHERE project_id = $1 AND converted_at < $2 LIMIT $3)
       RETURNING id`,
      [projectId, before, limit],
    );
    return rows.length;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
