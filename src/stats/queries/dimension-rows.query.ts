import { isDimensionField } from '../stats-fields';
import { CONVERSION_FIGURES, Grouping, RowParts, conversionSums, valueOf } from './row-parts';
import { COUNTED } from './statement';

/**
 * Range's or totals' rows when the request groups, pivots or filters by a click dimension
 * (docs/api.md, "Click dimensions"): figures of events only, read from the dimension columns of
 * `clicks` and `conversions` (a conversion's are its click's). Shares count links, which have no
 * place nor device: no row counts one (`shared` 0), and the answer shows them as null.
 *
 * - Range by click dimensions alone: the period's events summed per (g, p) straight from their
 *   columns (sorting key project_id, link_id, clicked_at; the period on every part).
 * - With a link field (group, pivot or filter), and always on totals (the links shared in the
 *   period): the events summed per link and dimension values, joined to each link's latest
 *   attributes (`links FINAL`), as the joined rows are (rows.query.ts).
 */
export function dimensionRowsSql(parts: RowParts, grouping: Grouping): string {
  const { db, query, projects, inPeriod, where, eventWhere, clicks } = parts;
  const { conversionCounts, noConversions, conversionsOf, sinceHorizon, beforeHorizon } = parts;
  const range = query.kind === 'range';
  const clickPeriod = range ? ` AND ${inPeriod('toStartOfHour(clicked_at)')}` : '';
  const conversionPeriod = range ? ` AND ${inPeriod('converted_at')}` : '';
  const fields = [grouping.group, grouping.pivot];
  const linkFields = fields.filter((f) => f !== null && !isDimensionField(f));
  const events = (keys: string, groupBy: string): string => {
    const conversions = query.withConversions
      ? `UNION ALL
           SELECT ${keys}, 0 AS clicks${conversionCounts} FROM ${db}.conversions
           WHERE project_id IN ${projects}${conversionPeriod}${sinceHorizon('converted_at')}${eventWhere}
           GROUP BY ${groupBy}`
      : '';
    // Retired events (docs/architecture.md, "Retention"): their rollups keep the dimensions.
    const retiredPeriod = range ? ` AND ${inPeriod('hour')}` : '';
    const retired = parts.retired
      ? `
           UNION ALL
           SELECT ${keys}, ${parts.retiredClicks} AS clicks${noConversions} FROM ${db}.clicks_retired
           WHERE project_id IN ${projects}${retiredPeriod}${beforeHorizon}${eventWhere}
           GROUP BY ${groupBy} ${COUNTED}
           ${
             query.withConversions
               ? `UNION ALL
           SELECT ${keys}, 0 AS clicks${parts.retiredConversionCounts} FROM ${db}.conversions_retired
           WHERE project_id IN ${projects}${retiredPeriod}${beforeHorizon}${eventWhere}
           GROUP BY ${groupBy}`
               : ''
           }`
      : '';
    return `SELECT ${keys}, ${clicks} AS clicks${noConversions} FROM ${db}.clicks
           WHERE project_id IN ${projects}${clickPeriod}${sinceHorizon('clicked_at')}${eventWhere}
           GROUP BY ${groupBy} ${COUNTED}
           ${conversions}${retired}`;
  };
  const noFigures = query.withConversions ? `, ${CONVERSION_FIGURES.join(', ')}` : '';
  if (range && linkFields.length === 0 && where === '') {
    const dimension = (field: string | null, name: 'g' | 'p') =>
      field === null ? `NULL AS ${name}` : `${field} AS ${name}`;
    return `SELECT g, p, clicks, toUInt8(0) AS shared${noFigures},
               toDateTime64(0, 3, 'UTC') AS shared_at
        FROM (${events(`${dimension(grouping.group, 'g')}, ${dimension(grouping.pivot, 'p')}`, 'g, p')})`;
  }
  const dimensions = [...new Set(fields.filter((f) => f !== null && isDimensionField(f)))];
  const keys = ['link_id', ...dimensions].join(', ');
  const activity = `SELECT ${keys}, sum(clicks) AS clicks${conversionSums(query.withConversions)}
        FROM (${events(keys, keys)})
        GROUP BY ${keys}`;
  const linkValue = (field: Grouping['group'], name: 'g' | 'p') =>
    field !== null && isDimensionField(field) ? `NULL AS ${name}` : valueOf(field, name);
  const sharedInPeriod = range ? '' : ` AND ${inPeriod('shared_at')}`;
  const links = `SELECT link_id, ${linkValue(grouping.group, 'g')}, ${linkValue(grouping.pivot, 'p')}, shared_at
      FROM ${db}.links FINAL WHERE project_id IN ${projects}${sharedInPeriod}${where}`;
  const pick = (field: Grouping['group'], name: 'g' | 'p') =>
    field !== null && isDimensionField(field) ? `a.${field}` : `l.${name}`;
  return `SELECT ${pick(grouping.group, 'g')} AS g, ${pick(grouping.pivot, 'p')} AS p,
               a.clicks AS clicks, toUInt8(0) AS shared${conversionsOf('a')}, l.shared_at AS shared_at
        FROM (${activity}) AS a INNER JOIN (${links}) AS l ON l.link_id = a.link_id`;
}
