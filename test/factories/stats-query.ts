import type { StatsQuery } from '../../src/stats/stats-query';

/** A range query over the first week of November 2026, with the defaults the API gives; `over` changes it. */
export function statsQuery(over: Partial<StatsQuery> = {}): StatsQuery {
  return {
    kind: 'range',
    start: new Date('2026-11-01T00:00:00Z'),
    end: new Date('2026-11-08T00:00:00Z'),
    filters: {},
    groupBy: null,
    pivot: null,
    sortType: 'clicks',
    sortOrder: 'desc',
    pivotSortType: 'clicks',
    pivotSortOrder: 'desc',
    page: 1,
    perPage: 10,
    offset: 0,
    withConversions: false,
    withMetadata: false,
    withZeros: false,
    withBots: false,
    withChain: false,
    attribution: 'last',
    chainParams: [],
    ...over,
  };
}

/** SQL on one line, runs of whitespace as one space, for exact comparisons. */
export const flat = (sql: string): string => sql.replace(/\s+/g, ' ').trim();
