import { statsQuery, flat } from '../../../test/factories/stats-query';
import { StatsQuery } from '../stats-query';
import { Grouping, RowsContext } from './row-parts';
import { rowsSql } from './rows.query';
import { Binder } from './statement';

const scope = { ids: ['P'], keys: ['KP'] };
const context: RowsContext = { toolKeys: [], stamped: null };
const PERIOD =
  "toStartOfHour(clicked_at) >= {p1:DateTime64(3, 'UTC')} AND toStartOfHour(clicked_at) < {p2:DateTime64(3, 'UTC')}";

function rows(query: StatsQuery, grouping: Grouping, stamped = context) {
  const binder = new Binder();
  const sql = flat(rowsSql('svc', query, scope, stamped, binder, grouping));
  return { sql, params: binder.params };
}

describe('range and totals rows by click dimensions', () => {
  it('range by dimensions alone: the period’s clicks per (group, pivot) straight from clicks, no share rows', () => {
    const query = statsQuery({
      groupBy: 'country',
      pivot: 'device',
      filters: { browser: 'Chrome' },
    });
    const { sql, params } = rows(query, { group: 'country', pivot: 'device' });
    expect(sql).toBe(
      "SELECT g, p, clicks, toUInt8(0) AS shared, toDateTime64(0, 3, 'UTC') AS shared_at" +
        ' FROM (SELECT country AS g, device AS p, countIf(is_bot = 0) AS clicks FROM svc.clicks' +
        ` WHERE project_id IN {p0:Array(UUID)} AND ${PERIOD} AND browser = {p3:String}` +
        ' GROUP BY g, p HAVING clicks > 0 )',
    );
    expect(params.p3).toBe('Chrome');
  });

  it('a link field beside a dimension: events per link and dimension value, joined to the links mirror', () => {
    const query = statsQuery({ groupBy: 'channel', pivot: 'country', filters: { tag: 'x' } });
    const { sql } = rows(query, { group: 'channel', pivot: 'country' });
    expect(sql).toBe(
      'SELECT l.g AS g, a.country AS p, a.clicks AS clicks, toUInt8(0) AS shared, l.shared_at AS shared_at' +
        ' FROM (SELECT link_id, country, sum(clicks) AS clicks FROM (SELECT link_id, country, countIf(is_bot = 0) AS clicks' +
        ` FROM svc.clicks WHERE project_id IN {p0:Array(UUID)} AND ${PERIOD}` +
        ' GROUP BY link_id, country HAVING clicks > 0 ) GROUP BY link_id, country) AS a' +
        ' INNER JOIN (SELECT link_id, channel AS g, NULL AS p, shared_at FROM svc.links FINAL' +
        ' WHERE project_id IN {p0:Array(UUID)} AND tag = {p3:String}) AS l ON l.link_id = a.link_id',
    );
  });

  it('totals: the all-time events of the links shared in the period; conversions by their click’s dimensions', () => {
    const query = statsQuery({
      kind: 'totals',
      groupBy: 'os',
      filters: { country: 'GB' },
      withConversions: true,
    });
    const { sql } = rows(query, { group: 'os', pivot: null });
    expect(sql).toContain(
      'FROM svc.clicks WHERE project_id IN {p0:Array(UUID)} AND country = {p3:String} GROUP BY link_id, os HAVING clicks > 0',
    );
    expect(sql).toContain(
      'FROM svc.conversions WHERE project_id IN {p0:Array(UUID)} AND country = {p3:String} GROUP BY link_id, os',
    );
    expect(sql).toContain(
      "FROM svc.links FINAL WHERE project_id IN {p0:Array(UUID)} AND shared_at >= {p1:DateTime64(3, 'UTC')} AND shared_at < {p2:DateTime64(3, 'UTC')}",
    );
    expect(sql).toMatch(
      /^SELECT a\.os AS g, l\.p AS p, a\.clicks AS clicks, toUInt8\(0\) AS shared, a\.pageviews AS pageviews/,
    );
    expect(sql).not.toContain('toStartOfHour(clicked_at)');
  });

  it('are used whenever a dimension filters, even over stamps', () => {
    const stamped: RowsContext = {
      toolKeys: [],
      stamped: { updated: false, unstamped: { clicks: false, conversions: false } },
    };
    const { sql } = rows(
      statsQuery({ filters: { device: 'mobile' } }),
      { group: null, pivot: null },
      stamped,
    );
    expect(sql).toContain('device = {p3:String}');
    expect(sql).not.toContain('svc.links');
  });

  it('leave a request without dimensions as it was', () => {
    const { sql } = rows(statsQuery({ groupBy: 'channel' }), { group: 'channel', pivot: null });
    expect(sql).toContain('toUInt8(1) AS shared');
  });
});
