import { statsQuery, flat } from '../../../test/factories/stats-query';
import { StatsQuery } from '../stats-query';
import { chainedRowsSql, firstTouchRowsSql } from './chain-rows.query';
import { RowParts, rowParts } from './row-parts';
import { Binder } from './statement';

const scope = { ids: ['P', 'Q'], keys: ['KP', 'KQ'] };
const PERIOD = { p0: ['P', 'Q'], p1: '2026-11-01 00:00:00.000', p2: '2026-11-08 00:00:00.000' };
const IN_PERIOD = (column: string) =>
  `${column} >= {p1:DateTime64(3, 'UTC')} AND ${column} < {p2:DateTime64(3, 'UTC')}`;

function parts(query: StatsQuery): { parts: RowParts; params: Record<string, unknown> } {
  const binder = new Binder();
  const made = rowParts('svc', query, scope, { toolKeys: [], stamped: null }, binder, {
    group: query.groupBy,
    pivot: query.pivot,
  });
  return { parts: made, params: binder.params };
}

/** Each link's clicks from the hourly projection: in the period, or of all time. */
const activity = (period: boolean) =>
  'SELECT link_id, sum(clicks) AS clicks FROM ( SELECT link_id, countIf(is_bot = 0) AS clicks' +
  ` FROM svc.clicks WHERE project_id IN {p0:Array(UUID)} AND ${period ? IN_PERIOD('toStartOfHour(clicked_at)') : '1'}` +
  ' GROUP BY link_id HAVING clicks > 0 ) GROUP BY link_id';
const ROOTS =
  'SELECT link_id, root_id FROM svc.link_chains FINAL WHERE project_id IN {p0:Array(UUID)}';
const credited = (period: boolean) =>
  `SELECT if(r.root_id = 0, a.link_id, r.root_id) AS root, sum(a.clicks) AS clicks FROM (${activity(period)}) AS a` +
  ` LEFT JOIN (${ROOTS}) AS r ON r.link_id = a.link_id GROUP BY root`;
const BY_CHANNEL =
  'SELECT link_id, channel AS g, NULL AS p, shared_at FROM svc.links FINAL WHERE project_id IN {p0:Array(UUID)}';
const SHARED_IN_PERIOD =
  'SELECT link_id, NULL AS g, NULL AS p, shared_at FROM svc.links FINAL' +
  ` WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('shared_at')}`;

describe('attribution=first: activity credited to the root', () => {
  it("range: the period's activity summed per root (a link without a chain is its own), grouped by the root's attributes; shares stay with their link", () => {
    const { parts: p, params } = parts(statsQuery({ attribution: 'first', groupBy: 'channel' }));
    expect(flat(firstTouchRowsSql(p))).toBe(
      'SELECT l.g AS g, l.p AS p, a.clicks AS clicks, toUInt8(0) AS shared, l.shared_at AS shared_at' +
        ` FROM (${credited(true)}) AS a INNER JOIN (${BY_CHANNEL}) AS l ON l.link_id = a.root` +
        ' UNION ALL SELECT g, p, 0 AS clicks, toUInt8(1) AS shared, shared_at' +
        ` FROM (${BY_CHANNEL}) WHERE ${IN_PERIOD('shared_at')}`,
    );
    expect(params).toEqual(PERIOD);
  });

  it('totals: each link shared in the period, with the all-time activity credited to it', () => {
    const { parts: p, params } = parts(statsQuery({ kind: 'totals', attribution: 'first' }));
    expect(flat(firstTouchRowsSql(p))).toBe(
      'SELECT l.g AS g, l.p AS p, a.clicks AS clicks, toUInt8(1) AS shared, l.shared_at AS shared_at' +
        ` FROM (${SHARED_IN_PERIOD}) AS l LEFT JOIN (${credited(false)}) AS a ON a.root = l.link_id`,
    );
    expect(params).toEqual(PERIOD);
  });

  it('credits every conversion figure to the root as well', () => {
    const { parts: p } = parts(statsQuery({ attribution: 'first', withConversions: true }));
    const sql = flat(firstTouchRowsSql(p));
    expect(sql).toContain(
      'SELECT if(r.root_id = 0, a.link_id, r.root_id) AS root, sum(a.clicks) AS clicks,' +
        ' sum(a.pageviews) AS pageviews, sum(a.g1c) AS g1c, sum(a.g1v) AS g1v,',
    );
    expect(sql).toContain(
      'SELECT l.g AS g, l.p AS p, a.clicks AS clicks, toUInt8(0) AS shared, a.pageviews AS pageviews,',
    );
    expect(sql).toContain(
      'SELECT g, p, 0 AS clicks, toUInt8(1) AS shared, toUInt64(0) AS pageviews, toUInt64(0) AS g1c, toInt64(0) AS g1v,',
    );
    expect(sql).toContain(
      "UNION ALL SELECT link_id, 0 AS clicks, countIf(type = 'pageview') AS pageviews," +
        " countIf(type = 'goal_1') AS g1c, sumIf(value, type = 'goal_1') AS g1v,",
    );
  });
});

