import { RowParts, conversionSums } from './row-parts';
import { COUNTED } from './statement';

/**
 * Each link's activity (link_id, clicks, and conversions a column per type): in the period
 * (`inPeriod`) or of all time. Clicks per link from projection stamped_hourly of `clicks`
 * (project_id, toStartOfHour(clicked_at), link_id, …), conversions by the sorting key of
 * `conversions` (project_id, link_id, converted_at).
 */
export function activitySql(parts: RowParts, inPeriod: boolean): string {
  const { db, query, projects, clicks, conversionCounts, noConversions } = parts;
  const { sinceHorizon, beforeHorizon } = parts;
  const period = (column: string): string => (inPeriod ? parts.inPeriod(column) : '1');
  const conversions = query.withConversions
    ? `UNION ALL
           SELECT link_id, 0 AS clicks${conversionCounts}
           FROM ${db}.conversions WHERE project_id IN ${projects} AND ${period('converted_at')}${sinceHorizon('converted_at')}
           GROUP BY link_id`
    : '';
  // Retired events (docs/architecture.md, "Retention"): per link from their hourly rollups too.
  const retired = parts.retired
    ? `
          UNION ALL
          SELECT link_id, ${parts.retiredClicks} AS clicks${noConversions}
          FROM ${db}.clicks_retired
          WHERE project_id IN ${projects} AND ${period('hour')}${beforeHorizon}
          GROUP BY link_id ${COUNTED}
          ${
            query.withConversions
              ? `UNION ALL
          SELECT link_id, 0 AS clicks${parts.retiredConversionCounts}
          FROM ${db}.conversions_retired WHERE project_id IN ${projects} AND ${period('hour')}${beforeHorizon}
          GROUP BY link_id`
              : ''
          }`
    : '';
  return `SELECT link_id, sum(clicks) AS clicks${conversionSums(query.withConversions)}
        FROM (
          SELECT link_id, ${clicks} AS clicks${noConversions}
          FROM ${db}.clicks
          WHERE project_id IN ${projects} AND ${period('toStartOfHour(clicked_at)')}${sinceHorizon('clicked_at')}
          GROUP BY link_id ${COUNTED}
          ${conversions}${retired})
        GROUP BY link_id`;
}

/**
 * Range's rows over an activity statement (`activity`, its link in column `key`): the activity
 * joined to its link's attributes, and a share row for each link shared in the period.
 */
export function rangeActivityRowsSql(parts: RowParts, activity: string, key: string): string {
  const { inPeriod, links, noConversions, conversionsOf } = parts;
  return `SELECT l.g AS g, l.p AS p, a.clicks AS clicks, toUInt8(0) AS shared${conversionsOf('a')},
               l.shared_at AS shared_at
        FROM (${activity}) AS a INNER JOIN (${links}) AS l ON l.link_id = a.${key}
        UNION ALL
        SELECT g, p, 0 AS clicks, toUInt8(1) AS shared${noConversions}, shared_at
        FROM (${links}) WHERE ${inPeriod('shared_at')}`;
}
