import { statsQuery, flat } from '../../../test/factories/stats-query';
import { StatsQuery } from '../stats-query';
import { CONVERSION_FIGURES, Grouping, RowsContext, figureColumns, rowParts } from './row-parts';
import { rowsSql } from './rows.query';
import { Binder } from './statement';

const scope = { ids: ['P', 'Q'], keys: ['KP', 'KQ'] };
const joined: RowsContext = { toolKeys: [], stamped: null };
const PERIOD = { p0: ['P', 'Q'], p1: '2026-11-01 00:00:00.000', p2: '2026-11-08 00:00:00.000' };

function rows(query: StatsQuery, grouping: Grouping, context = joined) {
  const binder = new Binder();
  const sql = flat(rowsSql('svc', query, scope, context, binder, grouping));
  return { sql, params: binder.params };
}

/** The conversion figures as each part of the rows writes them. */
const goals = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const COUNTS =
  ", countIf(type = 'pageview') AS pageviews, " +
  goals
    .map((n) => `countIf(type = 'goal_${n}') AS g${n}c, sumIf(value, type = 'goal_${n}') AS g${n}v`)
    .join(', ');
const ZEROS =
  ', toUInt64(0) AS pageviews, ' +
  goals.map((n) => `toUInt64(0) AS g${n}c, toInt64(0) AS g${n}v`).join(', ');
const SUMS =
  ', sum(pageviews) AS pageviews, ' +
  goals.map((n) => `sum(g${n}c) AS g${n}c, sum(g${n}v) AS g${n}v`).join(', ');
const figuresOf = (alias: string) =>
  `, ${alias}.pageviews AS pageviews, ` +
  goals.map((n) => `${alias}.g${n}c AS g${n}c, ${alias}.g${n}v AS g${n}v`).join(', ');
const OF_A = figuresOf('a');

