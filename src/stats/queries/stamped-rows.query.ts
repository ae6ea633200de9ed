import { CONVERSION_FIGURES, RowParts, StampState, conversionSums } from './row-parts';
import { COUNTED } from './statement';

/**
 * Range's or totals' rows when every field the request groups, pivots or filters by is stamped
 * (docs/architecture.md, "Stamps"): the fresh events and the shares come already summed per (g, p),
 * the other events per link, joined to `links`. Each part is left out, or each condition, when the
 * stamp state says the projects have nothing it would count or leave out.
 *
 * - Fresh clicks, range: projection stamped_hourly of `clicks` (project_id,
 *   toStartOfHour(clicked_at), link_id, link_version, <stamped attributes>); totals: projection
 *   stamped_totals (project_id, shared_at, link_id, link_version, <stamped attributes>).
 * - Fresh conversions and the other events: `clicks` and `conversions` by their sorting keys
 *   (project_id, link_id, time), and `link_updates FINAL` (project_id, link_id).
 * - Shares: `links FINAL` (project_id, link_id), its minmax index of shared_at.
 */
export function stampedRowsSql(parts: RowParts, state: StampState): string {
  const { db, query, projects, inPeriod, where, grouped, links, clicks } = parts;
  const { conversionCounts, noConversions, conversionsOf } = parts;
  const conversionNames = query.withConversions ? `, ${CONVERSION_FIGURES.join(', ')}` : '';
  // Fresh events: stamped with their link's latest version (the version of `link_updates`, or
  // the creation's for a link never updated), so grouped and filtered by their stamps. Each
  // condition is left out when the projects have nothing it would leave out.
  const { updated, unstamped } = state;
  const updates = `SELECT link_id, version FROM ${db}.link_updates FINAL
    WHERE project_id IN ${projects}`;
  const freshOf = (table: 'clicks' | 'conversions'): string | null => {
    const conditions = [
      ...(unstamped[table] ? ['link_version != 0'] : []),
      ...(updated
        ? [
            `(link_id NOT IN (SELECT link_id FROM (${updates}))
              OR (link_id, link_version) IN (${updates}))`,
          ]
        : []),
    ];
    return conditions.length > 0 ? conditions.join(' AND ') : null;
  };
  const freshClickRows = freshOf('clicks');
  const freshConversionRows = query.withConversions ? freshOf('conversions') : null;
  // Range: the events of the period. Totals: all the events of the links shared in the period,
  // by the shared time in the stamp (a fresh stamp's is the link's).
  const range = query.kind === 'range';
  // The latest shared time of a group's links only orders groups or pivots by shared_at: read
  // it only then (a quarter of range's time on the stamped rollup).
  const latest =
    query.sortType === 'shared_at' || query.pivotSortType === 'shared_at'
      ? 'max(shared_at)'
      : "toDateTime64(0, 3, 'UTC')";
  // With retired events (docs/architecture.md, "Retention"), each part has a sibling over the
  // rollups, whose rows hold the same columns, an hour for a time and `n` events apiece.
  // Each reads its side of the projects' horizons (retired-horizon.ts; none without rollups).
  const { sinceHorizon, beforeHorizon } = parts;
  const freshClicksOf = (
    table: string,
    time: string,
    counted: string,
    horizon: string,
  ) => `SELECT g, p, clicks, toUInt64(0) AS shared${noConversions}, last AS shared_at
        FROM (
          SELECT ${grouped}, ${counted} AS clicks, ${latest} AS last FROM ${db}.${table}
          WHERE project_id IN ${projects} AND ${inPeriod(range ? time : 'shared_at')}${horizon}${andIf(freshClickRows)}${where}
          GROUP BY g, p ${COUNTED})`;
  const freshConversionsOf = (
    table: string,
    time: string,
    counts: string,
    horizon: string,
  ) => `UNION ALL
           SELECT g, p, 0 AS clicks, toUInt64(0) AS shared${conversionNames}, last AS shared_at
           FROM (
             SELECT ${grouped}${counts}, ${latest} AS last FROM ${db}.${table}
             WHERE project_id IN ${projects} AND ${inPeriod(range ? time : 'shared_at')}${horizon}${andIf(freshConversionRows)}${where}
             GROUP BY g, p)`;
  const freshClicks = [
    freshClicksOf('clicks', 'toStartOfHour(clicked_at)', clicks, sinceHorizon('clicked_at')),
    ...(parts.retired
      ? [freshClicksOf('clicks_retired', 'hour', parts.retiredClicks, beforeHorizon)]
      : []),
  ].join('\n        UNION ALL\n        ');
  const freshConversions = query.withConversions
    ? [
        freshConversionsOf(
          'conversions',
          'converted_at',
          conversionCounts,
          sinceHorizon('converted_at'),
        ),
        ...(parts.retired
          ? [
              freshConversionsOf(
                'conversions_retired',
                'hour',
                parts.retiredConversionCounts,
                beforeHorizon,
              ),
            ]
          : []),
      ].join('\n')
    : '';
  // The other events (not stamped, or stamped with an earlier version of an updated link): each
  // link's, joined to its latest attributes (`links`, which for totals holds the links shared
  // in the period). The per-link sums are the join's build side: when there are none, `links`
  // is not read.
  const staleParts: string[] = [];
  if (freshClickRows) {
    staleParts.push(`SELECT link_id, ${clicks} AS clicks${noConversions} FROM ${db}.clicks
               WHERE project_id IN ${projects}
                 AND ${range ? inPeriod('toStartOfHour(clicked_at)') : '1'}${sinceHorizon('clicked_at')} AND NOT (${freshClickRows})
               GROUP BY link_id ${COUNTED}`);
  }
  if (freshConversionRows) {
    staleParts.push(`SELECT link_id, 0 AS clicks${conversionCounts} FROM ${db}.conversions
               WHERE project_id IN ${projects}
                 AND ${range ? inPeriod('converted_at') : '1'}${sinceHorizon('converted_at')} AND NOT (${freshConversionRows})
               GROUP BY link_id`);
  }
  if (parts.retired && freshClickRows) {
    staleParts.push(`SELECT link_id, ${parts.retiredClicks} AS clicks${noConversions} FROM ${db}.clicks_retired
               WHERE project_id IN ${projects}
                 AND ${range ? inPeriod('hour') : '1'}${beforeHorizon} AND NOT (${freshClickRows})
               GROUP BY link_id ${COUNTED}`);
  }
  if (parts.retired && freshConversionRows) {
    staleParts.push(`SELECT link_id, 0 AS clicks${parts.retiredConversionCounts} FROM ${db}.conversions_retired
               WHERE project_id IN ${projects}
                 AND ${range ? inPeriod('hour') : '1'}${beforeHorizon} AND NOT (${freshConversionRows})
               GROUP BY link_id`);
  }
  const staleSums = `SELECT link_id, sum(clicks) AS clicks${conversionSums(query.withConversions)}
               FROM (${staleParts.join(' UNION ALL ')}) GROUP BY link_id`;
  const stale =
    staleParts.length > 0
      ? `UNION ALL
             SELECT l.g AS g, l.p AS p, a.clicks AS clicks, toUInt64(0) AS shared${conversionsOf('a')},
                    l.shared_at AS shared_at
             FROM (${links}) AS l
             INNER JOIN (${staleSums}) AS a
               ON l.link_id = a.link_id`
      : '';
  // Every link shared in the period, as share counts per (g, p).
  const shares = `SELECT g, p, 0 AS clicks, shared${noConversions}, last AS shared_at FROM (
          SELECT ${grouped}, count() AS shared, ${latest} AS last FROM ${db}.links FINAL
          WHERE project_id IN ${projects} AND ${inPeriod('shared_at')}${where}
          GROUP BY g, p)`;
  return `${freshClicks}
        ${freshConversions}
        ${stale}
        UNION ALL
        ${shares}`;
}

/** ` AND condition`, or nothing for none. */
function andIf(condition: string | null): string {
  return condition ? ` AND ${condition}` : '';
}
