import { Inject, Injectable } from '@nestjs/common';
import { AnalyticsClient, Params } from '../analytics/analytics-client';
import { countStampStateWrite } from '../analytics/stamp-state';

/** A click's visitor fields in the analytics store: blanked by every erasure that reaches it. */
const CLICK_VISITOR_COLUMNS = ['ip', 'user_agent', 'referrer'];

/**
 * The sharer's identity in the analytics store: the columns of `links`, and their copies in the
 * events' stamps (LINK_STAMP_COLUMNS: service_postid is not stamped, docs/architecture.md).
 */
const LINK_IDENTITY_COLUMNS = [
  'sharer_id',
  'username',
  'service_userid',
  'service_postid',
  'user_id',
];
const STAMP_IDENTITY_COLUMNS = LINK_IDENTITY_COLUMNS.filter((c) => c !== 'service_postid');

/** Which of a project's clicks a visitor erasure blanks (any of them). */
export interface VisitorClicks {
  /** Clicks by id: those the visitor's conversion records were attributed to. */
  clickIds: string[];
  /** Clicks whose stored address is one of these. */
  ips: string[];
  /** Clicks whose stored address and user agent are one of these pairs. */
  pairs: [string, string][];
}

/** Rows changed per table of the analytics store. */
export type AnalyticsRows = Record<string, number>;

const anyNotNull = (columns: string[]) =>
  `(${columns.map((c) => `${c} IS NOT NULL`).join(' OR ')})`;

/**
 * What an erasure changes in the analytics store (docs/api.md, "Erasure"): personal columns set
 * to NULL by a mutation of each table, run to its end before the statement returns
 * (`mutations_sync = 2`), so that a read after the answer finds none of them. Rows are changed,
 * never deleted: every count, and every statistic, stays as it was. Only rows that hold something
 * to blank are counted and rewritten, so an erasure run again changes nothing.
 */
@Injectable()
export class ErasureAnalytics {
  constructor(@Inject(AnalyticsClient) private readonly analytics: AnalyticsClient) {}

  /** Blanks the address, user agent and referrer of the project's clicks a visitor made. */
  async blankVisitor(projectId: string, by: VisitorClicks): Promise<AnalyticsRows> {
    const parts: string[] = [];
    const params: Params = { project: projectId };
    if (by.clickIds.length > 0) {
      parts.push('click_id IN {clicks:Array(UUID)}');
      params.clicks = by.clickIds;
    }
    if (by.ips.length > 0) {
      parts.push('ip IN {ips:Array(String)}');
      params.ips = by.ips;
    }
    if (by.pairs.length > 0) {
      parts.push(`concat(ifNull(ip, ''), '\\t', ifNull(user_agent, '')) IN {pairs:Array(String)}`);
      params.pairs = by.pairs.map(([ip, agent]) => `${ip}\t${agent}`);
    }
    // The store's conversions hold no visitor field (docs/api.md, "Addresses").
    if (parts.length === 0) return { clicks: 0, conversions: 0 };
    const clicks = await this.blank(
      'clicks',
      CLICK_VISITOR_COLUMNS,
      `project_id = {project:UUID} AND (${parts.join(' OR ')})`,
      params,
    );
    return { clicks, conversions: 0 };
  }

  /**
   * Blanks a sharer's identity on the project's links (every version `links` holds) and on the
   * stamps of their clicks and conversions, and the visitor fields of those clicks.
   */
  async blankSharer(projectId: string, linkIds: string[]): Promise<AnalyticsRows> {
    if (linkIds.length === 0)
      return { links: 0, clicks: 0, conversions: 0, clicks_retired: 0, conversions_retired: 0 };
    const where = 'project_id = {project:UUID} AND link_id IN {links:Array(UInt64)}';
    const params: Params = { project: projectId, links: linkIds.map(Number) };
    return {
      links: await this.blank('links', LINK_IDENTITY_COLUMNS, where, params),
      clicks: await this.blank(
        'clicks',
        [...CLICK_VISITOR_COLUMNS, ...STAMP_IDENTITY_COLUMNS],
        where,
        params,
      ),
      conversions: await this.blank('conversions', STAMP_IDENTITY_COLUMNS, where, params),
      // The rollups retention keeps of older events carry their stamps too.
      clicks_retired: await this.blank('clicks_retired', STAMP_IDENTITY_COLUMNS, where, params),
      conversions_retired: await this.blank(
        'conversions_retired',
        STAMP_IDENTITY_COLUMNS,
        where,
        params,
      ),
    };
  }

  /**
   * Sets `columns` to NULL on the rows of `table` matching `where` that hold any of them, and
   * answers how many there were: a count, then one mutation, waited for.
   */
  private async blank(
    table: string,
    columns: string[],
    where: string,
    params: Params,
  ): Promise<number> {
    const db = this.analytics.database;
    const condition = `${where} AND ${anyNotNull(columns)}`;
    const [row] = await this.analytics.query<{ n: string }>(
      `SELECT toString(count()) AS n FROM ${db}.${table} WHERE ${condition}`,
      params,
    );
    const rows = Number(row?.n ?? 0);
    if (rows === 0) return 0;
    // A mutation may change a project's stamp state (stamp-state.ts).
    await countStampStateWrite(
      this.analytics,
      this.analytics.command(
        `ALTER TABLE ${db}.${table} UPDATE ${columns.map((c) => `${c} = NULL`).join(', ')}
         WHERE ${condition} SETTINGS mutations_sync = 2`,
        params,
      ),
    );
    return rows;
  }
}
