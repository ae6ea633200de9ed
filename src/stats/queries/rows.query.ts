import { StatsQuery } from '../stats-query';
import {
  Grouping,
  ProjectScope,
  RowParts,
  RowsContext,
  conversionSums,
  rowParts,
} from './row-parts';
import { usesDimensions } from '../stats-fields';
import { dimensionRowsSql } from './dimension-rows.query';
import { stampedRowsSql } from './stamped-rows.query';
import { activitySql, rangeActivityRowsSql } from './activity.query';
import { chainedRowsSql, firstTouchRowsSql, keptChainRowsSql } from './chain-rows.query';
import { Binder } from './statement';

/**
 * The rows of range and totals (docs/architecture.md, "How a statistic flows"): figures with the
 * group and pivot values (g, p) and the shared time of their links; `shared` counts the links a
 * row counts as shares. On stamps (`context.stamped`, stampedRowsSql) the fresh events and the
 * shares come already summed per (g, p), the other events per link; joined to `links`, a row per
 * link. A multi-value tag group or pivot (joined only) gives a row per value (one with null when
 * the link has none). By click dimensions, the events alone (dimensionRowsSql). Every statement over them sums the rows per group, pivot or in all
 * (range-totals.query.ts). Values are bound through `binder`, so that the statement binds its own
 * after them.
 */
export function rowsSql(
  db: string,
  query: StatsQuery,
  scope: ProjectScope,
  context: RowsContext,
  binder: Binder,
  grouping: Grouping,
): string {
  const parts = rowParts(db, query, scope, context, binder, grouping);
  // Share chains (chain-rows.query.ts): by link attributes only, every link joined.
  if (query.attribution === 'first') return firstTouchRowsSql(parts);
  if (query.withChain) {
    const own = context.stamped
      ? stampedRowsSql(parts, context.stamped)
      : query.kind === 'range'
        ? rangeRowsSql(parts)
        : totalsRowsSql(parts);
    return readsKeptChains(query, context)
      ? keptChainRowsSql(parts, own, context.chains!)
      : chainedRowsSql(parts, own);
  }
  if (usesDimensions(query)) return dimensionRowsSql(parts, grouping);
  if (context.stamped) return stampedRowsSql(parts, context.stamped);
  return query.kind === 'range' ? rangeRowsSql(parts) : totalsRowsSql(parts);
}

/** Whether the rows' chain figures are the store's (keptChainRowsSql): no event lacks a chain stamp. */
export function readsKeptChains(query: StatsQuery, context: RowsContext): boolean {
  return query.withChain && !!context.chains && !context.chains.unstamped;
}

/**
 * Range joined: each link's activity in the period (clicks, and conversions a column per type)
 * joined to its attributes, and a share row for each link shared in the period: a link is in the
 * rows when it had activity or was shared in the period (two rows when both). Joining only the
 * active links, rather than every link of the project to its activity, reads less. Clicks per link
 * from projection stamped_hourly of `clicks` (project_id, toStartOfHour(clicked_at), link_id, …),
 * conversions by the sorting key of `conversions` (project_id, link_id, converted_at), attributes
 * from `links FINAL` (project_id, link_id).
 */
export function rangeRowsSql(parts: RowParts): string {
  return rangeActivityRowsSql(parts, activitySql(parts, true), 'link_id');
}

/**
 * Totals joined: the all-time figures of the links shared in the period (`links FINAL`, its minmax
 * index of shared_at): each link's clicks in countOf's aggregates, which a projection of `clicks`
 * (stamped_hourly or stamped_totals, both keyed by project_id and link_id) answers, and its
 * conversions by the sorting key of `conversions` (project_id, link_id, converted_at).
 */
export function totalsRowsSql(parts: RowParts): string {
  const { db, query, projects, links, clicks, conversionCounts, conversionsOf } = parts;
  const { sinceHorizon, beforeHorizon } = parts;
  // With retired events (docs/architecture.md, "Retention"), each link's sums add its rollups'.
  const perLink = (raw: string, retired: string, figures: string) =>
    parts.retired
      ? `SELECT link_id, ${figures} FROM (${raw} UNION ALL ${retired}) GROUP BY link_id`
      : raw;
  const conversionTotals = query.withConversions
    ? `LEFT JOIN (${perLink(
        `SELECT link_id${conversionCounts} FROM ${db}.conversions
                   WHERE project_id IN ${projects}${sinceHorizon('converted_at')} GROUP BY link_id`,
        `SELECT link_id${parts.retiredConversionCounts} FROM ${db}.conversions_retired
                   WHERE project_id IN ${projects}${beforeHorizon} GROUP BY link_id`,
        conversionSums(true).slice(2),
      )}) AS c
        ON c.link_id = l.link_id`
    : '';
  const clickTotals = perLink(
    `SELECT link_id, ${clicks} AS clicks FROM ${db}.clicks
                 WHERE project_id IN ${projects}${sinceHorizon('clicked_at')} GROUP BY link_id`,
    `SELECT link_id, ${parts.retiredClicks} AS clicks FROM ${db}.clicks_retired
                 WHERE project_id IN ${projects}${beforeHorizon} GROUP BY link_id`,
    'sum(clicks) AS clicks',
  );
  return `SELECT l.g AS g, l.p AS p, t.clicks AS clicks, toUInt8(1) AS shared${conversionsOf('c')},
             l.shared_at AS shared_at
      FROM (${links}) AS l
      LEFT JOIN (${clickTotals}) AS t
        ON t.link_id = l.link_id
      ${conversionTotals}`;
}
