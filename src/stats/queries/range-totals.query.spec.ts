import { statsQuery, flat } from '../../../test/factories/stats-query';
import { StatsQuery } from '../stats-query';
import {
  RowsRequest,
  aggregateTotalsQuery,
  countsOnceByGroup,
  fusesPivots,
  groupPageQuery,
  groupsWithPivotsQuery,
  pagePivotsQuery,
  pivotValuesQuery,
  sortExpression,
} from './range-totals.query';
import { Grouping, StampState } from './row-parts';
import { rowsSql } from './rows.query';
import { Binder } from './statement';

const CLEAN: StampState = { updated: false, unstamped: { clicks: false, conversions: false } };

function request(query: StatsQuery, stamped: StampState | null = null): RowsRequest {
  return { query, scope: { ids: ['P'], keys: ['K'] }, context: { toolKeys: [], stamped } };
}

/** The rows a statement reads (rows.query.spec.ts asserts them), bound first; whitespace as flat's. */
function rowsOf(req: RowsRequest, grouping: Grouping): string {
  const rows = rowsSql('svc', req.query, req.scope, req.context, new Binder(), grouping);
  return rows.replace(/\s+/g, ' ');
}

const PERIOD = { p0: ['P'], p1: '2026-11-01 00:00:00.000', p2: '2026-11-08 00:00:00.000' };

describe('range and totals statements', () => {
  it('without group_by: the sums of the rows', () => {
    const req = request(statsQuery());
    const { sql, params } = aggregateTotalsQuery('svc', req);
    const rows = rowsOf(req, { group: null, pivot: null });
    expect(flat(sql)).toBe(`SELECT sum(clicks) AS clicks, sum(shared) AS shares FROM (${rows})`);
    expect(params).toEqual(PERIOD);
  });

  it('a page of groups sorted by ClickHouse, with totals and the exact count of groups', () => {
    const query = statsQuery({
      groupBy: 'channel',
      sortType: 'clicks_per_share',
      sortOrder: 'asc',
      perPage: 5,
      offset: 10,
    });
    const req = request(query);
    const { sql, params } = groupPageQuery('svc', req);
    const rows = rowsOf(req, { group: 'channel', pivot: null });
    expect(flat(sql)).toBe(
      `SELECT g, sum(clicks) AS clicks, sum(shared) AS shares, max(shared_at) AS last_shared FROM (${rows})` +
        ' GROUP BY g WITH TOTALS ORDER BY if(shares = 0, 0, clicks / shares) asc NULLS LAST, g ASC NULLS LAST' +
        ' LIMIT {p3:UInt64} OFFSET {p4:UInt64} SETTINGS exact_rows_before_limit = 1',
    );
    expect(params).toEqual({ ...PERIOD, p3: 5, p4: 10 });
  });

  it('groups of a multi-value tag: no WITH TOTALS (a link counts in several groups)', () => {
    const req = request(statsQuery({ kind: 'totals', groupBy: 'tag_3' }));
    expect(countsOnceByGroup(req.query)).toBe(false);
    expect(flat(groupPageQuery('svc', req).sql)).toMatch(
      / GROUP BY g ORDER BY clicks desc NULLS LAST, g ASC NULLS LAST LIMIT \{p3:UInt64\} OFFSET \{p4:UInt64\} SETTINGS exact_rows_before_limit = 1$/,
    );
  });

  it('with updated links, the link_updates sets only filter', () => {
    const updated = { ...CLEAN, updated: true };
    const page = groupPageQuery('svc', request(statsQuery({ groupBy: 'channel' }), updated));
    expect(page.sql).toMatch(
      /SETTINGS exact_rows_before_limit = 1, use_index_for_in_with_subqueries = 0$/,
    );
    const totals = aggregateTotalsQuery('svc', request(statsQuery(), updated));
    expect(totals.sql).toMatch(/\)\n {7}SETTINGS use_index_for_in_with_subqueries = 0$/);
    expect(aggregateTotalsQuery('svc', request(statsQuery(), CLEAN)).sql).not.toContain('SETTINGS');
  });

  it('groups and their pivots in one statement, totals and count from window functions', () => {
    const query = statsQuery({ groupBy: 'channel', pivot: 'campaign' });
    expect(fusesPivots(query)).toBe(true);
    const req = request(query, CLEAN);
    const { sql, params } = groupsWithPivotsQuery('svc', req);
    const rows = rowsOf(req, { group: 'channel', pivot: 'campaign' });
    expect(flat(sql)).toBe(
      'SELECT g, G_clicks, G_shares, G_last_shared, pivots, count() OVER () AS total_results,' +
        ' sum(G_clicks) OVER () AS T_clicks, sum(G_shares) OVER () AS T_shares FROM (' +
        ' SELECT g, sum(clicks) AS G_clicks, sum(shares) AS G_shares, max(last_shared) AS G_last_shared,' +
        ' groupArray(tuple(p, clicks, shares)) AS pivots' +
        ' FROM (SELECT g, p, sum(clicks) AS clicks, sum(shared) AS shares, max(shared_at) AS last_shared' +
        ` FROM (${rows}) GROUP BY g, p) GROUP BY g)` +
        ' ORDER BY G_clicks desc NULLS LAST, g ASC NULLS LAST LIMIT {p3:UInt64} OFFSET {p4:UInt64}',
    );
    expect(params).toEqual({ ...PERIOD, p3: 10, p4: 0 });
  });

  it('pivot tuples end with their latest shared time only when pivots sort by it; conversion figures in each', () => {
    const query = statsQuery({
      groupBy: 'channel',
      pivot: 'campaign',
      pivotSortType: 'shared_at',
      sortType: 'goal_total_value',
      withConversions: true,
    });
    const sql = flat(groupsWithPivotsQuery('svc', request(query)).sql);
    const figures = [
      'clicks',
      'shares',
      'pageviews',
      ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].flatMap((n) => [`g${n}c`, `g${n}v`]),
    ];
    expect(sql).toContain(`groupArray(tuple(p, ${figures.join(', ')}, last_shared)) AS pivots`);
    expect(sql).toContain(
      `, ${figures.map((c) => `sum(G_${c}) OVER () AS T_${c}`).join(', ')} FROM (`,
    );
    expect(sql).toContain(
      'ORDER BY (G_g1v + G_g2v + G_g3v + G_g4v + G_g5v + G_g6v + G_g7v + G_g8v + G_g9v + G_g10v) desc NULLS LAST',
    );
  });

  it('a multi-value tag group or pivot is never fused', () => {
    expect(fusesPivots(statsQuery({ kind: 'totals', groupBy: 'tag_2', pivot: 'channel' }))).toBe(
      false,
    );
    expect(fusesPivots(statsQuery({ kind: 'totals', groupBy: 'channel', pivot: 'tag_4' }))).toBe(
      false,
    );
    expect(fusesPivots(statsQuery({ groupBy: 'channel' }))).toBe(false);
  });

  it("the page's pivots, its groups given by their keys (null apart from every string)", () => {
    const req = request(statsQuery({ kind: 'totals', groupBy: 'tag_2', pivot: 'channel' }));
    const { sql, params } = pagePivotsQuery('svc', req, ['a', null, 3]);
    const rows = rowsOf(req, { group: 'tag_2', pivot: 'channel' });
    expect(flat(sql)).toBe(
      `SELECT g, p, sum(clicks) AS clicks, sum(shared) AS shares, max(shared_at) AS last_shared FROM (${rows})` +
        " WHERE ifNull(toString(g), '\u0000null') IN {p3:Array(String)} GROUP BY g, p",
    );
    expect(params).toEqual({ ...PERIOD, p3: ['a', '\u0000null', '3'] });
  });

  it('the pivot values of the whole result (with_zeros)', () => {
    const req = request(statsQuery({ groupBy: 'channel', pivot: 'campaign' }));
    const { sql, params } = pivotValuesQuery('svc', req);
    expect(flat(sql)).toBe(
      `SELECT DISTINCT p FROM (${rowsOf(req, { group: null, pivot: 'campaign' })})`,
    );
    expect(params).toEqual(PERIOD);
  });
});

