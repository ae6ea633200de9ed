import { GOALS } from '../common/goals';
import { Figures, GroupValue, PivotRow, SortablePivot, keyOf, readFigures } from './figures';
import { StatsQuery } from './stats-query';

/**
 * Each group's pivots as range and totals answer them (docs/api.md, "Statistics"): with with_zeros
 * (`zeroValues`, every pivot value of the whole result) the values a group lacks added at zero,
 * then each group's sorted by pivot_sort_type in pivot_sort_order, nulls last, ties by value.
 */
export function orderPivots(
  found: SortablePivot[][],
  query: Pick<StatsQuery, 'pivotSortType' | 'pivotSortOrder' | 'withConversions'>,
  zeroValues: GroupValue[] | null,
): PivotRow[][] {
  const pivots = zeroValues ? withZeroPivots(found, zeroValues, query.withConversions) : found;
  const direction = query.pivotSortOrder === 'asc' ? 1 : -1;
  return pivots.map((group) => sortPivots(group, query.pivotSortType, direction));
}

/** Each group's pivots with every value of `values` the group lacks, at zero figures. */
function withZeroPivots(
  found: SortablePivot[][],
  values: GroupValue[],
  withConversions: boolean,
): SortablePivot[][] {
  return found.map((pivots) => {
    const present = new Set(pivots.map((pivot) => keyOf(pivot.value)));
    const zeros = values
      .filter((value) => !present.has(keyOf(value)))
      .map((value): SortablePivot => ({
        value,
        ...readFigures(undefined, '', withConversions),
        lastShared: null,
      }));
    return zeros.length > 0 ? [...pivots, ...zeros] : pivots;
  });
}

/**
 * A group's pivots in a sort type's order in a direction (1 ascending, -1 descending), nulls
 * last, then by value ascending; each pivot's sort value computed once.
 */
export function sortPivots(
  pivots: SortablePivot[],
  sortType: string,
  direction: number,
): SortablePivot[] {
  const keys = pivots.map((pivot) => sortValue(sortType, pivot));
  const order = pivots.map((_, i) => i);
  order.sort(
    (a, b) =>
      compareSortValues(keys[a], keys[b], direction) ||
      compareValues(pivots[a].value, pivots[b].value),
  );
  return order.map((i) => pivots[i]);
}

/** The value a sort type orders a pivot by (as sortExpression orders groups in ClickHouse). */
function sortValue(sortType: string, row: SortablePivot): number | string | null {
  const goalSum = (field: 'count' | 'value'): number =>
    GOALS.reduce((sum, n) => sum + (row.goals[n]?.[field] ?? 0), 0);
  switch (sortType) {
    case 'clicks':
    case 'shares':
    case 'pageviews':
      return row[sortType];
    case 'clicks_per_share':
      return row.shares === 0 ? 0 : row.clicks / row.shares;
    case 'alpha':
      return row.value;
    case 'chain_clicks':
      return row.chain?.clicks ?? 0;
    case 'chain_shares':
      return row.chain?.shares ?? 0;
    case 'amplification':
      return amplification(row);
    case 'shared_at':
      return row.lastShared;
    case 'goal_total_count':
      return goalSum('count');
    case 'goal_total_value':
      return goalSum('value');
    default: {
      const match = /^goal_(\d+)_(count|value)$/.exec(sortType);
      if (!match) throw new Error(`unknown sort type ${sortType}`);
      return row.goals[Number(match[1])]?.[match[2] as 'count' | 'value'] ?? 0;
    }
  }
}

/**
 * A row's amplification (docs/api.md, "Share chains"): its chain's clicks per own click, rounded to
 * 4 decimals as answered; null without own clicks.
 */
export function amplification(row: Figures): number | null {
  if (row.clicks === 0) return null;
  return Math.round(((row.chain?.clicks ?? 0) / row.clicks) * 10_000) / 10_000;
}

/** Ascending order as ClickHouse sorts (numbers by value, strings by code point), nulls last. */
function compareValues(a: GroupValue, b: GroupValue): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Two pivots' sort values in a direction (1 ascending, -1 descending), nulls last either way. */
function compareSortValues(
  x: number | string | null,
  y: number | string | null,
  direction: number,
): number {
  if (x === y) return 0;
  if (x === null) return 1;
  if (y === null) return -1;
  return (x < y ? -1 : 1) * direction;
}
