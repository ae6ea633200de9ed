import { stampStateQuery } from './stamp-state.query';

describe('stamp state', () => {
  it('asks in one statement for updated links and events without a stamp', () => {
    const { sql, params } = stampStateQuery('svc', ['P', 'Q']);
    expect(sql.replace(/\s+/g, ' ')).toBe(
      "SELECT 'updated' AS what FROM svc.link_updates WHERE project_id IN {projects:Array(UUID)} LIMIT 1" +
        " UNION ALL SELECT 'clicks' AS what FROM svc.clicks" +
        ' WHERE project_id IN {projects:Array(UUID)} AND link_version = 0 LIMIT 1' +
        " UNION ALL SELECT 'conversions' AS what FROM svc.conversions" +
        ' WHERE project_id IN {projects:Array(UUID)} AND link_version = 0 LIMIT 1',
    );
    expect(params).toEqual({ projects: ['P', 'Q'] });
  });
});
