import { statsQuery, flat } from '../../../test/factories/stats-query';
import { StatsQuery } from '../stats-query';
import { Grouping, RowsContext, StampState } from './row-parts';
import { rowsSql } from './rows.query';
import { rangeIntervalConversionsQuery, rangeIntervalsQuery } from './range-intervals.query';
import { linkClicksQuery } from './link-clicks.query';
import { movedCorrectionsSql } from './chain-figures.query';
import { retiredStateQuery, stampStateQuery } from './stamp-state.query';
import { Binder } from './statement';

/** Retention (docs/architecture.md, "Retention"): the parts over the retired rollups. */
function rows(query: StatsQuery, grouping: Grouping, context: Partial<RowsContext>) {
  const binder = new Binder();
  const scope = { ids: ['P'], keys: ['K'] };
  const full: RowsContext = { toolKeys: [], stamped: null, ...context };
  return flat(rowsSql('svc', query, scope, full, binder, grouping));
}

const IN_PERIOD = (column: string) =>
  `${column} >= {p1:DateTime64(3, 'UTC')} AND ${column} < {p2:DateTime64(3, 'UTC')}`;
/** The horizon conditions of the projects {p0:Array(UUID)} (retired-horizon.ts). */
const HORIZON =
  '(SELECT mapFromArrays(groupArray(project_id), groupArray(until)) FROM (SELECT project_id, max(retired_until) AS until FROM svc.retired_horizons' +
  ' WHERE project_id IN {p0:Array(UUID)} GROUP BY project_id))[project_id]';
const SINCE = (time: string) => ` AND toStartOfHour(${time}) >= ${HORIZON}`;
const BEFORE = ` AND hour < ${HORIZON}`;
const FRESH: StampState = { updated: false, unstamped: { clicks: false, conversions: false } };

