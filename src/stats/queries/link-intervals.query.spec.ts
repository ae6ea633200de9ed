import { flat } from '../../../test/factories/stats-query';
import { linkIntervalConversionsQuery, linkIntervalsQuery } from './link-intervals.query';

const period = {
  projectId: '0b5c3a34-8d6e-4a51-9d39-3f1c0e7d2a11',
  linkId: '42',
  start: new Date('2026-11-01T00:00:00Z'),
  end: new Date('2026-11-08T00:00:00Z'),
};
const params = {
  project: '0b5c3a34-8d6e-4a51-9d39-3f1c0e7d2a11',
  link: '42',
  start: '2026-11-01 00:00:00.000',
  end: '2026-11-08 00:00:00.000',
};

describe('link intervals', () => {
  it("reads the link's key range of raw clicks, humans only, per week", () => {
    const { sql, params: bound } = linkIntervalsQuery('svc', {
      ...period,
      interval: 'week',
      withBots: false,
    });
    expect(flat(sql)).toBe(
      "SELECT toDateTime(toMonday(clicked_at), 'UTC') AS bucket," +
        " countIf(clicked_at >= {start:DateTime64(3, 'UTC')} AND clicked_at < {end:DateTime64(3, 'UTC')}) AS clicks," +
        ' max(clicked_at) AS last FROM svc.clicks' +
        ' WHERE project_id = {project:UUID} AND link_id = {link:UInt64} AND is_bot = 0' +
        ' GROUP BY bucket ORDER BY bucket SETTINGS optimize_use_projections = 0',
    );
    expect(bound).toEqual(params);
  });

  it('counts bots too with with_bots, per hour', () => {
    const { sql } = linkIntervalsQuery('svc', { ...period, interval: 'hour', withBots: true });
    expect(flat(sql)).toContain('SELECT toStartOfHour(clicked_at) AS bucket,');
    expect(flat(sql)).toContain('AND link_id = {link:UInt64} AND 1 GROUP BY bucket');
  });

  it("sums the link's conversions of the period per day and type", () => {
    const { sql, params: bound } = linkIntervalConversionsQuery('svc', {
      ...period,
      interval: 'day',
    });
    expect(flat(sql)).toBe(
      'SELECT toStartOfDay(converted_at) AS bucket, type, count() AS count, sum(value) AS value' +
        ' FROM svc.conversions WHERE project_id = {project:UUID} AND link_id = {link:UInt64}' +
        " AND converted_at >= {start:DateTime64(3, 'UTC')} AND converted_at < {end:DateTime64(3, 'UTC')}" +
        ' GROUP BY bucket, type',
    );
    expect(bound).toEqual(params);
  });
});
