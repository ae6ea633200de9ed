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
  const period = (column: string): string => (inPeriod ? parts.inPeriod(column) : '1');
  const conversions = query.withConversions
    ? `UNION ALL
           SELECT link_id, 0 AS clicks${conversionCounts}
           FROM ${db}.conversions WHERE project_id IN ${projects} AND ${period('converted_at')}
           GROUP BY link_id`
    : '';
  return `SELECT link_id, sum(clicks) AS clicks${conversionSums(query.withConversions)}
        FROM (
          SELECT link_id, ${clicks} AS clicks${noConversions}
          FROM ${db}.clicks
          WHERE project_id IN ${projects} AND ${period('toStartOfHour(clicked_at)')}
          GROUP BY link_id ${COUNTED}
          ${conversions})
        GROUP BY link_id`;
}
