import { flat } from '../../../test/factories/stats-query';
import { linkClicksQuery } from './link-clicks.query';

describe('link details and batch', () => {
  it("counts each link's clicks of the period and its latest click, humans only", () => {
    const { sql, params } = linkClicksQuery('svc', {
      projectId: 'P',
      linkIds: ['7', '12'],
      start: new Date('2026-11-01T00:00:00Z'),
      end: new Date('2026-11-08T00:00:00Z'),
      withBots: false,
    });
    expect(flat(sql)).toBe(
      "SELECT link_id, countIf(clicked_at >= {p0:DateTime64(3, 'UTC')} AND clicked_at < {p1:DateTime64(3, 'UTC')}) AS clicks," +
        ' maxOrNull(clicked_at) AS last FROM svc.clicks' +
        ' WHERE project_id = {p2:UUID} AND link_id IN {p3:Array(UInt64)} AND is_bot = 0' +
        ' GROUP BY link_id SETTINGS optimize_use_projections = 0',
    );
    expect(params).toEqual({
      p0: '2026-11-01 00:00:00.000',
      p1: '2026-11-08 00:00:00.000',
      p2: 'P',
      p3: [7, 12],
    });
  });

  it('counts all time without a period, and bots with with_bots', () => {
    const { sql, params } = linkClicksQuery('svc', {
      projectId: 'P',
      linkIds: ['7'],
      start: null,
      end: null,
      withBots: true,
    });
    expect(flat(sql)).toBe(
      'SELECT link_id, countIf(1 AND 1) AS clicks, maxOrNull(clicked_at) AS last FROM svc.clicks' +
        ' WHERE project_id = {p0:UUID} AND link_id IN {p1:Array(UInt64)} AND 1' +
        ' GROUP BY link_id SETTINGS optimize_use_projections = 0',
    );
    expect(params).toEqual({ p0: 'P', p1: [7] });
  });
});
