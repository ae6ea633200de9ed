import { chTime } from '../../analytics/analytics-client';
import { GOALS } from '../../common/goals';
import {
  CONVERSION_FIGURES,
  horizonParts,
  retiredConversionCounts,
  retiredCountOf,
} from './row-parts';
import { Binder, Statement, TIME, countOf } from './statement';

/** One link's cascade as stats/{svc_id}/chain.json reads it (docs/api.md, "Share chains"). */
export interface CascadeRequest {
  projectId: string;
  linkId: string;
  /** The link's depth below its root (0 without a chain yet). */
  depth: number;
  /** The activity window; all time for null ends. */
  start: Date | null;
  end: Date | null;
  withConversions: boolean;
  withBots: boolean;
  /** Whether the project has retired events (docs/architecture.md, "Retention"); absent: none. */
  retired?: boolean;
}

/** A cascade request's values bound once: the project, the link, its depth, its activity window. */
export interface CascadeBinding {
  project: string;
  link: string;
  depth: string;
  /** The window's conditions on a time column ('1' for an open end). */
  inWindow: (column: string) => string;
  /** Whether the window has an end (else all time). */
  windowed: boolean;
}

export function bindCascade(request: CascadeRequest, binder: Binder): CascadeBinding {
  const project = binder.bind(request.projectId, 'UUID');
  const link = binder.bind(Number(request.linkId), 'UInt64');
  const depth = binder.bind(request.depth, 'Int64');
  const start = request.start ? binder.bind(chTime(request.start), TIME) : null;
  const end = request.end ? binder.bind(chTime(request.end), TIME) : null;
  return {
    project,
    link,
    depth,
    inWindow: (column) =>
      [start ? `${column} >= ${start}` : '1', end ? `${column} < ${end}` : '1'].join(' AND '),
    windowed: start !== null || end !== null,
  };
}

/**
 * The link and its descendants, a row each: link_id, generation (0: the link, 1: its children, …)
 * and ancestors (parent first), from `link_chains FINAL` (has(ancestors, link): its bloom filter
 * skips the granules of other cascades).
 */
export function descendantsSql(db: string, { project, link, depth }: CascadeBinding): string {
  return `SELECT link_id, toInt64(depth) - ${depth} AS generation, ancestors
        FROM ${db}.link_chains FINAL
        WHERE project_id = ${project} AND has(ancestors, ${link})
        UNION ALL
        SELECT ${link} AS link_id, toInt64(0) AS generation, CAST([], 'Array(UInt64)') AS ancestors`;
}

/**
 * The activity in the window of the links `ids` (a subquery of link ids), by the sorting keys of
 * `clicks` and `conversions` (project_id, link_id, time): link_id, clicks (countOf), and with
 * conversions a column per figure.
 */
export function activityByKeySql(
  db: string,
  request: CascadeRequest,
  { project, inWindow }: CascadeBinding,
  ids: string,
): string {
  // With retired events, each side of the project's horizon (retired-horizon.ts).
  const { sinceHorizon, beforeHorizon } = horizonParts(db, `[${project}]`, !!request.retired);
  const conversions = request.withConversions
    ? `UNION ALL
          SELECT link_id, 0 AS clicks, countIf(type = 'pageview') AS pageviews,
                 ${GOALS.map((n) => `countIf(type = 'goal_${n}') AS g${n}c, sumIf(value, type = 'goal_${n}') AS g${n}v`).join(', ')}
          FROM ${db}.conversions
          WHERE project_id = ${project} AND link_id IN (${ids}) AND ${inWindow('converted_at')}${sinceHorizon('converted_at')}
          GROUP BY link_id`
    : '';
  const noConversions = request.withConversions
    ? `, toUInt64(0) AS pageviews, ${GOALS.map((n) => `toUInt64(0) AS g${n}c, toInt64(0) AS g${n}v`).join(', ')}`
    : '';
  const figures = conversionNames(request.withConversions);
  // Retired events (docs/architecture.md, "Retention"): the links' hourly rollups too.
  const retired = request.retired
    ? `
          UNION ALL
          SELECT link_id, ${retiredCountOf(request.withBots)} AS clicks${noConversions}
          FROM ${db}.clicks_retired
          WHERE project_id = ${project} AND link_id IN (${ids}) AND ${inWindow('hour')}${beforeHorizon}
          GROUP BY link_id
          ${
            request.withConversions
              ? `UNION ALL
          SELECT link_id, 0 AS clicks${retiredConversionCounts()}
          FROM ${db}.conversions_retired
          WHERE project_id = ${project} AND link_id IN (${ids}) AND ${inWindow('hour')}${beforeHorizon}
          GROUP BY link_id`
              : ''
          }`
    : '';
  return `SELECT link_id, sum(clicks) AS clicks${figures.map((c) => `, sum(${c}) AS ${c}`).join('')}
        FROM (
          SELECT link_id, ${countOf(request.withBots)} AS clicks${noConversions}
          FROM ${db}.clicks
          WHERE project_id = ${project} AND link_id IN (${ids}) AND ${inWindow('clicked_at')}${sinceHorizon('clicked_at')}
          GROUP BY link_id
          ${conversions}${retired})
        GROUP BY link_id`;
}

/**
 * The link and its descendants (descendantsSql), a row each, with `shared` (1 when shared in the
 * window) and the sharer (sharer_id, else user_id, else the link) from `links FINAL`, and, unless
 * `withActivity` is false, the activity in the window (activityByKeySql) for those links only.
 */