describe('range and totals rows, every event joined to links', () => {
  it("range: each active link's clicks of the period joined to its group, and a share row per link shared in it", () => {
    const { sql, params } = rows(statsQuery({ groupBy: 'channel' }), {
      group: 'channel',
      pivot: null,
    });
    const links =
      '(SELECT link_id, channel AS g, NULL AS p, shared_at FROM svc.links FINAL WHERE project_id IN {p0:Array(UUID)})';
    expect(sql).toBe(
      'SELECT l.g AS g, l.p AS p, a.clicks AS clicks, toUInt8(0) AS shared, l.shared_at AS shared_at' +
        ' FROM (SELECT link_id, sum(clicks) AS clicks FROM ( SELECT link_id, countIf(is_bot = 0) AS clicks' +
        ' FROM svc.clicks WHERE project_id IN {p0:Array(UUID)}' +
        " AND toStartOfHour(clicked_at) >= {p1:DateTime64(3, 'UTC')} AND toStartOfHour(clicked_at) < {p2:DateTime64(3, 'UTC')}" +
        ' GROUP BY link_id HAVING clicks > 0 ) GROUP BY link_id) AS a' +
        ` INNER JOIN ${links} AS l ON l.link_id = a.link_id` +
        ` UNION ALL SELECT g, p, 0 AS clicks, toUInt8(1) AS shared, shared_at FROM ${links}` +
        " WHERE shared_at >= {p1:DateTime64(3, 'UTC')} AND shared_at < {p2:DateTime64(3, 'UTC')}",
    );
    expect(params).toEqual(PERIOD);
  });

  it('range with conversions: a column per conversion figure, zeros where a part has none', () => {
    const { sql } = rows(statsQuery({ groupBy: 'svc_id', withConversions: true }), {
      group: 'svc_id',
      pivot: null,
    });
    expect(sql).toContain(
      `SELECT l.g AS g, l.p AS p, a.clicks AS clicks, toUInt8(0) AS shared${OF_A},`,
    );
    expect(sql).toContain(`FROM (SELECT link_id, sum(clicks) AS clicks${SUMS} FROM (`);
    expect(sql).toContain(`SELECT link_id, countIf(is_bot = 0) AS clicks${ZEROS} FROM svc.clicks`);
    expect(sql).toContain(
      `UNION ALL SELECT link_id, 0 AS clicks${COUNTS} FROM svc.conversions WHERE project_id IN {p0:Array(UUID)}` +
        " AND converted_at >= {p1:DateTime64(3, 'UTC')} AND converted_at < {p2:DateTime64(3, 'UTC')} GROUP BY link_id)",
    );
    expect(sql).toContain(`SELECT g, p, 0 AS clicks, toUInt8(1) AS shared${ZEROS}, shared_at FROM`);
  });

  it('totals: the links shared in the period with their all-time clicks; a multi-value tag a row per value, project by key', () => {
    const { sql, params } = rows(
      statsQuery({ kind: 'totals', groupBy: 'tag_2', pivot: 'project' }),
      {
        group: 'tag_2',
        pivot: 'project',
      },
    );
    expect(sql).toBe(
      'SELECT l.g AS g, l.p AS p, t.clicks AS clicks, toUInt8(1) AS shared, l.shared_at AS shared_at' +
        ' FROM (SELECT link_id, arrayJoin(if(empty(tag_2), [NULL], arrayMap(x -> toNullable(x), tag_2))) AS g,' +
        " transform(toString(project_id), {project_ids:Array(String)}, {project_keys:Array(String)}, '') AS p, shared_at" +
        ' FROM svc.links FINAL WHERE project_id IN {p0:Array(UUID)}' +
        " AND shared_at >= {p1:DateTime64(3, 'UTC')} AND shared_at < {p2:DateTime64(3, 'UTC')}) AS l" +
        ' LEFT JOIN (SELECT link_id, countIf(is_bot = 0) AS clicks FROM svc.clicks' +
        ' WHERE project_id IN {p0:Array(UUID)} GROUP BY link_id) AS t ON t.link_id = l.link_id',
    );
    expect(params).toEqual({ ...PERIOD, project_ids: ['P', 'Q'], project_keys: ['KP', 'KQ'] });
    expect(Object.keys(params)).toEqual(['p0', 'project_ids', 'project_keys', 'p1', 'p2']);
  });

  it("totals with conversions and an open period: each link's all-time conversions joined", () => {
    const { sql, params } = rows(
      statsQuery({ kind: 'totals', withConversions: true, start: null }),
      {
        group: null,
        pivot: null,
      },
    );
    expect(sql).toBe(
      `SELECT l.g AS g, l.p AS p, t.clicks AS clicks, toUInt8(1) AS shared${figuresOf('c')}` +
        ', l.shared_at AS shared_at' +
        ' FROM (SELECT link_id, NULL AS g, NULL AS p, shared_at FROM svc.links FINAL' +
        " WHERE project_id IN {p0:Array(UUID)} AND 1 AND shared_at < {p1:DateTime64(3, 'UTC')}) AS l" +
        ' LEFT JOIN (SELECT link_id, countIf(is_bot = 0) AS clicks FROM svc.clicks' +
        ' WHERE project_id IN {p0:Array(UUID)} GROUP BY link_id) AS t ON t.link_id = l.link_id' +
        ` LEFT JOIN (SELECT link_id${COUNTS} FROM svc.conversions WHERE project_id IN {p0:Array(UUID)} GROUP BY link_id) AS c` +
        ' ON c.link_id = l.link_id',
    );
    expect(params).toEqual({ p0: ['P', 'Q'], p1: '2026-11-08 00:00:00.000' });
  });

  it('filters every part by whitelisted expressions with bound values, a tool by key or label', () => {
    const query = statsQuery({
      filters: { tool: 'Bar', shared_at_hour_of_week: '167', campaign: "c'; DROP TABLE links" },
    });
    const { sql, params } = rows(
      query,
      { group: null, pivot: null },
      { toolKeys: ['k1', 'k2'], stamped: null },
    );
    expect(sql).toContain(
      'FROM svc.links FINAL WHERE project_id IN {p0:Array(UUID)}' +
        ' AND (tool = {p3:String} OR tool IN {p4:Array(String)})' +
        ' AND toUInt16((toDayOfWeek(shared_at) - 1) * 24 + toHour(shared_at)) = {p5:UInt16}' +
        ' AND campaign = {p6:String})',
    );
    expect(sql).not.toContain('DROP');
    expect(params).toEqual({
      ...PERIOD,
      p3: 'Bar',
      p4: ['k1', 'k2'],
      p5: 167,
      p6: "c'; DROP TABLE links",
    });
  });
});

describe('row parts', () => {
  it('lists the figure columns in the order pivot tuples are read', () => {
    expect(figureColumns(false)).toEqual(['clicks', 'shares']);
    expect(figureColumns(true)).toEqual(['clicks', 'shares', ...CONVERSION_FIGURES]);
    expect(CONVERSION_FIGURES.slice(0, 5)).toEqual(['pageviews', 'g1c', 'g1v', 'g2c', 'g2v']);
    expect(CONVERSION_FIGURES).toHaveLength(21);
  });

  it('writes the conversion figures of conversions, of rows without them and of a joined table', () => {
    const parts = rowParts(
      'svc',
      statsQuery({ withConversions: true }),
      scope,
      joined,
      new Binder(),
      {
        group: null,
        pivot: null,
      },
    );
    expect([parts.conversionCounts, parts.noConversions, flat(parts.conversionsOf('a'))]).toEqual([
      COUNTS,
      ZEROS,
      OF_A,
    ]);
    const none = rowParts('svc', statsQuery(), scope, joined, new Binder(), {
      group: null,
      pivot: null,
    });
    expect([none.conversionCounts, none.noConversions, none.conversionsOf('a')]).toEqual([
      '',
      '',
      '',
    ]);
  });
});
