import { chTime } from '../../analytics/analytics-client';
import { RAW_CLICKS_READ } from '../../analytics/analytics-schema';
import { Binder, Statement, TIME } from './statement';
import { horizonParts } from './row-parts';

/** The links of stats/{svc_id}.json and stats/svc_ids/batch.json (docs/api.md, "Statistics"). */
export interface LinkClicksRequest {
  projectId: string;
  linkIds: string[];
  /** The period; null for all time. */
  start: Date | null;
  end: Date | null;
  withBots: boolean;
  /**
   * Whether the project has retired events (docs/architecture.md, "Retention"): their hourly
   * rollups count too (a retired hour's latest click is that hour's start). Absent: none.
   */
  retired?: boolean;
}

/**
 * Each link's clicks in [start, end) (all time without a period) and its latest click, from the
 * links' key ranges of `clicks` (sorting key project_id, link_id, clicked_at; no projection,
 * RAW_CLICKS_READ). Rows: link_id, clicks, last (null without clicks).
 */
export function linkClicksQuery(db: string, request: LinkClicksRequest): Statement {
  const binder = new Binder();
  const humans = request.withBots ? '1' : 'is_bot = 0';
  const start = request.start ? binder.bind(chTime(request.start), TIME) : null;
  const end = request.end ? binder.bind(chTime(request.end), TIME) : null;
  const periodOf = (column: string) =>
    [start ? `${column} >= ${start}` : '1', end ? `${column} < ${end}` : '1'].join(' AND ');
  const period = periodOf('clicked_at');
  const project = binder.bind(request.projectId, 'UUID');
  const links = binder.bind(request.linkIds.map(Number), 'Array(UInt64)');
  if (request.retired) {
    // Each side of the project's horizon (retired-horizon.ts).
    const { sinceHorizon, beforeHorizon } = horizonParts(db, `[${project}]`, true);
    return {
      sql: `SELECT link_id, sum(clicks) AS clicks, max(last) AS last FROM (
         SELECT link_id, countIf(${period}) AS clicks, maxOrNull(clicked_at) AS last
         FROM ${db}.clicks
         WHERE project_id = ${project} AND link_id IN ${links} AND ${humans}${sinceHorizon('clicked_at')}
         GROUP BY link_id
         UNION ALL
         SELECT link_id, sumIf(n, ${periodOf('hour')}) AS clicks,
                toDateTime64(maxOrNull(hour), 3, 'UTC') AS last
         FROM ${db}.clicks_retired
         WHERE project_id = ${project} AND link_id IN ${links} AND ${humans}${beforeHorizon}
         GROUP BY link_id)
       GROUP BY link_id
       ${RAW_CLICKS_READ}`,
      params: binder.params,
    };
  }
  return {
    sql: `SELECT link_id, countIf(${period}) AS clicks, maxOrNull(clicked_at) AS last
       FROM ${db}.clicks
       WHERE project_id = ${project} AND link_id IN ${links} AND ${humans}
       GROUP BY link_id
       ${RAW_CLICKS_READ}`,
    params: binder.params,
  };
}
