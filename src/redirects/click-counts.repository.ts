import { Inject, Injectable } from '@nestjs/common';
import { AnalyticsClient, chTime } from '../analytics/analytics-client';
import { rawSinceHorizon, retiredBeforeHorizon } from '../analytics/retired-horizon';

/** The link whose counted clicks are read, and which of them to leave out. */
export interface CountRequest {
  projectId: string;
  linkId: string;
  /** Ms since the epoch: clicks of `node` from then on are left out. */
  since: number;
  /** A process's random bits, the last group of every click id it makes. */
  node: string;
}

/** The analytics store's counts of a link's clicks, for max_clicks (ClickCounts). */
@Injectable()
export class ClickCountsRepository {
  constructor(@Inject(AnalyticsClient) private readonly analytics: AnalyticsClient) {}

  /**
   * The link's human clicks in `clicks` but those `node` recorded since `since` (its own count's,
   * docs/api.md, "Link controls": max_clicks), and those retired into `clicks_retired`
   * (docs/api.md, "Retention"): the raw ones at or after the project's horizon, the rollups'
   * before it (retired-horizon.ts), so a retention step under way counts each click once. Reads
   * the link's key range of the sorting keys (project_id, link_id, time).
   */
  async countedClicks(request: CountRequest): Promise<number> {
    const db = this.analytics.database;
    const projects = '[{project:UUID}]';
    const rows = await this.analytics.query<{ clicks: string | number }>(
      `SELECT sum(clicks) AS clicks FROM (
         SELECT countIf(is_bot = 0 AND NOT (clicked_at >= {since:DateTime64(3, 'UTC')}
                                            AND endsWith(toString(click_id), {node:String}))) AS clicks
         FROM ${db}.clicks
         WHERE project_id = {project:UUID} AND link_id = {link:UInt64}
           AND ${rawSinceHorizon(db, projects, 'clicked_at')}
         UNION ALL
         SELECT sumIf(n, is_bot = 0) AS clicks FROM ${db}.clicks_retired
         WHERE project_id = {project:UUID} AND link_id = {link:UInt64}
           AND ${retiredBeforeHorizon(db, projects)})`,
      {
        since: chTime(request.since),
        node: request.node,
        project: request.projectId,
        link: request.linkId,
      },
    );
    return Number(rows[0]?.clicks ?? 0);
  }
}
