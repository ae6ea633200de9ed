import { flat } from '../../../test/factories/stats-query';
import { CascadeRequest, cascadeChildrenQuery, cascadeGenerationsQuery } from './chain.query';

const WEEK: CascadeRequest = {
  projectId: 'P',
  linkId: '42',
  depth: 2,
  start: new Date('2026-11-01T00:00:00Z'),
  end: new Date('2026-11-08T00:00:00Z'),
  withConversions: false,
  withBots: false,
};
const IN_WEEK = (column: string) =>
  `${column} >= {p3:DateTime64(3, 'UTC')} AND ${column} < {p4:DateTime64(3, 'UTC')}`;

/** The link (generation 0) and its descendants, their generation counted from the link's depth. */
const MEMBERS =
  'SELECT link_id, toInt64(depth) - {p2:Int64} AS generation, ancestors FROM svc.link_chains FINAL' +
  ' WHERE project_id = {p0:UUID} AND has(ancestors, {p1:UInt64})' +
  " UNION ALL SELECT {p1:UInt64} AS link_id, toInt64(0) AS generation, CAST([], 'Array(UInt64)') AS ancestors";
const IDS = `SELECT link_id FROM (${MEMBERS})`;
/** Each member with its share in the window, its sharer and its clicks in the window. */
const members = (inWindow: (column: string) => string) =>
  'SELECT m.link_id AS link_id, m.generation AS generation, m.ancestors AS ancestors,' +
  ' l.shared AS shared, l.sharer AS sharer, a.clicks AS clicks' +
  ` FROM (${MEMBERS}) AS m` +
  ` LEFT JOIN ( SELECT link_id, toUInt8(${inWindow('shared_at')}) AS shared,` +
  ' coalesce(sharer_id, user_id, toString(link_id)) AS sharer FROM svc.links FINAL' +
  ` WHERE project_id = {p0:UUID} AND link_id IN (${IDS})) AS l ON l.link_id = m.link_id` +
  ' LEFT JOIN (SELECT link_id, sum(clicks) AS clicks FROM ( SELECT link_id, countIf(is_bot = 0) AS clicks' +
  ` FROM svc.clicks WHERE project_id = {p0:UUID} AND link_id IN (${IDS}) AND ${inWindow('clicked_at')}` +
  ' GROUP BY link_id ) GROUP BY link_id) AS a ON a.link_id = m.link_id';

describe('a cascade per generation', () => {
  it("counts each generation's shares, sharers and clicks in the window, with the sharers below the link as totals", () => {
    const { sql, params } = cascadeGenerationsQuery('svc', WEEK);
    expect(flat(sql)).toBe(
      'SELECT generation, countIf(shared = 1) AS shares, uniqExactIf(sharer, shared = 1) AS sharers,' +
        ' uniqExactIf(sharer, shared = 1 AND generation > 0) AS all_sharers, sum(clicks) AS clicks' +
        ` FROM (${members(IN_WEEK)}) GROUP BY generation WITH TOTALS ORDER BY generation`,
    );
    expect(params).toEqual({
      p0: 'P',
      p1: 42,
      p2: 2,
      p3: '2026-11-01 00:00:00.000',
      p4: '2026-11-08 00:00:00.000',
    });
  });

  it('counts bots with with_bots, and the conversions of the members by type', () => {
    const { sql } = cascadeGenerationsQuery('svc', {
      ...WEEK,
      withBots: true,
      withConversions: true,
    });
    const flatSql = flat(sql);
    expect(flatSql).toContain(
      'SELECT link_id, (countIf(is_bot = 0) + countIf(is_bot = 1)) AS clicks, toUInt64(0) AS pageviews,' +
        ' toUInt64(0) AS g1c, toInt64(0) AS g1v,',
    );
    expect(flatSql).toContain(
      "UNION ALL SELECT link_id, 0 AS clicks, countIf(type = 'pageview') AS pageviews," +
        " countIf(type = 'goal_1') AS g1c, sumIf(value, type = 'goal_1') AS g1v,",
    );
    expect(flatSql).toContain(
      `FROM svc.conversions WHERE project_id = {p0:UUID} AND link_id IN (${IDS}) AND ${IN_WEEK('converted_at')} GROUP BY link_id)`,
    );
    expect(flatSql).toContain(
      'sum(clicks) AS clicks, sum(pageviews) AS pageviews, sum(g1c) AS g1c, sum(g1v) AS g1v,',
    );
    expect(flatSql).toContain(
      'a.clicks AS clicks, a.pageviews AS pageviews, a.g1c AS g1c, a.g1v AS g1v,',
    );
  });
});

