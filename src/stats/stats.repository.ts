import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { AnalyticsClient, Page, fromChTime } from '../analytics/analytics-client';
import { AppConfig } from '../config/app-config';
import {
  Figures,
  GroupRow,
  GroupValue,
  SortablePivot,
  keyOf,
  pivotOf,
  pivotOfTuple,
  readFigures,
  readValue,
} from './figures';
import {
  CascadeRequest,
  cascadeChildrenQuery,
  cascadeGenerationsQuery,
} from './queries/chain.query';
import { LinkClicksRequest, linkClicksQuery } from './queries/link-clicks.query';
import {
  LinkIntervalsRequest,
  linkIntervalConversionsQuery,
  linkIntervalsQuery,
} from './queries/link-intervals.query';
import {
  RangeIntervalsRequest,
  rangeIntervalConversionsQuery,
  rangeIntervalsQuery,
} from './queries/range-intervals.query';
import {
  RowsRequest,
  aggregateTotalsQuery,
  countsOnceByGroup,
  fusesPivots,
  groupPageQuery,
  groupsWithPivotsQuery,
  pagePivotsQuery,
  pivotTuplesHoldShared,
  pivotValuesQuery,
} from './queries/range-totals.query';
import { ChainState, StampState, figureColumns } from './queries/row-parts';
import { Statement } from './queries/statement';
import { chainStateQuery, retiredStateQuery, stampStateQuery } from './queries/stamp-state.query';
import {
  keptCascadeChildrenQuery,
  keptCascadeGenerationsQuery,
} from './queries/cascade-kept.query';
import { EventLoopLoad, StatementYield, YIELD_PAUSE } from './statement-yield';

/**
 * Range's and totals' answer as found: the totals, one page of groups and, per group, its pivots
 * (pivots[i] are groups[i]'s) unsorted, without the zeros of with_zeros (RangeTotalsService orders them).
 */
export interface Aggregate {
  totals: Figures;
  groups: GroupRow[];
  totalResults: number;
  pivots: SortablePivot[][];
}

export interface IntervalRow {
  bucket: Date;
  clicks: number;
}

export interface IntervalConversionRow {
  bucket: Date;
  type: string;
  count: number;
  value: number;
}

export type Row = Record<string, unknown>;
type Count = string | number;

/**
 * Statistics over the analytics store (ClickHouse; docs/architecture.md, "How a statistic flows"):
 * runs the statements of src/stats/queries and maps their rows. Every statement is built there, by
 * pure functions; this class knows only which to run for a request.
 */
@Injectable()
export class StatsRepository implements OnModuleDestroy {
  /** The embedded engine's event-loop load (STATS_YIELD_LOAD), null when statements never yield. */
  private readonly load: EventLoopLoad | null;
  private readonly yielding: StatementYield;

  constructor(
    @Inject(AnalyticsClient) private readonly analytics: AnalyticsClient,
    @Inject(AppConfig) config: AppConfig,
  ) {
    // A ClickHouse server runs statements in its own process.
    const load =
      config.clickhouseUrl === null && config.statsYieldLoad < 100 ? new EventLoopLoad() : null;
    this.load = load;
    this.yielding = new StatementYield(
      () => load !== null && load.current * 100 > config.statsYieldLoad,
      YIELD_PAUSE,
    );
  }

  onModuleDestroy(): void {
    this.load?.stop();
  }

  private get db(): string {
    return this.analytics.database;
  }

  /** A link's clicks per interval with clicks in the period, and its latest click of all time. */
  async linkIntervals(
    request: LinkIntervalsRequest & { withBots: boolean },
    signal?: AbortSignal,
  ): Promise<{ rows: IntervalRow[]; last: Date | null }> {
    const buckets = await this.rows<{ bucket: string; clicks: Count; last: string }>(
      linkIntervalsQuery(this.db, request),
      signal,
    );
    let last: string | null = null;
    for (const bucket of buckets) if (last === null || bucket.last > last) last = bucket.last;
    return {
      rows: buckets
        .filter((r) => Number(r.clicks) > 0)
        .map((r) => ({ bucket: fromChTime(r.bucket), clicks: Number(r.clicks) })),
      last: last === null ? null : fromChTime(last),
    };
  }

