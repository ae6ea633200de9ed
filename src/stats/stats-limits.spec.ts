import type { ClickHouseClient } from '@clickhouse/client';
import { statsQuery } from '../../test/factories/stats-query';
import { AnalyticsClient } from '../analytics/analytics-client';
import { AppConfig } from '../config/app-config';
import { CascadeRequest } from './queries/chain.query';
import { RowsRequest } from './queries/range-totals.query';
import { StatsQuery } from './stats-query';
import { StatsRepository } from './stats.repository';

/** What the store's client was asked: each read's text, settings, query id and signal. */
interface Sent {
  query: string;
  format: string;
  clickhouse_settings?: Record<string, number>;
  query_id?: string;
  abort_signal?: AbortSignal;
}

/** A row with every column any statistics statement reads, so that each goes on to the next. */
const ROW = {
  bucket: '2026-11-01 00:00:00',
  last: '2026-11-01 00:00:00',
  link_id: '1',
  clicks: '1',
  shares: '1',
  type: 'pageview',
  count: '1',
  value: '0',
  what: 'clicks',
  g: 'a',
  p: 'b',
  pivots: [],
  total_results: '1',
};

/**
 * The @clickhouse/client the store's client drives, recording each read: a transport test of the
 * settings themselves is test/e2e/stats-limits.e2e-spec.ts and clickhouse-server.e2e-spec.ts.
 */
function recordingClient(sent: Sent[]): ClickHouseClient {
  return {
    query: (params: Sent) => {
      sent.push(params);
      const lines =
        params.format === 'JSONEachRowWithProgress'
          ? [{ row: ROW }, { totals: ROW }, { rows_before_limit_at_least: 1 }]
          : [ROW];
      return Promise.resolve({ json: () => Promise.resolve(lines) });
    },
  } as unknown as ClickHouseClient;
}

function repository(analytics: AnalyticsClient, server: boolean): StatsRepository {
  const config = {
    clickhouseUrl: server ? 'http://127.0.0.1:8123' : null,
    statsYieldLoad: 100,
  } as AppConfig;
  return new StatsRepository(analytics, config);
}

const rows = (query: StatsQuery): RowsRequest => ({
  query,
  scope: { ids: ['P'], keys: ['K'] },
  context: { toolKeys: [], stamped: null },
});

/** Runs every statement StatsRepository builds, each with `signal`. */
async function everyStatement(stats: StatsRepository, signal: AbortSignal): Promise<void> {
  const period = {
    projectId: 'P',
    linkId: '1',
    start: new Date('2026-11-01T00:00:00Z'),
    end: new Date('2026-11-08T00:00:00Z'),
    interval: 'day' as const,
  };
  const range = { ...period, projectIds: ['P'], filters: {}, toolKeys: [] };
  const cascade: CascadeRequest = {
    projectId: 'P',
    linkId: '1',
    depth: 0,
    start: null,
    end: null,
    withConversions: true,
    withBots: false,
  };
  await stats.linkIntervals({ ...period, withBots: false }, signal);
  await stats.linkIntervalConversions(period, signal);
  await stats.linkClicks({ ...period, linkIds: ['1'], withBots: false }, signal);
  await stats.rangeIntervals({ ...range, withBots: false }, signal);
  await stats.rangeIntervalConversions(range, signal);
  await stats.stampState(['P'], signal);
  // Totals alone; groups and pivots in one statement; a page of groups with its own totals,
  // its pivots and (with_zeros) every pivot value.
  await stats.aggregate(rows(statsQuery()), signal);
  await stats.aggregate(rows(statsQuery({ groupBy: 'channel', pivot: 'campaign' })), signal);
  const chained = rows(statsQuery({ groupBy: 'channel', pivot: 'campaign', withChain: true }));
  await stats.aggregate(chained, signal);
  await stats.pivotValues(chained, signal);
  await stats.cascadeGenerations(cascade, signal);
  await stats.cascadeChildren(cascade, { perPage: 10, offset: 0 }, signal);
}

/** Six reads of one statement, the aggregates' 1 + 1 + 3, the pivot values, the cascade's 2. */
const STATEMENTS = 14;

describe('the limits of statistics statements (docs/api.md, "Statistics limits")', () => {
  it('on a server: every statement carries max_execution_time (whole seconds, rounded up) and max_memory_usage (bytes) as settings, a query id of its own and the request’s signal', async () => {
    const sent: Sent[] = [];
    const analytics = new AnalyticsClient(recordingClient(sent), 'svc', 'test server');
    analytics.limits = { seconds: 6.5, megabytes: 64 };
    const signal = new AbortController().signal;
    await everyStatement(repository(analytics, true), signal);
    expect(sent).toHaveLength(STATEMENTS);
    for (const statement of sent) {
      expect(statement.clickhouse_settings).toEqual({
        max_execution_time: 7,
        max_memory_usage: 64 * 1024 * 1024,
      });
      expect(statement.abort_signal).toBe(signal);
      expect(statement.query).not.toMatch(/max_execution_time|max_memory_usage/);
    }
    expect(new Set(sent.map((s) => s.query_id)).size).toBe(STATEMENTS);
  });

  it('embedded: every statement ends with them in its SETTINGS clause (a session SET would outlive it), its own settings kept', async () => {
    const sent: Sent[] = [];
    const analytics = new AnalyticsClient(recordingClient(sent), 'svc', 'test chDB', () =>
      Promise.reject(new Error('no inserts here')),
    );
    analytics.limits = { seconds: 0.25, megabytes: 0.5 };
    await everyStatement(repository(analytics, false), new AbortController().signal);
    expect(sent).toHaveLength(STATEMENTS);
    for (const statement of sent) {
      expect(statement.clickhouse_settings).toBeUndefined();
      expect(statement.query).toMatch(
        /\n\s*SETTINGS (?:\w+ = \w+, )*max_execution_time = 0\.25, max_memory_usage = 524288$/,
      );
    }
    // Statements with settings of their own keep them, in the same clause.
    expect(
      sent.filter((s) => /exact_rows_before_limit = 1, max_execution_time/.test(s.query)),
    ).not.toHaveLength(0);
  });

  it('without limits (0, the CLI), statements are sent as built', async () => {
    const sent: Sent[] = [];
    const analytics = new AnalyticsClient(recordingClient(sent), 'svc', 'test server');
    await everyStatement(repository(analytics, true), new AbortController().signal);
    expect(sent).toHaveLength(STATEMENTS);
    for (const statement of sent) expect(statement.clickhouse_settings).toBeUndefined();
  });
});