describe("a page of the link's children", () => {
  it('credits each descendant to the child above it, sorts by all their clicks and pages, all time for an open window', () => {
    const { sql, params } = cascadeChildrenQuery(
      'svc',
      { ...WEEK, start: null, end: null },
      { perPage: 10, offset: 20 },
    );
    expect(flat(sql)).toBe(
      'SELECT l.svc_id AS svc_id, l.channel AS channel, l.sharer_id AS sharer_id, l.user_id AS user_id,' +
        ' c.own_clicks AS own_clicks, c.down_shares AS down_shares, c.sharers AS sharers,' +
        ' c.down_clicks AS down_clicks, c.generations AS generations, count() OVER () AS total_results' +
        ' FROM (SELECT child, sumIf(clicks, generation = 1) AS own_clicks,' +
        ' countIf(shared = 1 AND generation > 1) AS down_shares,' +
        ' uniqExactIf(sharer, shared = 1 AND generation > 1) AS sharers,' +
        ' sumIf(clicks, generation > 1) AS down_clicks,' +
        ' toUInt64(maxIf(generation - 1, generation > 1 AND (shared = 1 OR clicks > 0))) AS generations' +
        ' FROM ( SELECT if(generation = 1, link_id, arrayElement(ancestors, generation - 1)) AS child,' +
        ` generation, shared, sharer, clicks FROM (${members(() => '1 AND 1')}) WHERE generation >= 1)` +
        ' GROUP BY child) AS c' +
        ' INNER JOIN (SELECT link_id, svc_id, channel, sharer_id, user_id FROM svc.links FINAL' +
        ' WHERE project_id = {p3:UUID} AND link_id IN ( SELECT link_id FROM svc.link_chains FINAL' +
        ' WHERE project_id = {p3:UUID} AND has(ancestors, {p4:UInt64}) AND toInt64(depth) = {p5:Int64}))' +
        ' AS l ON l.link_id = c.child' +
        ' ORDER BY c.own_clicks + c.down_clicks DESC, l.svc_id ASC LIMIT {p6:UInt64} OFFSET {p7:UInt64}',
    );
    expect(params).toEqual({ p0: 'P', p1: 42, p2: 2, p3: 'P', p4: 42, p5: 3, p6: 10, p7: 20 });
  });

  it("gives each child its own and its descendants' conversions under own_ and down_", () => {
    const { sql } = cascadeChildrenQuery(
      'svc',
      { ...WEEK, withConversions: true },
      { perPage: 10, offset: 0 },
    );
    const flatSql = flat(sql);
    expect(flatSql).toContain(
      'c.own_clicks AS own_clicks, c.own_pageviews AS own_pageviews, c.down_pageviews AS down_pageviews,' +
        ' c.own_g1c AS own_g1c, c.down_g1c AS down_g1c,',
    );
    expect(flatSql).toContain(
      'sumIf(clicks, generation = 1) AS own_clicks, sumIf(pageviews, generation = 1) AS own_pageviews,',
    );
    expect(flatSql).toContain(
      'sumIf(clicks, generation > 1) AS down_clicks, sumIf(pageviews, generation > 1) AS down_pageviews,',
    );
    expect(flatSql).toContain('generation, shared, sharer, clicks, pageviews, g1c, g1v,');
  });
});
