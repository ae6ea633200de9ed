import { flat, statsQuery } from '../../../test/factories/stats-query';
import { StatsQuery } from '../stats-query';
import { movedCorrectionsSql } from './chain-figures.query';
import { activityByKeySql, bindCascade } from './chain.query';
import { linkClicksQuery } from './link-clicks.query';
import { linkIntervalConversionsQuery, linkIntervalsQuery } from './link-intervals.query';
import { rangeIntervalConversionsQuery, rangeIntervalsQuery } from './range-intervals.query';
import { Grouping, RowsContext, StampState } from './row-parts';
import { rowsSql } from './rows.query';
import { Binder } from './statement';

/**
 * Retention's horizon (retired-horizon.ts) in every statement that adds the retired rollups: the
 * raw events at or after their project's horizon, the rollups before it, one subquery text per
 * statement; none without rollups.
 */
function rows(query: StatsQuery, grouping: Grouping, context: Partial<RowsContext>) {
  const full: RowsContext = { toolKeys: [], stamped: null, ...context };
  return flat(rowsSql('svc', query, { ids: ['P'], keys: ['K'] }, full, new Binder(), grouping));
}

const horizon = (projects: string) =>
  '(SELECT mapFromArrays(groupArray(project_id), groupArray(until)) FROM (SELECT project_id, max(retired_until) AS until' +
  ` FROM svc.retired_horizons WHERE project_id IN ${projects} GROUP BY project_id))[project_id]`;
const H = horizon('{p0:Array(UUID)}');
const SINCE = (time: string, h = H) => ` AND toStartOfHour(${time}) >= ${h}`;
const BEFORE = (h = H) => ` AND hour < ${h}`;
const IN_PERIOD = (column: string) =>
  `${column} >= {p1:DateTime64(3, 'UTC')} AND ${column} < {p2:DateTime64(3, 'UTC')}`;
const STALE: StampState = { updated: false, unstamped: { clicks: true, conversions: true } };

/** The distinct horizon subqueries of a statement: one. */
function horizons(sql: string): Set<string> {
  return new Set(sql.match(/\(SELECT mapFromArrays.*?\)\)\[project_id\]/g) ?? []);
}