  /** A link's conversions per interval and type in the period. */
  async linkIntervalConversions(
    request: LinkIntervalsRequest,
    signal?: AbortSignal,
  ): Promise<IntervalConversionRow[]> {
    return this.conversionRows(linkIntervalConversionsQuery(this.db, request), signal);
  }

  /** Each link's clicks in the period and latest click, by link id (link details and batch). */
  async linkClicks(
    request: LinkClicksRequest,
    signal?: AbortSignal,
  ): Promise<Map<string, { clicks: number; last: Date | null }>> {
    const rows = await this.rows<{ link_id: Count; clicks: Count; last: string | null }>(
      linkClicksQuery(this.db, request),
      signal,
    );
    return new Map(
      rows.map((r) => [
        String(r.link_id),
        { clicks: Number(r.clicks), last: r.last ? fromChTime(r.last) : null },
      ]),
    );
  }

  /** A project's clicks and shares per interval (range intervals). */
  async rangeIntervals(
    request: RangeIntervalsRequest & { withBots: boolean },
    signal?: AbortSignal,
  ): Promise<{ bucket: Date; clicks: number; shares: number }[]> {
    const rows = await this.rows<{ bucket: string; clicks: Count; shares: Count }>(
      rangeIntervalsQuery(this.db, request),
      signal,
    );
    return rows.map((r) => ({
      bucket: fromChTime(r.bucket),
      clicks: Number(r.clicks),
      shares: Number(r.shares),
    }));
  }

  /** A project's conversions per interval and type (range intervals). */
  async rangeIntervalConversions(
    request: RangeIntervalsRequest,
    signal?: AbortSignal,
  ): Promise<IntervalConversionRow[]> {
    return this.conversionRows(rangeIntervalConversionsQuery(this.db, request), signal);
  }

  /** The projects' stamp state, as the store holds it now. */
  async stampState(
    projectIds: string[],
    signal?: AbortSignal,
    retired = false,
  ): Promise<StampState> {
    const found = await this.rows<{ what: string }>(
      stampStateQuery(this.db, projectIds, retired),
      signal,
    );
    const has = new Set(found.map((row) => row.what));
    return {
      updated: has.has('updated'),
      unstamped: { clicks: has.has('clicks'), conversions: has.has('conversions') },
    };
  }

  /** The projects' chain state (the chain figures the store keeps), as the store holds it now. */
  async chainState(
    projectIds: string[],
    signal?: AbortSignal,
    retired = false,
  ): Promise<ChainState> {
    const found = await this.rows<{ what: string }>(
      chainStateQuery(this.db, projectIds, retired),
      signal,
    );
    const has = new Set(found.map((row) => row.what));
    return { unstamped: has.has('unstamped'), moved: has.has('moved') };
  }

  /** Whether the projects have retired events (docs/architecture.md, "Retention"). */
  async retiredState(projectIds: string[], signal?: AbortSignal): Promise<boolean> {
    const found = await this.rows<{ what: string }>(retiredStateQuery(this.db, projectIds), signal);
    return found.length > 0;
  }

  /**
   * Range and totals: the totals, one page of groups and the page's pivots, in one statement
   * when the request allows (range-totals.query.ts), else two or three.
   */
  async aggregate(request: RowsRequest, signal?: AbortSignal): Promise<Aggregate> {
    const { query } = request;
    if (!query.groupBy) {
      const [totals] = await this.rows<Row>(aggregateTotalsQuery(this.db, request), signal);
      return { totals: readFigures(totals), groups: [], totalResults: 0, pivots: [] };
    }
    if (fusesPivots(query)) {
      const fused = await this.groupsWithPivots(request, signal);
      if (fused) return fused;
    }
    const pageQuery = groupPageQuery(this.db, request);
    // Totals that are not the sum of the groups (a link in several groups, or chains) are a
    // statement of their own, run beside the page's.
    const [page, ownTotals] = await Promise.all([
      this.page(pageQuery, signal),
      countsOnceByGroup(query)
        ? null
        : this.rows<Row>(aggregateTotalsQuery(this.db, request), signal),
    ]);
    const totals = readFigures(ownTotals ? ownTotals[0] : page.totals);
    const groups = page.rows.map((row) => ({ value: readValue(row.g), ...readFigures(row) }));
    const pivots = query.pivot
      ? await this.pagePivots(request, groups, signal)
      : groups.map((): SortablePivot[] => []);
    return { totals, totalResults: page.before, groups, pivots };
  }

