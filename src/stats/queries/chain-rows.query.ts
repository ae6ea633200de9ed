import { CONVERSION_FIGURES, RowParts, chainFigureColumns } from './row-parts';
import { activitySql, rangeActivityRowsSql } from './activity.query';

/**
 * Range's and totals' rows with share chains (docs/api.md, "Share chains"; docs/architecture.md,
 * "Share chains"), over `link_chains FINAL` (project_id, link_id: each link's root and ancestors)
 * beside the joined rows of rows.query.ts. Both forms join every link by id, never the stamps: a
 * chain is a property of the link's place in its cascade, which stamps do not hold.
 */

/** The roots of the links of the projects with a chain (a link without one is its own root). */
function rootsOf(parts: RowParts): string {
  return `SELECT link_id, root_id FROM ${parts.db}.link_chains FINAL WHERE project_id IN ${parts.projects}`;
}

/**
 * attribution=first: each link's activity credited to its root (`link_chains`; a link without a
 * chain to itself), grouped and filtered by the root's attributes (`links`, the request's filters
 * and group values); shares stay with their own link. Range: the activity of the period, a share
 * row per link shared in it. Totals: each link shared in the period, with the all-time activity
 * credited to it. Rows as rows.query.ts gives them.
 */
export function firstTouchRowsSql(parts: RowParts): string {
  const { query, links, conversionsOf } = parts;
  const range = query.kind === 'range';
  const sums = ['clicks', ...(query.withConversions ? CONVERSION_FIGURES : [])]
    .map((c) => `sum(a.${c}) AS ${c}`)
    .join(', ');
  // join_use_nulls is off: a link without a chain row reads root_id 0.
  const credited = `SELECT if(r.root_id = 0, a.link_id, r.root_id) AS root, ${sums}
        FROM (${activitySql(parts, range)}) AS a
        LEFT JOIN (${rootsOf(parts)}) AS r ON r.link_id = a.link_id
        GROUP BY root`;
  if (!range) {
    return `SELECT l.g AS g, l.p AS p, a.clicks AS clicks, toUInt8(1) AS shared${conversionsOf('a')},
             l.shared_at AS shared_at
      FROM (${links}) AS l
      LEFT JOIN (${credited}) AS a ON a.root = l.link_id`;
  }
  return rangeActivityRowsSql(parts, credited, 'root');
}

/**
 * with_chain=true: the request's own rows (`ownRows`, chain figures zero) and, per (group, pivot),
 * the activity of every descendant of its links, each descendant once however many of its
 * ancestors the group holds. Range: the descendants' activity in the period and those shared in
 * it. Totals: their activity of all time, and every descendant as a share. A row of each kind:
 * g, p, clicks, shared, the conversion figures, chainFigureColumns, shared_at (the ancestors' latest
 * shared time on chain rows).
 */
export function chainedRowsSql(parts: RowParts, ownRows: string): string {
  const { db, query, projects, inPeriod, links, noConversions } = parts;
  const range = query.kind === 'range';
  const conversions = query.withConversions ? CONVERSION_FIGURES : [];
  const chain = chainFigureColumns(query.withConversions);
  const list = (names: string[], as: (name: string) => string): string =>
    names.map((name) => `, ${as(name)}`).join('');
  // Each descendant's figures: its activity, and 1 in `shared` when it was shared (in the period).
  const descendants = `SELECT link_id, sum(clicks) AS clicks, sum(shared) AS shared${list(conversions, (c) => `sum(${c}) AS ${c}`)}
        FROM (
          SELECT link_id, clicks, toUInt64(0) AS shared${list(conversions, (c) => c)}
          FROM (${activitySql(parts, range)})
          UNION ALL
          SELECT link_id, 0 AS clicks, toUInt64(1) AS shared${noConversions}
          FROM ${db}.links FINAL
          WHERE project_id IN ${projects}${range ? ` AND ${inPeriod('shared_at')}` : ''})
        GROUP BY link_id`;
  // A row per (descendant, ancestor): every link below its root has ancestors.
  const pairs = `SELECT x.link_id AS link_id, arrayJoin(c.ancestors) AS ancestor,
               x.clicks AS clicks, x.shared AS shared${list(conversions, (c) => `x.${c} AS ${c}`)}
        FROM (${descendants}) AS x
        INNER JOIN (SELECT link_id, ancestors FROM ${db}.link_chains FINAL
                    WHERE project_id IN ${projects} AND depth > 0) AS c
          ON c.link_id = x.link_id`;
  // Each descendant once per (group, pivot) of its ancestors among the request's links.
  // Named d_…: the statement over them names its own columns clicks, shared and the conversions'.
  const perDescendant = `SELECT a.g AS g, a.p AS p, d.link_id AS link_id, any(d.clicks) AS d_clicks,
               any(d.shared) AS d_shared${list(conversions, (c) => `any(d.${c}) AS d_${c}`)},
               max(a.shared_at) AS d_shared_at
        FROM (${pairs}) AS d
        INNER JOIN (${links}) AS a ON a.link_id = d.ancestor
        GROUP BY g, p, link_id`;
  const zeroChain = list(chain, (c) => `toUInt64(0) AS ${c}`).replace(
    /toUInt64\(0\) AS (chain_g\d+v)/g,
    'toInt64(0) AS $1',
  );
  return `SELECT g, p, clicks, shared${list(conversions, (c) => c)}${zeroChain}, shared_at
        FROM (${ownRows})
        UNION ALL
        SELECT g, p, toUInt64(0) AS clicks, toUInt8(0) AS shared${noConversions},
               sum(d_clicks) AS chain_clicks, sum(d_shared) AS chain_shares${list(conversions, (c) => `sum(d_${c}) AS chain_${c}`)},
               max(d_shared_at) AS shared_at
        FROM (${perDescendant})
        GROUP BY g, p`;
}