export function membersSql(
  request: CascadeRequest,
  db: string,
  binding: CascadeBinding,
  withActivity = true,
): string {
  const { project, inWindow } = binding;
  const members = descendantsSql(db, binding);
  const ids = `SELECT link_id FROM (${members})`;
  const figures = withActivity ? conversionNames(request.withConversions) : [];
  const activity = withActivity
    ? `LEFT JOIN (${activityByKeySql(db, request, binding, ids)}) AS a ON a.link_id = m.link_id`
    : '';
  return `SELECT m.link_id AS link_id, m.generation AS generation, m.ancestors AS ancestors,
               l.shared AS shared, l.sharer AS sharer${withActivity ? ', a.clicks AS clicks' : ''}${figures.map((c) => `, a.${c} AS ${c}`).join('')}
        FROM (${members}) AS m
        LEFT JOIN (
          SELECT link_id, toUInt8(${inWindow('shared_at')}) AS shared,
                 coalesce(sharer_id, user_id, toString(link_id)) AS sharer
          FROM ${db}.links FINAL
          WHERE project_id = ${project} AND link_id IN (${ids})) AS l
          ON l.link_id = m.link_id
        ${activity}`;
}

/** The conversion figure columns (pageviews, g1c, g1v, …), none without conversions. */
function conversionNames(withConversions: boolean): string[] {
  return withConversions ? CONVERSION_FIGURES : [];
}

/**
 * The cascade per generation (0: the link itself), with totals (WITH TOTALS, for
 * AnalyticsClient.queryPage) whose `all_sharers` counts the distinct sharers of every generation
 * below the link. Rows: generation, shares, sharers, all_sharers, clicks, the conversion figures;
 * in generation order.
 */
export function cascadeGenerationsQuery(db: string, request: CascadeRequest): Statement {
  const binder = new Binder();
  const members = membersSql(request, db, bindCascade(request, binder));
  const sums = conversionNames(request.withConversions)
    .map((c) => `, sum(${c}) AS ${c}`)
    .join('');
  return {
    sql: `SELECT generation, countIf(shared = 1) AS shares,
              uniqExactIf(sharer, shared = 1) AS sharers,
              uniqExactIf(sharer, shared = 1 AND generation > 0) AS all_sharers,
              sum(clicks) AS clicks${sums}
       FROM (${members})
       GROUP BY generation WITH TOTALS
       ORDER BY generation`,
    params: binder.params,
  };
}

/**
 * A page of the link's direct children, each with its own figures (own_…) and its descendants'
 * (down_…: shares, clicks, the conversion figures; sharers, generations), sorted by all their clicks
 * (own and downstream) descending, then svc_id; with the number of children (total_results). A
 * descendant `generation` g below the link descends from the child at ancestors[g - 1].
 */
export function cascadeChildrenQuery(
  db: string,
  request: CascadeRequest,
  page: { perPage: number; offset: number },
): Statement {
  const binder = new Binder();
  const members = membersSql(request, db, bindCascade(request, binder));
  const project = binder.bind(request.projectId, 'UUID');
  const link = binder.bind(Number(request.linkId), 'UInt64');
  const childDepth = binder.bind(request.depth + 1, 'Int64');
  const limit = binder.bind(page.perPage, 'UInt64');
  const offset = binder.bind(page.offset, 'UInt64');
  const figures = conversionNames(request.withConversions);
  const own = figures.map((c) => `, sumIf(${c}, generation = 1) AS own_${c}`).join('');
  // Named own_… and down_…: an alias the same as a column would stand for it in the other sums.
  const below = figures.map((c) => `, sumIf(${c}, generation > 1) AS down_${c}`).join('');
  const outer = figures.map((c) => `, c.own_${c} AS own_${c}, c.down_${c} AS down_${c}`).join('');
  const children = `SELECT child, sumIf(clicks, generation = 1) AS own_clicks${own},
               countIf(shared = 1 AND generation > 1) AS down_shares,
               uniqExactIf(sharer, shared = 1 AND generation > 1) AS sharers,
               sumIf(clicks, generation > 1) AS down_clicks${below},
               toUInt64(maxIf(generation - 1, generation > 1 AND (shared = 1 OR clicks > 0))) AS generations
        FROM (
          SELECT if(generation = 1, link_id, arrayElement(ancestors, generation - 1)) AS child,
                 generation, shared, sharer, clicks${figures.map((c) => `, ${c}`).join('')}
          FROM (${members}) WHERE generation >= 1)
        GROUP BY child`;
  return {
    sql: `SELECT l.svc_id AS svc_id, l.channel AS channel, l.sharer_id AS sharer_id,
              l.user_id AS user_id, c.own_clicks AS own_clicks${outer},
              c.down_shares AS down_shares, c.sharers AS sharers, c.down_clicks AS down_clicks,
              c.generations AS generations, count() OVER () AS total_results
       FROM (${children}) AS c
       INNER JOIN (SELECT link_id, svc_id, channel, sharer_id, user_id FROM ${db}.links FINAL
                   WHERE project_id = ${project} AND link_id IN (
                     SELECT link_id FROM ${db}.link_chains FINAL
                     WHERE project_id = ${project} AND has(ancestors, ${link})
                       AND toInt64(depth) = ${childDepth})) AS l
         ON l.link_id = c.child
       ORDER BY c.own_clicks + c.down_clicks DESC, l.svc_id ASC
       LIMIT ${limit} OFFSET ${offset}`,
    params: binder.params,
  };
}
