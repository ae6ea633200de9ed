import { flat } from '../../../test/factories/stats-query';
import { StatsQuery } from '../stats-query';
import { rangeIntervalConversionsQuery, rangeIntervalsQuery } from './range-intervals.query';

const request = {
  projectIds: ['P'],
  start: new Date('2026-11-01T00:00:00Z'),
  end: new Date('2026-11-08T00:00:00Z'),
  toolKeys: [] as string[],
};
const PERIOD = { p0: ['P'], p1: '2026-11-01 00:00:00.000', p2: '2026-11-08 00:00:00.000' };

describe('range intervals', () => {
  it("sums the period's clicks by the hourly projection and the shares by shared time, per day", () => {
    const { sql, params } = rangeIntervalsQuery('svc', {
      ...request,
      interval: 'day',
      filters: {},
      withBots: false,
    });
    expect(flat(sql)).toBe(
      'SELECT bucket, sum(clicks) AS clicks, sum(shares) AS shares FROM (' +
        ' SELECT toStartOfDay(toStartOfHour(clicked_at)) AS bucket, countIf(is_bot = 0) AS clicks, 0 AS shares' +
        ' FROM svc.clicks WHERE project_id IN {p0:Array(UUID)}' +
        " AND toStartOfHour(clicked_at) >= {p1:DateTime64(3, 'UTC')} AND toStartOfHour(clicked_at) < {p2:DateTime64(3, 'UTC')}" +
        ' GROUP BY bucket HAVING clicks > 0' +
        ' UNION ALL SELECT toStartOfDay(shared_at) AS bucket, 0 AS clicks, count() AS shares' +
        ' FROM svc.links FINAL WHERE project_id IN {p0:Array(UUID)}' +
        " AND shared_at >= {p1:DateTime64(3, 'UTC')} AND shared_at < {p2:DateTime64(3, 'UTC')}" +
        ' GROUP BY bucket) GROUP BY bucket ORDER BY bucket',
    );
    expect(params).toEqual(PERIOD);
  });

  it('filters the clicks by the links mirror and the shares directly, names whitelisted and values bound', () => {
    const { sql, params } = rangeIntervalsQuery('svc', {
      ...request,
      interval: 'week',
      filters: { channel: "x' OR 1 = 1 --", tool: 'Bar', shared_at_day_of_week: '2' },
      toolKeys: ['k1'],
      withBots: true,
    });
    const conditions =
      ' AND channel = {p3:String} AND (tool = {p4:String} OR tool IN {p5:Array(String)})' +
      ' AND toUInt16(toDayOfWeek(shared_at) - 1) = {p6:UInt16}';
    expect(flat(sql)).toBe(
      'SELECT bucket, sum(clicks) AS clicks, sum(shares) AS shares FROM (' +
        " SELECT toDateTime(toMonday(toStartOfHour(clicked_at)), 'UTC') AS bucket," +
        ' (countIf(is_bot = 0) + countIf(is_bot = 1)) AS clicks, 0 AS shares' +
        ' FROM svc.clicks WHERE project_id IN {p0:Array(UUID)}' +
        " AND toStartOfHour(clicked_at) >= {p1:DateTime64(3, 'UTC')} AND toStartOfHour(clicked_at) < {p2:DateTime64(3, 'UTC')}" +
        ` AND link_id IN (SELECT link_id FROM svc.links FINAL WHERE project_id IN {p0:Array(UUID)}${conditions})` +
        ' GROUP BY bucket HAVING clicks > 0' +
        " UNION ALL SELECT toDateTime(toMonday(shared_at), 'UTC') AS bucket, 0 AS clicks, count() AS shares" +
        ' FROM svc.links FINAL WHERE project_id IN {p0:Array(UUID)}' +
        ` AND shared_at >= {p1:DateTime64(3, 'UTC')} AND shared_at < {p2:DateTime64(3, 'UTC')}${conditions}` +
        ' GROUP BY bucket) GROUP BY bucket ORDER BY bucket',
    );
    expect(params).toEqual({
      ...PERIOD,
      p3: "x' OR 1 = 1 --",
      p4: 'Bar',
      p5: ['k1'],
      p6: 2,
    });
  });

  it('leaves out a filter whose name is not on the whitelist', () => {
    const filters = { 'channel = 1 OR 1': 'x' } as unknown as StatsQuery['filters'];
    const { sql, params } = rangeIntervalsQuery('svc', {
      ...request,
      interval: 'day',
      filters,
      withBots: false,
    });
    expect(sql).not.toContain('OR 1');
    expect(sql).not.toContain('link_id IN');
    expect(params).toEqual(PERIOD);
  });

  it('sums conversions per hour and type, filters bound before the period', () => {
    const { sql, params } = rangeIntervalConversionsQuery('svc', {
      ...request,
      interval: 'hour',
      filters: { campaign: 'c' },
    });
    expect(flat(sql)).toBe(
      'SELECT toStartOfHour(converted_at) AS bucket, type, count() AS count, sum(value) AS value' +
        ' FROM svc.conversions WHERE project_id IN {p0:Array(UUID)}' +
        " AND converted_at >= {p2:DateTime64(3, 'UTC')} AND converted_at < {p3:DateTime64(3, 'UTC')}" +
        ' AND link_id IN (SELECT link_id FROM svc.links FINAL WHERE project_id IN {p0:Array(UUID)} AND campaign = {p1:String})' +
        ' GROUP BY bucket, type',
    );
    expect(params).toEqual({
      p0: ['P'],
      p1: 'c',
      p2: '2026-11-01 00:00:00.000',
      p3: '2026-11-08 00:00:00.000',
    });
  });
});
