import { countByBucket, mergeBuckets, withZeros } from './interval-rows';

const at = (iso: string) => new Date(iso);

describe('interval rows', () => {
  it('fills every week of the period from the Monday start falls in, activity where there was', () => {
    const rows = [{ bucket: at('2026-11-09T00:00:00Z'), clicks: 4, shares: 1 }];
    const filled = withZeros(rows, at('2026-11-04T05:00:00Z'), at('2026-11-17T00:00:00Z'), 'week', {
      shares: 0,
    });
    expect(filled).toEqual([
      { bucket: at('2026-11-02T00:00:00Z'), clicks: 0, shares: 0 },
      { bucket: at('2026-11-09T00:00:00Z'), clicks: 4, shares: 1 },
      { bucket: at('2026-11-16T00:00:00Z'), clicks: 0, shares: 0 },
    ]);
  });

  it('adds a zero row for each other bucket given, in time order', () => {
    const rows = [{ bucket: at('2026-11-02T10:00:00Z'), clicks: 2 }];
    const buckets = [at('2026-11-02T08:00:00Z').getTime(), at('2026-11-02T10:00:00Z').getTime()];
    expect(mergeBuckets(rows, buckets)).toEqual([
      { bucket: at('2026-11-02T08:00:00Z'), clicks: 0 },
      { bucket: at('2026-11-02T10:00:00Z'), clicks: 2 },
    ]);
    expect(mergeBuckets(rows, [])).toBe(rows);
  });

  it('sums conversion rows per bucket and in all', () => {
    const day = at('2026-11-02T00:00:00Z');
    const { byBucket, total } = countByBucket([
      { bucket: day, type: 'pageview', count: 3, value: 0 },
      { bucket: day, type: 'goal_2', count: 1, value: 500 },
      { bucket: at('2026-11-03T00:00:00Z'), type: 'goal_2', count: 2, value: 100 },
    ]);
    expect(byBucket.get(day.getTime())).toEqual({
      pageviews: 3,
      goals: { 2: { count: 1, value: 500 } },
    });
    expect(total).toEqual({ pageviews: 3, goals: { 2: { count: 3, value: 600 } } });
  });
});