describe('sort expressions', () => {
  it('orders by a whitelisted figure column, the value column or a goal sum', () => {
    expect(sortExpression('clicks', 'g')).toBe('clicks');
    expect(sortExpression('shares', 'g', 'G_')).toBe('G_shares');
    expect(sortExpression('pageviews', 'g')).toBe('pageviews');
    expect(sortExpression('clicks_per_share', 'g', 'G_')).toBe(
      'if(G_shares = 0, 0, G_clicks / G_shares)',
    );
    expect(sortExpression('alpha', 'g', 'G_')).toBe('g');
    expect(sortExpression('shared_at', 'g')).toBe('last_shared');
    expect(sortExpression('goal_total_count', 'g')).toBe(
      '(g1c + g2c + g3c + g4c + g5c + g6c + g7c + g8c + g9c + g10c)',
    );
    expect(sortExpression('goal_7_value', 'g', 'G_')).toBe('G_g7v');
    expect(sortExpression('goal_10_count', 'g')).toBe('g10c');
  });

  it('refuses any other sort type or order', () => {
    expect(() => sortExpression('clicks; DROP TABLE links', 'g')).toThrow('unknown sort type');
    expect(() => sortExpression('goal_11_count', 'g')).toThrow('unknown sort type');
    expect(() => sortExpression('g1c', 'g')).toThrow('unknown sort type');
    const query = statsQuery({ groupBy: 'channel', sortOrder: 'desc, 1' as 'desc' });
    expect(() => groupPageQuery('svc', request(query))).toThrow('unknown sort order');
  });
});