describe('retired rows', () => {
  it('without retired rows, every statement is as before', () => {
    const query = statsQuery({ groupBy: 'channel', withConversions: true });
    const grouping = { group: 'channel', pivot: null } as const;
    expect(rows(query, grouping, { stamped: FRESH, retired: false })).toBe(
      rows(query, grouping, { stamped: FRESH }),
    );
    expect(rows(query, grouping, { stamped: FRESH })).not.toContain('retired');
  });

  it('stamped range: a sibling of the fresh clicks over clicks_retired, by hour, summing n', () => {
    const sql = rows(
      statsQuery({ groupBy: 'channel' }),
      { group: 'channel', pivot: null },
      { stamped: FRESH, retired: true },
    );
    expect(sql).toContain(
      "UNION ALL SELECT g, p, clicks, toUInt64(0) AS shared, last AS shared_at FROM ( SELECT channel AS g, NULL AS p, sumIf(n, is_bot = 0) AS clicks, toDateTime64(0, 3, 'UTC') AS last" +
        ` FROM svc.clicks_retired WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('hour')}${BEFORE} GROUP BY g, p HAVING clicks > 0)`,
    );
  });

  it('with bots and conversions: sum(n), and the conversions summed per type from conversions_retired', () => {
    const sql = rows(
      statsQuery({ kind: 'totals', withBots: true, withConversions: true }),
      { group: null, pivot: null },
      {
        stamped: { updated: false, unstamped: { clicks: true, conversions: true } },
        retired: true,
      },
    );
    expect(sql).toContain('sum(n) AS clicks');
    expect(sql).toContain(
      "sumIf(n, type = 'pageview') AS pageviews, sumIf(n, type = 'goal_1') AS g1c, sumIf(value, type = 'goal_1') AS g1v",
    );
    // Totals by the shared time in the rollups' stamps; the stale ones per link, joined.
    expect(sql).toContain(
      `FROM svc.conversions_retired WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('shared_at')}${BEFORE} AND link_version != 0`,
    );
    expect(sql).toContain(
      'SELECT link_id, sum(n) AS clicks, toUInt64(0) AS pageviews, toUInt64(0) AS g1c, toInt64(0) AS g1v',
    );
    expect(sql).toContain(
      `FROM svc.clicks_retired WHERE project_id IN {p0:Array(UUID)} AND 1${BEFORE} AND NOT (link_version != 0) GROUP BY link_id HAVING clicks > 0`,
    );
  });

  it('joined and by click dimensions: per link or per dimension from the rollups too', () => {
    const joined = rows(
      statsQuery({ groupBy: 'svc_id' }),
      { group: 'svc_id', pivot: null },
      { retired: true },
    );
    expect(joined).toContain(
      `UNION ALL SELECT link_id, sumIf(n, is_bot = 0) AS clicks FROM svc.clicks_retired WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('hour')}${BEFORE} GROUP BY link_id HAVING clicks > 0`,
    );
    const totals = rows(
      statsQuery({ kind: 'totals', groupBy: 'svc_id' }),
      { group: 'svc_id', pivot: null },
      { retired: true },
    );
    expect(totals).toContain(
      `LEFT JOIN (SELECT link_id, sum(clicks) AS clicks FROM (SELECT link_id, countIf(is_bot = 0) AS clicks FROM svc.clicks WHERE project_id IN {p0:Array(UUID)}${SINCE('clicked_at')} GROUP BY link_id` +
        ` UNION ALL SELECT link_id, sumIf(n, is_bot = 0) AS clicks FROM svc.clicks_retired WHERE project_id IN {p0:Array(UUID)}${BEFORE} GROUP BY link_id) GROUP BY link_id) AS t`,
    );
    const country = rows(
      statsQuery({ groupBy: 'country' }),
      { group: 'country', pivot: null },
      { retired: true },
    );
    expect(country).toContain(
      `UNION ALL SELECT country AS g, NULL AS p, sumIf(n, is_bot = 0) AS clicks FROM svc.clicks_retired WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('hour')}${BEFORE} GROUP BY g, p HAVING clicks > 0`,
    );
  });

  it('range intervals, link details and the chain corrections read the rollups by hour', () => {
    const request = {
      projectIds: ['P'],
      start: new Date('2026-11-01T00:00:00Z'),
      end: new Date('2026-11-08T00:00:00Z'),
      interval: 'day' as const,
      filters: {},
      toolKeys: [],
      retired: true,
    };
    expect(flat(rangeIntervalsQuery('svc', { ...request, withBots: false }).sql)).toContain(
      'UNION ALL SELECT toStartOfDay(hour) AS bucket, sumIf(n, is_bot = 0) AS clicks, 0 AS shares FROM svc.clicks_retired' +
        ` WHERE project_id IN {p0:Array(UUID)} AND hour >= {p1:DateTime64(3, 'UTC')} AND hour < {p2:DateTime64(3, 'UTC')}${BEFORE} GROUP BY bucket HAVING clicks > 0`,
    );
    expect(flat(rangeIntervalConversionsQuery('svc', request).sql)).toMatch(
      /^SELECT bucket, type, sum\(count\) AS count, sum\(value\) AS value FROM \(.* UNION ALL SELECT toStartOfDay\(hour\) AS bucket, type, sum\(n\) AS count, sum\(value\) AS value FROM svc\.conversions_retired /,
    );
    const details = flat(
      linkClicksQuery('svc', {
        projectId: 'P',
        linkIds: ['1'],
        start: null,
        end: null,
        withBots: false,
        retired: true,
      }).sql,
    );
    expect(details).toContain(
      "SELECT link_id, sumIf(n, 1 AND 1) AS clicks, toDateTime64(maxOrNull(hour), 3, 'UTC') AS last FROM svc.clicks_retired",
    );
    const corrections = flat(
      movedCorrectionsSql({
        db: 'svc',
        projects: '{p0:Array(UUID)}',
        period: null,
        withBots: false,
        conversions: ['pageviews', 'g1c', 'g1v'],
        retired: true,
      }),
    );
    expect(corrections).toContain(
      'SELECT link_id, ancestors AS stamped, toInt64(sumIf(n, is_bot = 0)) AS e_clicks, toInt64(0) AS e_pageviews, toInt64(0) AS e_g1c, toInt64(0) AS e_g1v FROM svc.clicks_retired',
    );
    expect(corrections).toContain(
      "toInt64(sumIf(n, type = 'pageview')) AS e_pageviews, toInt64(sumIf(n, type = 'goal_1')) AS e_g1c, toInt64(sumIf(value, type = 'goal_1')) AS e_g1v FROM svc.conversions_retired",
    );
  });

  it('the states: whether the projects have retired rows, and the rollups unstamped', () => {
    expect(flat(retiredStateQuery('svc', ['P']).sql)).toBe(
      "SELECT 'retired' AS what FROM svc.clicks_retired WHERE project_id IN {projects:Array(UUID)} LIMIT 1" +
        " UNION ALL SELECT 'retired' AS what FROM svc.conversions_retired WHERE project_id IN {projects:Array(UUID)} LIMIT 1",
    );
    expect(stampStateQuery('svc', ['P'], false).sql).toBe(stampStateQuery('svc', ['P']).sql);
    expect(flat(stampStateQuery('svc', ['P'], true).sql)).toContain(
      "SELECT 'clicks' AS what FROM svc.clicks_retired WHERE project_id IN {projects:Array(UUID)} AND link_version = 0 LIMIT 1",
    );
  });
});
