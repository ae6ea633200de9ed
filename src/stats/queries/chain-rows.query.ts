import { CONVERSION_FIGURES, ChainState, RowParts, chainFigureColumns } from './row-parts';
import { activitySql, rangeActivityRowsSql } from './activity.query';
import { keptFiguresSql, movedCorrectionsSql } from './chain-figures.query';

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

/**
 * with_chain=true over the chain figures the store keeps (docs/architecture.md, "Share chains"):
 * the same rows as chainedRowsSql, from the kept figures (each ancestor's descendants' activity per
 * hour, as the events were stamped: chain-figures.query.ts) rather than from every descendant joined to its ancestors.
 *
 * - Per ancestor: its descendants' clicks and conversions in the period (range) or of all time
 *   (totals) from the kept figures; with moved links (`state.moved`), each such link's events stamped
 *   with a chain other than its latest taken from the ancestors they were stamped with and given
 *   to its latest ones (`chain_moves`, the events by their key, `link_chains FINAL`); and its
 *   descendants shared in the period (range) or all of them (totals), from `link_chains FINAL`
 *   (each chain holds its link's shared time).
 *   An ancestor counts when a descendant counted: a click (countOf), a conversion, a share.
 * - Per (group, pivot): the request's links among those ancestors. A link's descendants are its
 *   ancestors' descendants too, and a link's ancestors form one path, so a group's descendants are
 *   those of its topmost members, each once: a member with an ancestor in the same (group, pivot)
 *   adds its shared time only. The members are a materialized CTE (read twice), so the statement
 *   needs enable_materialized_cte (CHAIN_SETTINGS).
 */
export function keptChainRowsSql(parts: RowParts, ownRows: string, state: ChainState): string {
  const { db, query, projects, inPeriod, links, noConversions } = parts;
  const range = query.kind === 'range';
  const conversions = query.withConversions ? CONVERSION_FIGURES : [];
  const chain = chainFigureColumns(query.withConversions);
  const list = (names: string[], as: (name: string) => string): string =>
    names.map((name) => `, ${as(name)}`).join('');
  const period = (column: string): string => (range ? ` AND ${inPeriod(column)}` : '');
  const figures = {
    db,
    projects,
    period: range ? inPeriod : null,
    withBots: query.withBots,
    conversions,
    retired: parts.retired,
  };
  // Every part of the union in one type per column: Int64 (corrections subtract).
  const kept = `SELECT ancestor_id, n_clicks, toInt64(0) AS n_shared${list(conversions, (c) => `n_${c}`)}
          FROM (${keptFiguresSql(figures)})`;
  const zeros = list(conversions, (c) => `toInt64(0) AS n_${c}`);
  const shares = `SELECT arrayJoin(ancestors) AS ancestor_id, toInt64(0) AS n_clicks, toInt64(1) AS n_shared${zeros}
          FROM ${db}.link_chains FINAL
          WHERE project_id IN ${projects} AND depth > 0${period('shared_at')}`;
  const corrections = state.moved
    ? `UNION ALL SELECT ancestor_id, n_clicks, toInt64(0) AS n_shared${list(conversions, (c) => `n_${c}`)}
          FROM (${movedCorrectionsSql(figures)})`
    : '';
  const sums = list(conversions, (c) =>
    /v$/.test(c) ? `sum(n_${c}) AS ${c}` : `toUInt64(sum(n_${c})) AS ${c}`,
  );
  const activity = [
    'clicks > 0',
    'shared > 0',
    ...(query.withConversions
      ? ['pageviews > 0', ...conversions.filter((c) => /c$/.test(c)).map((c) => `${c} > 0`)]
      : []),
  ];
  const ancestors = `SELECT ancestor_id, toUInt64(sum(n_clicks)) AS clicks, toUInt64(sum(n_shared)) AS shared${sums}
        FROM (${kept} UNION ALL ${shares} ${corrections})
        GROUP BY ancestor_id
        HAVING ${activity.join(' OR ')}`;
  // The request's links among those ancestors (members), each once per (group, pivot) it is in;
  // read twice below, so computed once (MATERIALIZED: enable_materialized_cte, rowsStatement).
  const members = `SELECT l.link_id AS m, l.g AS g, l.p AS p, l.shared_at AS m_shared_at,
               a.clicks AS m_clicks, a.shared AS m_shared${list(conversions, (c) => `a.${c} AS m_${c}`)}
        FROM (${links}) AS l
        INNER JOIN (${ancestors}) AS a ON a.ancestor_id = l.link_id`;
  // The members not topmost in their (group, pivot): one of their ancestors is a member there (an
  // ancestor of a member has the member's descendants, so it is among the ancestors above).
  const covered = `SELECT DISTINCT y.m AS m, y.g AS g, y.p AS p
        FROM (SELECT c.m AS m, c.g AS g, c.p AS p, arrayJoin(ch.ancestors) AS x
              FROM (SELECT link_id, ancestors FROM ${db}.link_chains FINAL
                    WHERE project_id IN ${projects} AND depth > 0) AS ch
              INNER JOIN chain_members AS c ON c.m = ch.link_id) AS y
        INNER JOIN chain_members AS z
          ON z.m = y.x AND isNotDistinctFrom(z.g, y.g) AND isNotDistinctFrom(z.p, y.p)`;
  const zeroChain = list(chain, (c) => `toUInt64(0) AS ${c}`).replace(
    /toUInt64\(0\) AS (chain_g\d+v)/g,
    'toInt64(0) AS $1',
  );
  return `SELECT g, p, clicks, shared${list(conversions, (c) => c)}${zeroChain}, shared_at
        FROM (${ownRows})
        UNION ALL
        SELECT g, p, toUInt64(0) AS clicks, toUInt8(0) AS shared${noConversions},
               sumIf(m_clicks, top) AS chain_clicks, sumIf(m_shared, top) AS chain_shares${list(conversions, (c) => `sumIf(m_${c}, top) AS chain_${c}`)},
               max(m_shared_at) AS shared_at
        FROM (
          WITH chain_members AS MATERIALIZED (${members})
          SELECT c.g AS g, c.p AS p, c.m_clicks AS m_clicks, c.m_shared AS m_shared${list(conversions, (c) => `c.m_${c} AS m_${c}`)},
                 c.m_shared_at AS m_shared_at, n.m = 0 AS top
          FROM chain_members AS c
          LEFT ANY JOIN (${covered}) AS n
            ON n.m = c.m AND isNotDistinctFrom(n.g, c.g) AND isNotDistinctFrom(n.p, c.p))
        GROUP BY g, p`;
}

/** The settings of a statement over keptChainRowsSql's rows: its members are a materialized CTE. */
export const CHAIN_SETTINGS = ['enable_materialized_cte = 1'];
