import { keyOf, pivotOf, pivotOfTuple, readFigures, readValue } from './figures';

describe('figures of rows', () => {
  it('reads the figures under a prefix, the goals the row has', () => {
    const row = { G_clicks: '12', G_shares: 3, G_pageviews: '4', G_g2c: '1', G_g2v: '250' };
    expect(readFigures(row, 'G_')).toEqual({
      clicks: 12,
      shares: 3,
      pageviews: 4,
      goals: { 2: { count: 1, value: 250 } },
    });
  });

  it('reads zeros for no row, with every goal when with conversions', () => {
    expect(readFigures(undefined)).toEqual({ clicks: 0, shares: 0, pageviews: 0, goals: {} });
    expect(Object.keys(readFigures(undefined, '', true).goals)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      '10',
    ]);
  });

  it('reads a pivot from its tuple in figureColumns order', () => {
    const tuple = [
      'spring',
      '5',
      '2',
      '7',
      ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].flatMap((n) => [n, n * 100]),
      'ignored',
    ];
    const pivot = pivotOfTuple(tuple, true, '2026-11-02 10:00:00.000');
    expect([pivot.value, pivot.clicks, pivot.shares, pivot.pageviews, pivot.lastShared]).toEqual([
      'spring',
      5,
      2,
      7,
      '2026-11-02 10:00:00.000',
    ]);
    expect([pivot.goals[1], pivot.goals[10]]).toEqual([
      { count: 1, value: 100 },
      { count: 10, value: 1000 },
    ]);
    expect(pivotOfTuple(['x', 1, 0], false, null)).toEqual({
      value: 'x',
      clicks: 1,
      shares: 0,
      pageviews: 0,
      goals: {},
      lastShared: null,
    });
  });

  it('reads a pivot row and its latest shared time', () => {
    expect(
      pivotOf({ p: null, clicks: '2', shares: '1', last_shared: '2026-11-03 00:00:00.000' }),
    ).toEqual({
      value: null,
      clicks: 2,
      shares: 1,
      pageviews: 0,
      goals: {},
      lastShared: '2026-11-03 00:00:00.000',
    });
  });

  it('reads values, an array as JSON, and keys null apart from every string', () => {
    expect([
      readValue('a'),
      readValue(3),
      readValue(null),
      readValue(undefined),
      readValue(['x']),
    ]).toEqual(['a', 3, null, null, '["x"]']);
    expect([keyOf('null'), keyOf(7), keyOf(null)]).toEqual(['null', '7', '\u0000null']);
  });
});
