import { chTime } from '../../analytics/analytics-client';
import { RAW_CLICKS_READ } from '../../analytics/analytics-schema';
import { Interval } from '../intervals';
import { Statement, bucketOf } from './statement';

/** One link's period of stats/{svc_id}/intervals.json (docs/api.md, "Statistics"). */
export interface LinkIntervalsRequest {
  projectId: string;
  linkId: string;
  start: Date;
  end: Date;
  interval: Interval;
}

/**
 * A link's clicks per interval in [start, end) and its latest click (bots left out unless asked),
 * in one read of the link's key range of `clicks` (sorting key project_id, link_id, clicked_at; no
 * projection, RAW_CLICKS_READ): every bucket of the link's life with its clicks in the period and
 * its latest click. The buckets with clicks in the period are the intervals, the latest of all is
 * the latest click. Rows: bucket, clicks, last.
 */
export function linkIntervalsQuery(
  db: string,
  request: LinkIntervalsRequest & { withBots: boolean },
): Statement {
  const humans = request.withBots ? '1' : 'is_bot = 0';
  return {
    sql: `SELECT ${bucketOf(request.interval, 'clicked_at')} AS bucket,
              countIf(clicked_at >= {start:DateTime64(3, 'UTC')}
                AND clicked_at < {end:DateTime64(3, 'UTC')}) AS clicks,
              max(clicked_at) AS last
       FROM ${db}.clicks
       WHERE project_id = {project:UUID} AND link_id = {link:UInt64} AND ${humans}
       GROUP BY bucket ORDER BY bucket
       ${RAW_CLICKS_READ}`,
    params: linkPeriod(request),
  };
}

/**
 * A link's conversions per interval and type in [start, end), from its key range of
 * `conversions` (sorting key project_id, link_id, converted_at). Rows: bucket, type, count, value.
 */
export function linkIntervalConversionsQuery(db: string, request: LinkIntervalsRequest): Statement {
  return {
    sql: `SELECT ${bucketOf(request.interval, 'converted_at')} AS bucket, type,
              count() AS count, sum(value) AS value
       FROM ${db}.conversions
       WHERE project_id = {project:UUID} AND link_id = {link:UInt64}
         AND converted_at >= {start:DateTime64(3, 'UTC')}
         AND converted_at < {end:DateTime64(3, 'UTC')}
       GROUP BY bucket, type`,
    params: linkPeriod(request),
  };
}

function linkPeriod(request: LinkIntervalsRequest): Record<string, string> {
  return {
    project: request.projectId,
    link: request.linkId,
    start: chTime(request.start),
    end: chTime(request.end),
  };
}
