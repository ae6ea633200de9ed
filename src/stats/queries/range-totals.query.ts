import { GOALS } from '../../common/goals';
import { GroupValue, NULL_KEY, keyOf } from '../figures';
import { isMultiTagField } from '../stats-fields';
import { SortOrder, StatsQuery } from '../stats-query';
import { ProjectScope, RowsContext, figureColumns, figureSums } from './row-parts';
import { readsKeptChains, rowsSql } from './rows.query';
import { CHAIN_SETTINGS } from './chain-rows.query';
import { Binder, Statement, withSettings } from './statement';

/**
 * The statements of stats/range.json and stats/totals.json (docs/api.md, "Statistics"), each over
 * the request's rows (rows.query.ts) and read by the sorting keys and projections those name. A
 * request without group_by is one statement (aggregateTotalsQuery); with one, groups are sorted
 * and paged by ClickHouse: with a pivot, when every link counts in one group and one pivot, groups
 * and the page's pivots come from one statement (groupsWithPivotsQuery), else the page of groups
 * (groupPageQuery) and its pivots (pagePivotsQuery) are two, and a multi-value tag group needs
 * its totals from a third. with_zeros reads the pivot values of the whole result
 * (pivotValuesQuery).
 */

/** A request's rows and how they are read: by which projects, with which tool keys and stamps. */
export interface RowsRequest {
  query: StatsQuery;
  scope: ProjectScope;
  context: RowsContext;
}

/**
 * Whether the groups count a link once each: not when grouped by a multi-value tag (tag_2 …), nor
 * with chains (a descendant counts in the chain of each group that holds one of its ancestors).
 */
export function countsOnceByGroup(query: StatsQuery): boolean {
  return query.groupBy === null || (!isMultiTagField(query.groupBy) && !query.withChain);
}

/** Whether groups and their pivots come from one statement (groupsWithPivotsQuery). */
export function fusesPivots(query: StatsQuery): boolean {
  return (
    query.groupBy !== null &&
    query.pivot !== null &&
    !query.withChain &&
    !isMultiTagField(query.groupBy) &&
    !isMultiTagField(query.pivot)
  );
}

/** The totals alone (no group_by, or beside groups of a multi-value tag). Rows: one, figures. */
export function aggregateTotalsQuery(db: string, request: RowsRequest): Statement {
  const binder = new Binder();
  const rows = rowsSql(db, request.query, request.scope, request.context, binder, {
    group: null,
    pivot: null,
  });
  return rowsStatement(
    request,
    `SELECT ${figureSums(request.query.withConversions, request.query.withChain)} FROM (${rows})`,
    binder,
  );
}

/**
 * The page of groups, sorted by ClickHouse, with the number of groups (rows before the LIMIT,
 * exact) and, unless a link counts in several groups (multi-value tags), the totals as the sum of
 * the groups (WITH TOTALS: cheaper to plan than window functions over the groups). For
 * AnalyticsClient.queryPage. Rows: g, the figures, last_shared.
 */
export function groupPageQuery(db: string, request: RowsRequest): Statement {
  const { query } = request;
  const binder = new Binder();
  const rows = rowsSql(db, query, request.scope, request.context, binder, {
    group: query.groupBy,
    pivot: null,
  });
  const limit = binder.bind(query.perPage, 'UInt64');
  const offset = binder.bind(query.offset, 'UInt64');
  const order = `${sortExpression(query.sortType, 'g')} ${direction(query.sortOrder)}`;
  const sql = `SELECT g, ${figureSums(query.withConversions, query.withChain)}, max(shared_at) AS last_shared
       FROM (${rows})
       GROUP BY g${countsOnceByGroup(query) ? ' WITH TOTALS' : ''}
       ORDER BY ${order} NULLS LAST, g ASC NULLS LAST
       LIMIT ${limit} OFFSET ${offset}`;
  return rowsStatement(request, sql, binder, ['exact_rows_before_limit = 1']);
}

/**
 * Groups and pivots in one pass over the rows, when every link counts in one group and one pivot
 * (fusesPivots): the rows are summed per (group, pivot), then per group, each group carrying its
 * pivots as an array of tuples (p, figures in figureColumns' order[, last_shared]); groups are
 * sorted and paged by ClickHouse, window sums over every group give the totals (T_…) and the count
 * (total_results). Rows: g, G_ figures, G_last_shared, pivots, total_results, T_ figures; none
 * when the page is empty.
 */
