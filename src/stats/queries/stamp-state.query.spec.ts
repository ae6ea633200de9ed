import { chainStateQuery, stampStateQuery } from './stamp-state.query';

const flat = (sql: string) => sql.replace(/\s+/g, ' ');
const first = (what: string, table: string, condition = '') =>
  `SELECT '${what}' AS what FROM svc.${table} WHERE project_id IN {projects:Array(UUID)}${condition} LIMIT 1`;

describe('stamp state', () => {
  it('asks in one statement for updated links and events without a stamp', () => {
    const { sql, params } = stampStateQuery('svc', ['P', 'Q']);
    expect(flat(sql)).toBe(
      "SELECT 'updated' AS what FROM svc.link_updates WHERE project_id IN {projects:Array(UUID)} LIMIT 1" +
        " UNION ALL SELECT 'clicks' AS what FROM svc.clicks" +
        ' WHERE project_id IN {projects:Array(UUID)} AND link_version = 0 LIMIT 1' +
        " UNION ALL SELECT 'conversions' AS what FROM svc.conversions" +
        ' WHERE project_id IN {projects:Array(UUID)} AND link_version = 0 LIMIT 1',
    );
    expect(params).toEqual({ projects: ['P', 'Q'] });
  });

  it('asks the retired rollups too when the projects have them', () => {
    expect(flat(stampStateQuery('svc', ['P'], true).sql)).toBe(
      [
        first('updated', 'link_updates'),
        first('clicks', 'clicks', ' AND link_version = 0'),
        first('conversions', 'conversions', ' AND link_version = 0'),
        first('clicks', 'clicks_retired', ' AND link_version = 0'),
        first('conversions', 'conversions_retired', ' AND link_version = 0'),
      ].join(' UNION ALL '),
    );
  });
});

describe('chain state', () => {
  const own = [
    first('unstamped', 'clicks', ' AND chain_stamped = 0'),
    first('unstamped', 'conversions', ' AND chain_stamped = 0'),
    first('unstamped', 'link_chains FINAL', ' AND shared_at IS NULL'),
    first('moved', 'chain_moves'),
  ];

  it('asks in one statement for events without a chain stamp, chains without a shared time and moved links', () => {
    const { sql, params } = chainStateQuery('svc', ['P', 'Q']);
    expect(flat(sql)).toBe(own.join(' UNION ALL '));
    expect(params).toEqual({ projects: ['P', 'Q'] });
  });

  it('asks the retired rollups too when the projects have them', () => {
    expect(flat(chainStateQuery('svc', ['P'], true).sql)).toBe(
      [
        ...own,
        first('unstamped', 'clicks_retired', ' AND chain_stamped = 0'),
        first('unstamped', 'conversions_retired', ' AND chain_stamped = 0'),
      ].join(' UNION ALL '),
    );
  });
});
