import { chTime } from '../../analytics/analytics-client';
import { RAW_CLICKS_READ } from '../../analytics/analytics-schema';
import { Binder, Statement, TIME } from './statement';

/** The links of stats/{svc_id}.json and stats/svc_ids/batch.json (docs/api.md, "Statistics"). */
export interface LinkClicksRequest {
  projectId: string;
  linkIds: string[];
  /** The period; null for all time. */
  start: Date | null;
  end: Date | null;
  withBots: boolean;
}

/**
 * Each link's clicks in [start, end) (all time without a period) and its latest click, from the
 * links' key ranges of `clicks` (sorting key project_id, link_id, clicked_at; no projection,
 * RAW_CLICKS_READ). Rows: link_id, clicks, last (null without clicks).
 */
export function linkClicksQuery(db: string, request: LinkClicksRequest): Statement {
  const binder = new Binder();
  const humans = request.withBots ? '1' : 'is_bot = 0';
  const period = [
    request.start ? `clicked_at >= ${binder.bind(chTime(request.start), TIME)}` : '1',
    request.end ? `clicked_at < ${binder.bind(chTime(request.end), TIME)}` : '1',
  ].join(' AND ');
  const project = binder.bind(request.projectId, 'UUID');
  const links = binder.bind(request.linkIds.map(Number), 'Array(UInt64)');
  return {
    sql: `SELECT link_id, countIf(${period}) AS clicks, maxOrNull(clicked_at) AS last
       FROM ${db}.clicks
       WHERE project_id = ${project} AND link_id IN ${links} AND ${humans}
       GROUP BY link_id
       ${RAW_CLICKS_READ}`,
    params: binder.params,
  };
}