export function groupsWithPivotsQuery(db: string, request: RowsRequest): Statement {
  const { query } = request;
  const binder = new Binder();
  const rows = rowsSql(db, query, request.scope, request.context, binder, {
    group: query.groupBy,
    pivot: query.pivot,
  });
  const figures = figureColumns(query.withConversions);
  const limit = binder.bind(query.perPage, 'UInt64');
  const offset = binder.bind(query.offset, 'UInt64');
  // A pivot's latest shared time only orders pivots by shared_at: otherwise its tuple leaves it
  // out (a constant there, and half of the result's bytes with 1,000 pivots per group).
  const tuple = [...figures, ...(pivotTuplesHoldShared(query) ? ['last_shared'] : [])];
  const groupFigures = figures.map((c) => `G_${c}`).join(', ');
  const totalFigures = figures.map((c) => `sum(G_${c}) OVER () AS T_${c}`).join(', ');
  const groupSums = figures.map((c) => `sum(${c}) AS G_${c}`).join(', ');
  const order = `${sortExpression(query.sortType, 'g', 'G_')} ${direction(query.sortOrder)}`;
  const sql = `SELECT g, ${groupFigures}, G_last_shared, pivots,
              count() OVER () AS total_results, ${totalFigures}
       FROM (
         SELECT g, ${groupSums}, max(last_shared) AS G_last_shared,
                groupArray(tuple(p, ${tuple.join(', ')})) AS pivots
         FROM (SELECT g, p, ${figureSums(query.withConversions, query.withChain)}, max(shared_at) AS last_shared
               FROM (${rows}) GROUP BY g, p)
         GROUP BY g)
       ORDER BY ${order} NULLS LAST, g ASC NULLS LAST
       LIMIT ${limit} OFFSET ${offset}`;
  return rowsStatement(request, sql, binder);
}

/** Whether groupsWithPivotsQuery's pivot tuples end with their latest shared time. */
export function pivotTuplesHoldShared(query: StatsQuery): boolean {
  return query.pivotSortType === 'shared_at';
}

/**
 * The pivots of the page's groups (given by their values), unsorted. Rows: g, p, the figures,
 * last_shared.
 */
export function pagePivotsQuery(db: string, request: RowsRequest, groups: GroupValue[]): Statement {
  const { query } = request;
  const binder = new Binder();
  const rows = rowsSql(db, query, request.scope, request.context, binder, {
    group: query.groupBy,
    pivot: query.pivot,
  });
  const keys = binder.bind(groups.map(keyOf), 'Array(String)');
  const sql = `SELECT g, p, ${figureSums(query.withConversions, query.withChain)}, max(shared_at) AS last_shared
       FROM (${rows})
       WHERE ifNull(toString(g), '${NULL_KEY}') IN ${keys}
       GROUP BY g, p`;
  return rowsStatement(request, sql, binder);
}

/** Every pivot value of the whole result, not only of a page (with_zeros). Rows: p. */
export function pivotValuesQuery(db: string, request: RowsRequest): Statement {
  const binder = new Binder();
  const rows = rowsSql(db, request.query, request.scope, request.context, binder, {
    group: null,
    pivot: request.query.pivot,
  });
  return rowsStatement(request, `SELECT DISTINCT p FROM (${rows})`, binder);
}

/**
 * A statement over the rows, with their settings. With updated links, the rows test each event
 * against the sets of `link_updates` (IN subqueries); ClickHouse would also use those sets to
 * analyse the primary key of every part and projection it considers, which with a million updated
 * links took a range statement from 0.2 s to over 1 s: the sets only filter.
 */
function rowsStatement(
  { query, context }: RowsRequest,
  sql: string,
  binder: Binder,
  settings: string[] = [],
): Statement {
  const rowsSettings = [
    ...(context.stamped?.updated ? ['use_index_for_in_with_subqueries = 0'] : []),
    ...(readsKeptChains(query, context) ? CHAIN_SETTINGS : []),
  ];
  return { sql: withSettings(sql, [...settings, ...rowsSettings]), params: binder.params };
}

/** A sort order, from its whitelist. */
function direction(order: SortOrder): SortOrder {
  if (order !== 'asc' && order !== 'desc') throw new Error(`unknown sort order ${String(order)}`);
  return order;
}

/**
 * ORDER BY of a sort type over the summed columns (under a prefix) and the value column (g or p);
 * names from the whitelist only (stats-fields: SORT_TYPES_BASE, conversionSortTypes).
 */
export function sortExpression(sortType: string, column: 'g' | 'p', prefix = ''): string {
  switch (sortType) {
    case 'clicks':
    case 'shares':
    case 'pageviews':
      return `${prefix}${sortType}`;
    case 'clicks_per_share':
      return `if(${prefix}shares = 0, 0, ${prefix}clicks / ${prefix}shares)`;
    case 'alpha':
      return column;
    case 'chain_clicks':
    case 'chain_shares':
      return `${prefix}${sortType}`;
    case 'amplification':
      return `if(${prefix}clicks = 0, NULL, ${prefix}chain_clicks / ${prefix}clicks)`;
    case 'shared_at':
      return `${prefix}last_shared`;
    case 'goal_total_count':
      return `(${GOALS.map((n) => `${prefix}g${n}c`).join(' + ')})`;
    case 'goal_total_value':
      return `(${GOALS.map((n) => `${prefix}g${n}v`).join(' + ')})`;
    default: {
      const match = /^goal_(\d+)_(count|value)$/.exec(sortType);
      if (!match || !(GOALS as readonly number[]).includes(Number(match[1]))) {
        throw new Error(`unknown sort type ${sortType}`);
      }
      return `${prefix}g${Number(match[1])}${match[2] === 'count' ? 'c' : 'v'}`;
    }
  }
}