describe('retired horizon in statistics', () => {
  it('stamped range: fresh and stale raw events since the horizon, rollups before it', () => {
    const sql = rows(
      statsQuery({ groupBy: 'channel', withConversions: true }),
      { group: 'channel', pivot: null },
      { stamped: STALE, retired: true },
    );
    expect(sql).toContain(
      `FROM svc.clicks WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('toStartOfHour(clicked_at)')}${SINCE('clicked_at')} AND link_version != 0 GROUP BY g, p HAVING clicks > 0`,
    );
    expect(sql).toContain(
      `FROM svc.clicks_retired WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('hour')}${BEFORE()} AND link_version != 0 GROUP BY g, p HAVING clicks > 0`,
    );
    expect(sql).toContain(
      `FROM svc.conversions WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('converted_at')}${SINCE('converted_at')} AND link_version != 0 GROUP BY g, p`,
    );
    expect(sql).toContain(
      `FROM svc.clicks WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('toStartOfHour(clicked_at)')}${SINCE('clicked_at')} AND NOT (link_version != 0) GROUP BY link_id HAVING clicks > 0`,
    );
    expect(sql).toContain(
      `FROM svc.conversions_retired WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('hour')}${BEFORE()} AND NOT (link_version != 0) GROUP BY link_id`,
    );
    expect(horizons(sql).size).toBe(1);
  });

  it('joined range, dimensions and first touch: per link or dimension, each side of the horizon', () => {
    const joined = rows(
      statsQuery({ groupBy: 'svc_id', withConversions: true }),
      { group: 'svc_id', pivot: null },
      { retired: true },
    );
    expect(joined).toContain(
      `FROM svc.clicks WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('toStartOfHour(clicked_at)')}${SINCE('clicked_at')} GROUP BY link_id HAVING clicks > 0`,
    );
    expect(joined).toContain(
      `FROM svc.conversions WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('converted_at')}${SINCE('converted_at')} GROUP BY link_id`,
    );
    expect(joined).toContain(
      `FROM svc.conversions_retired WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('hour')}${BEFORE()} GROUP BY link_id`,
    );
    const country = rows(
      statsQuery({ groupBy: 'country' }),
      { group: 'country', pivot: null },
      { retired: true },
    );
    expect(country).toContain(
      `FROM svc.clicks WHERE project_id IN {p0:Array(UUID)} AND ${IN_PERIOD('toStartOfHour(clicked_at)')}${SINCE('clicked_at')} GROUP BY g, p HAVING clicks > 0`,
    );
    const first = rows(
      statsQuery({ groupBy: 'channel', attribution: 'first' }),
      { group: 'channel', pivot: null },
      { retired: true },
    );
    expect(first).toContain(SINCE('clicked_at'));
    expect(first).toContain(BEFORE());
    for (const sql of [joined, country, first]) expect(horizons(sql).size).toBe(1);
  });

  it('without rollups, no horizon anywhere', () => {
    for (const context of [{ stamped: STALE }, {}] as Partial<RowsContext>[]) {
      const sql = rows(
        statsQuery({ groupBy: 'channel', withConversions: true, withChain: true }),
        { group: 'channel', pivot: null },
        context,
      );
      expect(sql).not.toContain('retired');
    }
  });

  it('range intervals and their conversions, each side of the horizon', () => {
    const request = {
      projectIds: ['P'],
      start: new Date('2026-11-01T00:00:00Z'),
      end: new Date('2026-11-08T00:00:00Z'),
      interval: 'day' as const,
      filters: {},
      toolKeys: [],
      retired: true,
    };
    const clicks = flat(rangeIntervalsQuery('svc', { ...request, withBots: false }).sql);
    expect(clicks).toContain(
      `AND toStartOfHour(clicked_at) < {p2:DateTime64(3, 'UTC')}${SINCE('clicked_at')} GROUP BY bucket`,
    );
    expect(clicks).toContain(`AND hour < {p2:DateTime64(3, 'UTC')}${BEFORE()} GROUP BY bucket`);
    const conversions = flat(rangeIntervalConversionsQuery('svc', request).sql);
    expect(conversions).toContain(
      `AND converted_at < {p2:DateTime64(3, 'UTC')}${SINCE('converted_at')} GROUP BY bucket, type`,
    );
    expect(conversions).toContain(`AND hour < {p2:DateTime64(3, 'UTC')}${BEFORE()} GROUP BY`);
    const { retired: _, ...plain } = request;
    expect(flat(rangeIntervalConversionsQuery('svc', plain).sql)).not.toContain('retired');
  });

  it("a link's intervals, details and cascade: the project's horizon", () => {
    const one = horizon('[{project:UUID}]');
    const request = {
      projectId: 'P',
      linkId: '1',
      start: new Date('2026-11-01T00:00:00Z'),
      end: new Date('2026-11-08T00:00:00Z'),
      interval: 'day' as const,
      retired: true,
    };
    const intervals = flat(linkIntervalsQuery('svc', { ...request, withBots: false }).sql);
    expect(intervals).toContain(
      `FROM svc.clicks WHERE project_id = {project:UUID} AND link_id = {link:UInt64} AND is_bot = 0${SINCE('clicked_at', one)} GROUP BY bucket`,
    );
    expect(intervals).toContain(
      `FROM svc.clicks_retired WHERE project_id = {project:UUID} AND link_id = {link:UInt64} AND is_bot = 0${BEFORE(one)} GROUP BY bucket`,
    );
    const conversions = flat(linkIntervalConversionsQuery('svc', request).sql);
    expect(conversions).toContain(
      `AND converted_at < {end:DateTime64(3, 'UTC')}${SINCE('converted_at', one)} GROUP BY bucket, type`,
    );
    expect(conversions).toContain(`AND hour < {end:DateTime64(3, 'UTC')}${BEFORE(one)} GROUP BY`);
    const details = flat(
      linkClicksQuery('svc', {
        ...request,
        start: null,
        end: null,
        linkIds: ['1'],
        withBots: false,
      }).sql,
    );
    const bound = horizon('[{p0:UUID}]');
    expect(details).toContain(
      `WHERE project_id = {p0:UUID} AND link_id IN {p1:Array(UInt64)} AND is_bot = 0${SINCE('clicked_at', bound)} GROUP BY link_id`,
    );
    expect(details).toContain(
      `WHERE project_id = {p0:UUID} AND link_id IN {p1:Array(UInt64)} AND is_bot = 0${BEFORE(bound)} GROUP BY link_id`,
    );
    const cascade = {
      projectId: 'P',
      linkId: '1',
      depth: 0,
      start: null,
      end: null,
      withConversions: true,
      withBots: false,
      retired: true,
    };
    const binder = new Binder();
    const activity = flat(activityByKeySql('svc', cascade, bindCascade(cascade, binder), 'X'));
    expect(activity).toContain(`AND link_id IN (X) AND 1 AND 1${SINCE('clicked_at', bound)}`);
    expect(activity).toContain(`AND link_id IN (X) AND 1 AND 1${SINCE('converted_at', bound)}`);
    expect(activity).toContain(`AND link_id IN (X) AND 1 AND 1${BEFORE(bound)}`);
    expect(horizons(activity).size).toBe(1);
  });

  it('the chain corrections of moved links: each side of the horizon', () => {
    const sql = flat(
      movedCorrectionsSql({
        db: 'svc',
        projects: '{p0:Array(UUID)}',
        period: null,
        withBots: false,
        conversions: ['pageviews'],
        retired: true,
      }),
    );
    expect(sql).toContain(
      `AND chain_stamped = 1${SINCE('clicked_at')} GROUP BY link_id, ancestors`,
    );
    expect(sql).toContain(
      `AND chain_stamped = 1${SINCE('converted_at')} GROUP BY link_id, ancestors`,
    );
    expect(sql).toContain(`AND chain_stamped = 1${BEFORE()} GROUP BY link_id, ancestors`);
  });
});
