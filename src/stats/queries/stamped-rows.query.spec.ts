import { statsQuery, flat } from '../../../test/factories/stats-query';
import { StatsQuery } from '../stats-query';
import { Grouping, StampState } from './row-parts';
import { rowsSql } from './rows.query';
import { Binder } from './statement';

function rows(query: StatsQuery, grouping: Grouping, stamped: StampState) {
  const binder = new Binder();
  const scope = { ids: ['P'], keys: ['K'] };
  const sql = flat(rowsSql('svc', query, scope, { toolKeys: [], stamped }, binder, grouping));
  return { sql, params: binder.params };
}

const PERIOD = { p0: ['P'], p1: '2026-11-01 00:00:00.000', p2: '2026-11-08 00:00:00.000' };
const IN_PERIOD = (column: string) =>
  `${column} >= {p1:DateTime64(3, 'UTC')} AND ${column} < {p2:DateTime64(3, 'UTC')}`;
const UPDATES =
  'SELECT link_id, version FROM svc.link_updates FINAL WHERE project_id IN {p0:Array(UUID)}';
const FRESH = `(link_id NOT IN (SELECT link_id FROM (${UPDATES})) OR (link_id, link_version) IN (${UPDATES}))`;

describe('range and totals rows on stamps', () => {
  it('every event fresh: clicks summed by their stamps (stamped_hourly) and share counts, no join', () => {
    const { sql, params } = rows(
      statsQuery({ groupBy: 'channel', pivot: 'campaign', filters: { tag: 't' } }),
      { group: 'channel', pivot: 'campaign' },
      { updated: false, unstamped: { clicks: false, conversions: false } },
    );
    expect(sql).toBe(
      'SELECT g, p, clicks, toUInt64(0) AS shared, last AS shared_at FROM (' +
        " SELECT channel AS g, campaign AS p, countIf(is_bot = 0) AS clicks, toDateTime64(0, 3, 'UTC') AS last" +
        ` FROM svc.clicks WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('toStartOfHour(clicked_at)')}` +
        ' AND tag = {p3:String} GROUP BY g, p HAVING clicks > 0)' +
        ' UNION ALL SELECT g, p, 0 AS clicks, shared, last AS shared_at FROM (' +
        " SELECT channel AS g, campaign AS p, count() AS shared, toDateTime64(0, 3, 'UTC') AS last" +
        ` FROM svc.links FINAL WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('shared_at')}` +
        ' AND tag = {p3:String} GROUP BY g, p)',
    );
    expect(params).toEqual({ ...PERIOD, p3: 't' });
  });

  it('totals with unstamped clicks: fresh clicks by the shared time in their stamp, the others joined to the links shared in the period', () => {
    const { sql, params } = rows(
      statsQuery({ kind: 'totals', groupBy: 'campaign' }),
      { group: 'campaign', pivot: null },
      { updated: false, unstamped: { clicks: true, conversions: true } },
    );
    expect(sql).toBe(
      'SELECT g, p, clicks, toUInt64(0) AS shared, last AS shared_at FROM (' +
        " SELECT campaign AS g, NULL AS p, countIf(is_bot = 0) AS clicks, toDateTime64(0, 3, 'UTC') AS last" +
        ` FROM svc.clicks WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('shared_at')}` +
        ' AND link_version != 0 GROUP BY g, p HAVING clicks > 0)' +
        ' UNION ALL SELECT l.g AS g, l.p AS p, a.clicks AS clicks, toUInt64(0) AS shared, l.shared_at AS shared_at' +
        ' FROM (SELECT link_id, campaign AS g, NULL AS p, shared_at FROM svc.links FINAL' +
        ` WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('shared_at')}) AS l` +
        ' INNER JOIN (SELECT link_id, sum(clicks) AS clicks FROM (SELECT link_id, countIf(is_bot = 0) AS clicks' +
        ' FROM svc.clicks WHERE project_id IN {p0:Array(UUID)} AND 1 AND NOT (link_version != 0)' +
        ' GROUP BY link_id HAVING clicks > 0) GROUP BY link_id) AS a ON l.link_id = a.link_id' +
        ' UNION ALL SELECT g, p, 0 AS clicks, shared, last AS shared_at FROM (' +
        " SELECT campaign AS g, NULL AS p, count() AS shared, toDateTime64(0, 3, 'UTC') AS last" +
        ` FROM svc.links FINAL WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('shared_at')} GROUP BY g, p)`,
    );
    expect(params).toEqual(PERIOD);
  });

  it('updated links and conversions: fresh events are those of their link_updates version, the others of both tables joined', () => {
    const { sql } = rows(
      statsQuery({ groupBy: 'channel', sortType: 'shared_at', withConversions: true }),
      { group: 'channel', pivot: null },
      { updated: true, unstamped: { clicks: true, conversions: false } },
    );
    // Sorted by shared_at: the latest shared time is read.
    expect(sql).toContain('countIf(is_bot = 0) AS clicks, max(shared_at) AS last FROM svc.clicks');
    expect(sql).toContain(
      `AND ${IN_PERIOD('toStartOfHour(clicked_at)')} AND link_version != 0 AND ${FRESH} GROUP BY g, p HAVING clicks > 0)`,
    );
    // Conversions are all stamped: only the link_updates condition.
    expect(sql).toContain(
      `FROM svc.conversions WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('converted_at')} AND ${FRESH} GROUP BY g, p)`,
    );
    expect(sql).toContain(
      `AND ${IN_PERIOD('toStartOfHour(clicked_at)')} AND NOT (link_version != 0 AND ${FRESH}) GROUP BY link_id HAVING clicks > 0 UNION ALL SELECT link_id, 0 AS clicks`,
    );
    expect(sql).toContain(
      `AND ${IN_PERIOD('converted_at')} AND NOT (${FRESH}) GROUP BY link_id) GROUP BY link_id) AS a ON l.link_id = a.link_id`,
    );
  });
});
