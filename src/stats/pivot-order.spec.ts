import { PivotRow, SortablePivot } from './figures';
import { orderPivots, sortPivots } from './pivot-order';

function pivot(
  value: string | number | null,
  clicks: number,
  shares = 0,
  extra: Partial<SortablePivot> = {},
): SortablePivot {
  return { value, clicks, shares, pageviews: 0, goals: {}, lastShared: null, ...extra };
}

const values = (pivots: PivotRow[]) => pivots.map((p) => p.value);

describe('pivot order', () => {
  it('sorts by clicks descending, ties by value ascending, null values last', () => {
    const sorted = sortPivots(
      [pivot(null, 5), pivot('b', 5), pivot('a', 5), pivot('c', 9)],
      'clicks',
      -1,
    );
    expect(values(sorted)).toEqual(['c', 'a', 'b', null]);
  });

  it('sorts ascending, and alpha by value with null last either way', () => {
    const pivots = [pivot('b', 1), pivot(null, 0), pivot('a', 2)];
    expect(values(sortPivots(pivots, 'clicks', 1))).toEqual([null, 'b', 'a']);
    expect(values(sortPivots(pivots, 'alpha', 1))).toEqual(['a', 'b', null]);
    expect(values(sortPivots(pivots, 'alpha', -1))).toEqual(['b', 'a', null]);
  });

  it('sorts by clicks per share (0 without shares), latest share (none last) and goal figures', () => {
    const a = pivot('a', 4, 2, {
      lastShared: '2026-11-02 10:00:00.000',
      goals: { 1: { count: 1, value: 10 } },
    });
    const b = pivot('b', 9, 0, { lastShared: null, goals: { 2: { count: 3, value: 1 } } });
    const c = pivot('c', 3, 1, {
      lastShared: '2026-11-05 08:00:00.000',
      goals: { 1: { count: 2, value: 5 } },
    });
    expect(values(sortPivots([a, b, c], 'clicks_per_share', -1))).toEqual(['c', 'a', 'b']);
    expect(values(sortPivots([a, b, c], 'shared_at', -1))).toEqual(['c', 'a', 'b']);
    expect(values(sortPivots([a, b, c], 'shared_at', 1))).toEqual(['a', 'c', 'b']);
    expect(values(sortPivots([a, b, c], 'goal_1_count', -1))).toEqual(['c', 'a', 'b']);
    expect(values(sortPivots([a, b, c], 'goal_total_count', -1))).toEqual(['b', 'c', 'a']);
    expect(values(sortPivots([a, b, c], 'goal_total_value', -1))).toEqual(['a', 'c', 'b']);
    expect(() => sortPivots([a, b], 'nope', 1)).toThrow('unknown sort type nope');
  });

  it("adds with_zeros' values a group lacks at zero figures, then sorts each group", () => {
    const found = [[pivot('x', 3)], []];
    const query = {
      pivotSortType: 'alpha',
      pivotSortOrder: 'asc' as const,
      withConversions: false,
    };
    const ordered = orderPivots(found, query, ['y', 'x', null]);
    expect(ordered.map(values)).toEqual([
      ['x', 'y', null],
      ['x', 'y', null],
    ]);
    expect(ordered[0][1]).toEqual(pivot('y', 0));
    // With conversions, a zero pivot carries every goal at zero.
    const withGoals = orderPivots([[]], { ...query, withConversions: true }, ['z']);
    expect(Object.keys(withGoals[0][0].goals)).toHaveLength(10);
    expect(withGoals[0][0].goals[10]).toEqual({ count: 0, value: 0 });
  });

  it('keeps the pivots found without with_zeros', () => {
    const found = [[pivot('a', 1), pivot('b', 2)]];
    const query = {
      pivotSortType: 'clicks',
      pivotSortOrder: 'desc' as const,
      withConversions: false,
    };
    expect(orderPivots(found, query, null).map(values)).toEqual([['b', 'a']]);
  });
});
