import { chTime } from '../../analytics/analytics-client';
import { linkFilterConditions } from '../../links/list/link-filter-conditions';
import { eventConditions } from '../stats-fields';
import { Interval } from '../intervals';
import { Attribution, StatsQuery } from '../stats-query';
import { Binder, COUNTED, Statement, TIME, andAll, bucketOf, countOf } from './statement';
import { horizonParts, retiredCountOf } from './row-parts';

/** A project's period of stats/range/intervals.json (docs/api.md, "Statistics"). */
export interface RangeIntervalsRequest {
  projectIds: string[];
  start: Date;
  end: Date;
  interval: Interval;
  /** Whitelisted names (stats-fields), values bound. */
  filters: StatsQuery['filters'];
  /** The keys of the tools whose label is the tool filter (LinkLookupsService.toolKeysByLabel). */
  toolKeys: string[];
  /** first: clicks and conversions count where their link's root passes the filters (extension). */
  attribution?: Attribution;
  /**
   * Whether the projects have retired events (docs/architecture.md, "Retention"): their hourly
   * rollups are read too. Absent: none.
   */
  retired?: boolean;
}

/**
 * ` AND link_id IN (…)` of the events the link filters keep: the links that pass them or, with
 * attribution=first, the links whose root passes them (`link_chains`; a link without a chain is
 * its own root). Nothing without link filters: every event counts either way.
 */
function filteredEvents(
  db: string,
  projects: string,
  conditions: string[],
  attribution: Attribution | undefined,
): string {
  if (conditions.length === 0) return '';
  const passing = `SELECT link_id FROM ${db}.links FINAL
           WHERE project_id IN ${projects}${andAll(conditions)}`;
  if (attribution !== 'first') return `AND link_id IN (${passing})`;
  return `AND link_id IN (
           SELECT m.link_id FROM (SELECT link_id FROM ${db}.links FINAL WHERE project_id IN ${projects}) AS m
           LEFT JOIN (SELECT link_id, root_id FROM ${db}.link_chains FINAL
                      WHERE project_id IN ${projects}) AS r ON r.link_id = m.link_id
           WHERE if(r.root_id = 0, m.link_id, r.root_id) IN (${passing}))`;
}

/**
 * A project's clicks and shares per interval: clicks by the hour of the click (projection
 * stamped_hourly of `clicks`, sorted by project_id, toStartOfHour(clicked_at)), shares by the time
 * the link was shared (`links`, its minmax index of shared_at); filters as on range, over the
 * links mirror, and click dimensions over the clicks (shares are then null: the caller leaves them
 * out). Rows: bucket, clicks, shares, in bucket order.
 */
export function rangeIntervalsQuery(
  db: string,
  request: RangeIntervalsRequest & { withBots: boolean },
): Statement {
  const binder = new Binder();
  const projects = binder.bind(request.projectIds, 'Array(UUID)');
  const from = binder.bind(chTime(request.start), TIME);
  const to = binder.bind(chTime(request.end), TIME);
  const conditions = linkFilterConditions(request.filters, binder.bind, request.toolKeys);
  const where = andAll(conditions);
  const eventWhere = andAll(eventConditions(request.filters, binder.bind));
  const clicks = countOf(request.withBots);
  const filtered = filteredEvents(db, projects, conditions, request.attribution);
  // With retired events, each side of the projects' horizons (retired-horizon.ts).
  const { sinceHorizon, beforeHorizon } = horizonParts(db, projects, !!request.retired);
  const retired = request.retired
    ? `
         UNION ALL
         SELECT ${bucketOf(request.interval, 'hour')} AS bucket,
                ${retiredCountOf(request.withBots)} AS clicks, 0 AS shares
         FROM ${db}.clicks_retired
         WHERE project_id IN ${projects}
           AND hour >= ${from} AND hour < ${to}${beforeHorizon} ${filtered}${eventWhere}
         GROUP BY bucket ${COUNTED}`
    : '';
  const sql = `SELECT bucket, sum(clicks) AS clicks, sum(shares) AS shares FROM (
         SELECT ${bucketOf(request.interval, 'toStartOfHour(clicked_at)')} AS bucket,
                ${clicks} AS clicks, 0 AS shares
         FROM ${db}.clicks
         WHERE project_id IN ${projects}
           AND toStartOfHour(clicked_at) >= ${from} AND toStartOfHour(clicked_at) < ${to}${sinceHorizon('clicked_at')} ${filtered}${eventWhere}
         GROUP BY bucket ${COUNTED}${retired}
         UNION ALL
         SELECT ${bucketOf(request.interval, 'shared_at')} AS bucket, 0 AS clicks, count() AS shares
         FROM ${db}.links FINAL
         WHERE project_id IN ${projects} AND shared_at >= ${from} AND shared_at < ${to}${where}
         GROUP BY bucket)
       GROUP BY bucket ORDER BY bucket`;
  return { sql, params: binder.params };
}

/**
 * A project's conversions per interval and type in [start, end) (`conversions`, sorting key
 * project_id, link_id, converted_at); filters as on range (click dimensions: the conversion's
 * click's). Rows: bucket, type, count, value.
 */
export function rangeIntervalConversionsQuery(
  db: string,
  request: RangeIntervalsRequest,
): Statement {
  const binder = new Binder();
  const projects = binder.bind(request.projectIds, 'Array(UUID)');
  const conditions = linkFilterConditions(request.filters, binder.bind, request.toolKeys);
  const filtered = filteredEvents(db, projects, conditions, request.attribution);
  const from = binder.bind(chTime(request.start), TIME);
  const to = binder.bind(chTime(request.end), TIME);
  const eventWhere = andAll(eventConditions(request.filters, binder.bind));
  const { sinceHorizon, beforeHorizon } = horizonParts(db, projects, !!request.retired);
  const raw = `SELECT ${bucketOf(request.interval, 'converted_at')} AS bucket, type,
         count() AS count, sum(value) AS value
       FROM ${db}.conversions
       WHERE project_id IN ${projects} AND converted_at >= ${from}
         AND converted_at < ${to}${sinceHorizon('converted_at')} ${filtered}${eventWhere}
       GROUP BY bucket, type`;
  // Retired events (docs/architecture.md, "Retention"): their hourly rollups, summed with the raw.
  const sql = request.retired
    ? `SELECT bucket, type, sum(count) AS count, sum(value) AS value FROM (
       ${raw}
       UNION ALL
       SELECT ${bucketOf(request.interval, 'hour')} AS bucket, type, sum(n) AS count, sum(value) AS value
       FROM ${db}.conversions_retired
       WHERE project_id IN ${projects} AND hour >= ${from} AND hour < ${to}${beforeHorizon} ${filtered}${eventWhere}
       GROUP BY bucket, type)
       GROUP BY bucket, type`
    : raw;
  return { sql, params: binder.params };
}