/** Each descendant's activity and shares (in the period for range), a row per ancestor of it. */
const pairs = (period: boolean) =>
  'SELECT x.link_id AS link_id, arrayJoin(c.ancestors) AS ancestor, x.clicks AS clicks, x.shared AS shared' +
  ' FROM (SELECT link_id, sum(clicks) AS clicks, sum(shared) AS shared FROM (' +
  ` SELECT link_id, clicks, toUInt64(0) AS shared FROM (${activity(period)})` +
  ' UNION ALL SELECT link_id, 0 AS clicks, toUInt64(1) AS shared FROM svc.links FINAL' +
  ` WHERE project_id IN {p0:Array(UUID)}${period ? ` AND ${IN_PERIOD('shared_at')}` : ''}) GROUP BY link_id) AS x` +
  ' INNER JOIN (SELECT link_id, ancestors FROM svc.link_chains FINAL' +
  ' WHERE project_id IN {p0:Array(UUID)} AND depth > 0) AS c ON c.link_id = x.link_id';
/** The request's own rows, then per (group, pivot) each descendant of its links once. */
const chained = (period: boolean, links: string) =>
  'SELECT g, p, clicks, shared, toUInt64(0) AS chain_clicks, toUInt64(0) AS chain_shares, shared_at FROM (OWN)' +
  ' UNION ALL SELECT g, p, toUInt64(0) AS clicks, toUInt8(0) AS shared,' +
  ' sum(d_clicks) AS chain_clicks, sum(d_shared) AS chain_shares, max(d_shared_at) AS shared_at' +
  ' FROM (SELECT a.g AS g, a.p AS p, d.link_id AS link_id, any(d.clicks) AS d_clicks,' +
  ' any(d.shared) AS d_shared, max(a.shared_at) AS d_shared_at' +
  ` FROM (${pairs(period)}) AS d INNER JOIN (${links}) AS a ON a.link_id = d.ancestor GROUP BY g, p, link_id)` +
  ' GROUP BY g, p';

describe('with_chain: descendants beside the own rows', () => {
  it("range: the descendants' activity and shares of the period, joined to the request's links among their ancestors", () => {
    const { parts: p, params } = parts(statsQuery({ withChain: true, groupBy: 'channel' }));
    expect(flat(chainedRowsSql(p, 'OWN'))).toBe(chained(true, BY_CHANNEL));
    expect(params).toEqual(PERIOD);
  });

  it("totals: the descendants' activity of all time and every descendant as a share, below the links shared in the period", () => {
    const { parts: p, params } = parts(statsQuery({ kind: 'totals', withChain: true }));
    expect(flat(chainedRowsSql(p, 'OWN'))).toBe(chained(false, SHARED_IN_PERIOD));
    expect(params).toEqual(PERIOD);
  });

  it('carries each conversion figure down the chain, typed as the conversions hold it', () => {
    const { parts: p } = parts(statsQuery({ withChain: true, withConversions: true }));
    const sql = flat(chainedRowsSql(p, 'OWN'));
    expect(sql).toContain(
      'SELECT g, p, clicks, shared, pageviews, g1c, g1v, g2c, g2v, g3c, g3v, g4c, g4v, g5c, g5v,' +
        ' g6c, g6v, g7c, g7v, g8c, g8v, g9c, g9v, g10c, g10v, toUInt64(0) AS chain_clicks,' +
        ' toUInt64(0) AS chain_shares, toUInt64(0) AS chain_pageviews, toUInt64(0) AS chain_g1c,' +
        ' toInt64(0) AS chain_g1v,',
    );
    expect(sql).toContain(
      'sum(d_clicks) AS chain_clicks, sum(d_shared) AS chain_shares, sum(d_pageviews) AS chain_pageviews,' +
        ' sum(d_g1c) AS chain_g1c, sum(d_g1v) AS chain_g1v,',
    );
    expect(sql).toContain(
      'any(d.shared) AS d_shared, any(d.pageviews) AS d_pageviews, any(d.g1c) AS d_g1c, any(d.g1v) AS d_g1v,',
    );
    expect(sql).toContain(
      'x.clicks AS clicks, x.shared AS shared, x.pageviews AS pageviews, x.g1c AS g1c, x.g1v AS g1v,',
    );
  });
});