  /**
   * A link's cascade per generation, and the distinct sharers below it (chain.json); over the chain
   * figures the store keeps when `kept` (no event of the project lacks a chain stamp).
   */
  async cascadeGenerations(
    request: CascadeRequest,
    signal?: AbortSignal,
    kept = false,
  ): Promise<{ rows: Row[]; sharers: number }> {
    const statement = kept
      ? keptCascadeGenerationsQuery(this.db, request)
      : cascadeGenerationsQuery(this.db, request);
    const page = await this.page(statement, signal);
    return { rows: page.rows, sharers: Number(page.totals?.all_sharers ?? 0) };
  }

  /** A page of a link's direct children with their own and downstream figures (chain.json; `kept` as above). */
  async cascadeChildren(
    request: CascadeRequest,
    page: { perPage: number; offset: number },
    signal?: AbortSignal,
    kept = false,
  ): Promise<Row[]> {
    const statement = kept
      ? keptCascadeChildrenQuery(this.db, request, page)
      : cascadeChildrenQuery(this.db, request, page);
    return this.rows<Row>(statement, signal);
  }

  /** Every pivot value of the whole result (with_zeros). */
  async pivotValues(request: RowsRequest, signal?: AbortSignal): Promise<GroupValue[]> {
    const rows = await this.rows<Row>(pivotValuesQuery(this.db, request), signal);
    return rows.map(({ p }) => readValue(p));
  }

  /** Groups with their pivots from one statement; null when the page is empty. */
  private async groupsWithPivots(
    request: RowsRequest,
    signal: AbortSignal | undefined,
  ): Promise<Aggregate | null> {
    const { withConversions } = request.query;
    const found = await this.rows<Row>(groupsWithPivotsQuery(this.db, request), signal);
    if (found.length === 0) return null;
    // Each tuple is (p, figures…[, last_shared]), figures in figureColumns' order.
    const sharedAt = pivotTuplesHoldShared(request.query)
      ? figureColumns(withConversions).length + 1
      : -1;
    return {
      totals: readFigures(found[0], 'T_'),
      totalResults: Number(found[0].total_results),
      groups: found.map((row) => ({ value: readValue(row.g), ...readFigures(row, 'G_') })),
      pivots: found.map((row) =>
        (row.pivots as unknown[][]).map((tuple) =>
          pivotOfTuple(tuple, withConversions, sharedAt < 0 ? null : tuple[sharedAt]),
        ),
      ),
    };
  }

  /** The pivots of the page's groups, by group (found[i]: groups[i]'s); none without groups. */
  private async pagePivots(
    request: RowsRequest,
    groups: GroupRow[],
    signal: AbortSignal | undefined,
  ): Promise<SortablePivot[][]> {
    if (groups.length === 0) return [];
    const values = groups.map((group) => group.value);
    const found = await this.rows<Row>(pagePivotsQuery(this.db, request, values), signal);
    const byGroup = new Map<string, SortablePivot[]>();
    for (const row of found) {
      const key = keyOf(readValue(row.g));
      let pivots = byGroup.get(key);
      if (!pivots) byGroup.set(key, (pivots = []));
      pivots.push(pivotOf(row));
    }
    return values.map((value) => byGroup.get(keyOf(value)) ?? []);
  }

  private async conversionRows(
    statement: Statement,
    signal: AbortSignal | undefined,
  ): Promise<IntervalConversionRow[]> {
    const rows = await this.rows<{ bucket: string; type: string; count: Count; value: Count }>(
      statement,
      signal,
    );
    return rows.map((r) => ({
      bucket: fromChTime(r.bucket),
      type: r.type,
      count: Number(r.count),
      value: Number(r.value),
    }));
  }

  /**
   * Every statement of statistics runs here or in `page`: with the store's limits (AnalyticsClient),
   * yielding (StatementYield), and cancelled with its request (`signal`; docs/api.md, "Statistics limits").
   */
  private rows<T>(statement: Statement, signal: AbortSignal | undefined): Promise<T[]> {
    return this.yielding.run(
      (settings) => this.analytics.query<T>(statement.sql, statement.params, { settings, signal }),
      signal,
    );
  }

  private page(statement: Statement, signal: AbortSignal | undefined): Promise<Page<Row>> {
    return this.yielding.run(
      (settings) =>
        this.analytics.queryPage<Row>(statement.sql, statement.params, { settings, signal }),
      signal,
    );
  }
}
