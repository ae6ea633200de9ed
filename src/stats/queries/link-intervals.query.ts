import { chTime } from '../../analytics/analytics-client';
import { RAW_CLICKS_READ } from '../../analytics/analytics-schema';
import { Interval } from '../intervals';
import { Params } from '../../analytics/analytics-client';
import { FilterField, eventConditions } from '../stats-fields';
import { Attribution } from '../stats-query';
import { Binder, Statement, andAll, bucketOf } from './statement';
import { horizonParts } from './row-parts';

/** One link's period of stats/{svc_id}/intervals.json (docs/api.md, "Statistics"). */
export interface LinkIntervalsRequest {
  projectId: string;
  linkId: string;
  start: Date;
  end: Date;
  interval: Interval;
  /** Click-dimension filters (whitelisted names, values bound): the link's clicks that match. */
  filters?: Partial<Record<FilterField, string>>;
  /** first: the clicks and conversions credited to the link as a root (extension). */
  attribution?: Attribution;
  /**
   * Whether the project has retired events (docs/architecture.md, "Retention"): their hourly
   * rollups are read too (a retired hour's latest click is that hour's start). Absent: none.
   */
  retired?: boolean;
}

/**
 * The links whose events count for the link: itself or, with attribution=first, the links it is
 * the root of (`link_chains`, its bloom filter of root_id; the link itself when it has no chain).
 */
function eventsOf(db: string, request: LinkIntervalsRequest): string {
  if (request.attribution !== 'first') return 'link_id = {link:UInt64}';
  const chains = `${db}.link_chains FINAL WHERE project_id = {project:UUID}`;
  return `(link_id IN (SELECT link_id FROM ${chains} AND root_id = {link:UInt64})
           OR (link_id = {link:UInt64}
               AND link_id NOT IN (SELECT link_id FROM ${chains} AND link_id = {link:UInt64})))`;
}

/**
 * A link's clicks per interval in [start, end) and its latest click (bots left out unless asked),
 * in one read of the link's key range of `clicks` (sorting key project_id, link_id, clicked_at; no
 * projection, RAW_CLICKS_READ): every bucket of the link's life with its clicks in the period and
 * its latest click. The buckets with clicks in the period are the intervals, the latest of all is
 * the latest click (of those matching the click-dimension filters). Rows: bucket, clicks, last.
 */
export function linkIntervalsQuery(
  db: string,
  request: LinkIntervalsRequest & { withBots: boolean },
): Statement {
  const humans = request.withBots ? '1' : 'is_bot = 0';
  const { params, where } = linkPeriod(request);
  if (request.retired) {
    // Each side of the project's horizon (retired-horizon.ts).
    const { sinceHorizon, beforeHorizon } = horizonParts(db, '[{project:UUID}]', true);
    return {
      sql: `SELECT bucket, sum(clicks) AS clicks, max(last) AS last FROM (
         SELECT ${bucketOf(request.interval, 'clicked_at')} AS bucket,
              countIf(clicked_at >= {start:DateTime64(3, 'UTC')}
                AND clicked_at < {end:DateTime64(3, 'UTC')}) AS clicks,
              max(clicked_at) AS last
         FROM ${db}.clicks
         WHERE project_id = {project:UUID} AND ${eventsOf(db, request)} AND ${humans}${sinceHorizon('clicked_at')}${where}
         GROUP BY bucket
         UNION ALL
         SELECT ${bucketOf(request.interval, 'hour')} AS bucket,
              sumIf(n, hour >= {start:DateTime64(3, 'UTC')} AND hour < {end:DateTime64(3, 'UTC')}) AS clicks,
              toDateTime64(max(hour), 3, 'UTC') AS last
         FROM ${db}.clicks_retired
         WHERE project_id = {project:UUID} AND ${eventsOf(db, request)} AND ${humans}${beforeHorizon}${where}
         GROUP BY bucket)
       GROUP BY bucket ORDER BY bucket
       ${RAW_CLICKS_READ}`,
      params,
    };
  }
  return {
    sql: `SELECT ${bucketOf(request.interval, 'clicked_at')} AS bucket,
              countIf(clicked_at >= {start:DateTime64(3, 'UTC')}
                AND clicked_at < {end:DateTime64(3, 'UTC')}) AS clicks,
              max(clicked_at) AS last
       FROM ${db}.clicks
       WHERE project_id = {project:UUID} AND ${eventsOf(db, request)} AND ${humans}${where}
       GROUP BY bucket ORDER BY bucket
       ${RAW_CLICKS_READ}`,
    params,
  };
}

/**
 * A link's conversions per interval and type in [start, end), from its key range of
 * `conversions` (sorting key project_id, link_id, converted_at), by its click's dimensions when
 * filtered. Rows: bucket, type, count, value.
 */
export function linkIntervalConversionsQuery(db: string, request: LinkIntervalsRequest): Statement {
  const { params, where } = linkPeriod(request);
  // With retired events, each side of the project's horizon (retired-horizon.ts).
  const { sinceHorizon, beforeHorizon } = horizonParts(db, '[{project:UUID}]', !!request.retired);
  const raw = `SELECT ${bucketOf(request.interval, 'converted_at')} AS bucket, type,
              count() AS count, sum(value) AS value
       FROM ${db}.conversions
       WHERE project_id = {project:UUID} AND ${eventsOf(db, request)}
         AND converted_at >= {start:DateTime64(3, 'UTC')}
         AND converted_at < {end:DateTime64(3, 'UTC')}${sinceHorizon('converted_at')}${where}
       GROUP BY bucket, type`;
  if (!request.retired) return { sql: raw, params };
  return {
    sql: `SELECT bucket, type, sum(count) AS count, sum(value) AS value FROM (
       ${raw}
       UNION ALL
       SELECT ${bucketOf(request.interval, 'hour')} AS bucket, type, sum(n) AS count, sum(value) AS value
       FROM ${db}.conversions_retired
       WHERE project_id = {project:UUID} AND ${eventsOf(db, request)}
         AND hour >= {start:DateTime64(3, 'UTC')} AND hour < {end:DateTime64(3, 'UTC')}${beforeHorizon}${where}
       GROUP BY bucket, type)
       GROUP BY bucket, type`,
    params,
  };
}

/** The link's period as parameters, and ` AND …` of its click-dimension filters, bound after them. */
function linkPeriod(request: LinkIntervalsRequest): { params: Params; where: string } {
  const binder = new Binder();
  const where = andAll(eventConditions(request.filters ?? {}, binder.bind));
  return {
    params: {
      project: request.projectId,
      link: request.linkId,
      start: chTime(request.start),
      end: chTime(request.end),
      ...binder.params,
    },
    where,
  };
}
