import { keptFiguresSql, movedCorrectionsSql } from './chain-figures.query';
import { CascadeRequest, activityByKeySql, bindCascade, membersSql } from './chain.query';
import { CONVERSION_FIGURES } from './row-parts';
import { Binder, Statement } from './statement';

/**
 * chain.json over the chain figures the store keeps (docs/architecture.md, "Share chains"): the
 * same rows as cascadeGenerationsQuery and cascadeChildrenQuery (chain.query.ts), the descendants'
 * activity from the kept figures (chain-figures.query.ts: per generation below the link, or below
 * each child) instead of every descendant's events by key. The descendants themselves (their shares and sharers) are
 * still read from `link_chains FINAL` (has(ancestors, link): its bloom filter) and `links FINAL`.
 */

/** The request's values bound, and the pieces both statements are made of. */
interface Parts {
  project: string;
  link: string;
  conversions: readonly string[];
  /** The link and its descendants with their shares and sharers (membersSql without activity). */
  members: string;
  /** Activity rows per (ancestor_id, generation): the kept figures and the moved links' corrections. */
  kept: (ancestors: string) => string;
  /** The activity of links (a subquery of link ids) by their key (activityByKeySql). */
  own: (links: string) => string;
}

function partsOf(db: string, request: CascadeRequest, binder: Binder): Parts {
  const binding = bindCascade(request, binder);
  const { project, link, inWindow, windowed } = binding;
  const conversions = request.withConversions ? CONVERSION_FIGURES : [];
  const figures = {
    db,
    projects: `[${project}]`,
    period: windowed ? inWindow : null,
    withBots: request.withBots,
    conversions,
    retired: request.retired,
  };
  const moved = movedCorrectionsSql(figures);
  const kept = (ancestors: string): string => `${keptFiguresSql(figures, ancestors)}
          UNION ALL
          SELECT ancestor_id, generation, n_clicks${each(conversions, (c) => `n_${c}`)}
          FROM (${moved}) WHERE ancestor_id IN (${ancestors})`;
  return {
    project,
    link,
    conversions,
    members: membersSql(request, db, binding, false),
    kept,
    own: (links) => activityByKeySql(db, request, binding, links),
  };
}

/** `, sum(x) AS x`-like pieces over the conversion figures. */
function each(conversions: readonly string[], as: (name: string) => string): string {
  return conversions.map((name) => `, ${as(name)}`).join('');
}

/**
 * cascadeGenerationsQuery over the kept figures: per generation, the shares and sharers of the
 * descendants (members), and their activity from the kept figures (ancestor: the link), the link's
 * own (generation 0) by its key. Same rows and totals.
 */
export function keptCascadeGenerationsQuery(db: string, request: CascadeRequest): Statement {
  const binder = new Binder();
  const parts = partsOf(db, request, binder);
  const { conversions, link } = parts;
  const zeros = each(conversions, (c) =>
    /v$/.test(c) ? `toInt64(0) AS ${c}` : `toUInt64(0) AS ${c}`,
  );
  const sums = (prefix: string) =>
    each(conversions, (c) =>
      /v$/.test(c) ? `sum(${prefix}${c}) AS ${c}` : `toUInt64(sum(${prefix}${c})) AS ${c}`,
    );
  const rows = `SELECT generation, shared, sharer, toUInt64(0) AS clicks${zeros}
        FROM (${parts.members})
        UNION ALL
        SELECT toInt64(generation) AS generation, toUInt8(0) AS shared, '' AS sharer,
               toUInt64(sum(n_clicks)) AS clicks${sums('n_')}
        FROM (${parts.kept(link)})
        GROUP BY generation
        UNION ALL
        SELECT toInt64(0) AS generation, toUInt8(0) AS shared, '' AS sharer, clicks${each(conversions, (c) => c)}
        FROM (${parts.own(link)})`;
  return {
    sql: `SELECT generation, countIf(shared = 1) AS shares,
              uniqExactIf(sharer, shared = 1) AS sharers,
              uniqExactIf(sharer, shared = 1 AND generation > 0) AS all_sharers,
              sum(clicks) AS clicks${each(conversions, (c) => `sum(${c}) AS ${c}`)}
       FROM (${rows})
       GROUP BY generation WITH TOTALS
       ORDER BY generation`,
    params: binder.params,
  };
}

/**
 * cascadeChildrenQuery over the kept figures: each direct child's own figures by its key, its
 * descendants' from the kept figures (ancestor: the child), their shares, sharers and the deepest
 * generation with a share or a click from the members. Same rows, order and total_results.
 */
export function keptCascadeChildrenQuery(
  db: string,
  request: CascadeRequest,
  page: { perPage: number; offset: number },
): Statement {
  const binder = new Binder();
  const parts = partsOf(db, request, binder);
  const { project, link, conversions } = parts;
  const childDepth = binder.bind(request.depth + 1, 'Int64');
  const limit = binder.bind(page.perPage, 'UInt64');
  const offset = binder.bind(page.offset, 'UInt64');
  const children = `SELECT link_id FROM ${db}.link_chains FINAL
        WHERE project_id = ${project} AND has(ancestors, ${link}) AND toInt64(depth) = ${childDepth}`;
  // Below each child: its descendants' shares and sharers (a member at generation g below the
  // link descends from the child at ancestors[g - 1]).
  const shared = `SELECT arrayElement(ancestors, generation - 1) AS child,
               countIf(shared = 1) AS down_shares, uniqExactIf(sharer, shared = 1) AS sharers,
               maxIf(generation - 1, shared = 1) AS deepest
        FROM (${parts.members}) WHERE generation > 1
        GROUP BY child`;
  const downSums = each(conversions, (c) =>
    /v$/.test(c) ? `sum(n_${c}) AS down_${c}` : `toUInt64(sum(n_${c})) AS down_${c}`,
  );
  const activity = `SELECT ancestor_id AS child, toUInt64(sum(n_clicks)) AS down_clicks${downSums},
               maxIf(toInt64(generation), n_clicks > 0) AS active
        FROM (SELECT ancestor_id, generation, sum(n_clicks) AS n_clicks${each(conversions, (c) => `sum(n_${c}) AS n_${c}`)}
              FROM (${parts.kept(children)}) GROUP BY ancestor_id, generation)
        GROUP BY child`;
  const outer = each(conversions, (c) => `o.${c} AS own_${c}, a.down_${c} AS down_${c}`);
  return {
    sql: `SELECT l.svc_id AS svc_id, l.channel AS channel, l.sharer_id AS sharer_id,
              l.user_id AS user_id, o.clicks AS own_clicks${outer},
              s.down_shares AS down_shares, s.sharers AS sharers, a.down_clicks AS down_clicks,
              toUInt64(greatest(s.deepest, a.active)) AS generations, count() OVER () AS total_results
       FROM (SELECT link_id, svc_id, channel, sharer_id, user_id FROM ${db}.links FINAL
             WHERE project_id = ${project} AND link_id IN (${children})) AS l
       LEFT JOIN (${parts.own(children)}) AS o ON o.link_id = l.link_id
       LEFT JOIN (${activity}) AS a ON a.child = l.link_id
       LEFT JOIN (${shared}) AS s ON s.child = l.link_id
       ORDER BY o.clicks + a.down_clicks DESC, l.svc_id ASC
       LIMIT ${limit} OFFSET ${offset}`,
    params: binder.params,
  };
}
