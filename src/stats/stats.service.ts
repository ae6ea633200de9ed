import { Injectable } from '@nestjs/common';
import { Errors } from '../common/app-error';
import { isoTimestamp } from '../common/time';
import { LinkLookupsService } from '../links/link-lookups.service';
import { LinkRecord } from '../links/link-record';
import { ProjectEntity } from '../projects/project.entity';
import { chainEcho, chainObject } from './chain-echo';
import { filtersEcho, metadataOf } from './stats-echo';
import { ConversionsObject, conversionsObject, emptyCounts } from './conversions-object';
import { Figures, GroupRow, PivotRow } from './figures';
import { countByBucket, mergeBuckets, withZeros } from './interval-rows';
import { orderPivots } from './pivot-order';
import { RowsRequest } from './queries/range-totals.query';
import { RowsContext } from './queries/row-parts';
import { StampStates } from './stamp-states';
import { Interval, countIntervals } from './intervals';
import { usesDimensions } from './stats-fields';
import { Attribution, ChainParam, StatsQuery } from './stats-query';
import { Aggregate, StatsRepository } from './stats.repository';

export const MAX_INTERVALS = 500;

export interface DetailsOptions {
  start: Date | null;
  end: Date | null;
  withMetadata: boolean;
  withBots: boolean;
}

export interface IntervalsQuery {
  svcId: string;
  start: Date;
  end: Date;
  interval: Interval;
  withZeros: boolean;
  withMetadata: boolean;
  withConversions: boolean;
  withBots: boolean;
  /** Click-dimension filters (**extension**): the link's clicks and conversions that match. */
  filters: StatsQuery['filters'];
  /** attribution (**extension**) and whether the request gave it (then it is echoed). */
  attribution: Attribution;
  chainParams: ChainParam[];
}

export interface IntervalsResponse {
  svc_id: string;
  start_date: string;
  end_date: string;
  interval: Interval;
  with_zeros: boolean;
  with_metadata: boolean;
  with_conversions: boolean;
  clicks: number;
  last_clicked_at: string | null;
  intervals: Record<string, unknown>[];
  attribution?: Attribution;
  metadata?: LinkRecord;
  conversions?: ConversionsObject;
}

/**
 * The statistics endpoints' use cases (docs/api.md, "Statistics"): reads through StatsRepository
 * (the analytics store) and the links module (PostgreSQL), fills in zero intervals, orders pivots
 * and shapes the answers.
 */
@Injectable()
export class StatsService {
  constructor(
    private readonly repository: StatsRepository,
    private readonly stampStates: StampStates,
    private readonly lookups: LinkLookupsService,
  ) {}

  /** stats/{svc_id}/intervals.json: a link's clicks per hour, day or week. */
  async intervals(
    project: ProjectEntity,
    query: IntervalsQuery,
    signal?: AbortSignal,
  ): Promise<IntervalsResponse> {
    const count = countIntervals(query.start, query.end, query.interval);
    if (count > MAX_INTERVALS) {
      throw Errors.invalid(
        'interval',
        `the period holds ${count} ${query.interval} intervals; at most ${MAX_INTERVALS}`,
      );
    }
    const linkId = await this.lookups.linkId(project.id, query.svcId);
    if (!linkId) throw Errors.notFound(`No link ${query.svcId} in this project`);
    const period = {
      projectId: project.id,
      linkId,
      start: query.start,
      end: query.end,
      interval: query.interval,
      filters: query.filters,
      attribution: query.attribution,
    };
    const { rows: activity, last } = await this.repository.linkIntervals(
      { ...period, withBots: query.withBots },
      signal,
    );
    const rows = query.withZeros
      ? withZeros(activity, query.start, query.end, query.interval)
      : activity;
    const response: IntervalsResponse = {
      svc_id: query.svcId,
      start_date: isoTimestamp(query.start),
      end_date: isoTimestamp(query.end),
      interval: query.interval,
      with_zeros: query.withZeros,
      with_metadata: query.withMetadata,
      with_conversions: query.withConversions,
      ...chainEcho({ ...query, withChain: false }),
      clicks: rows.reduce((sum, row) => sum + row.clicks, 0),
      last_clicked_at: last ? isoTimestamp(last) : null,
      intervals: [],
    };
    const { byBucket, total } = countByBucket(
      query.withConversions ? await this.repository.linkIntervalConversions(period, signal) : [],
    );
    if (query.withConversions) response.conversions = conversionsObject(total, project.goalLabels);
    // An interval with conversions and no click is activity too: listed without with_zeros.
    const intervalRows =
      query.withConversions && !query.withZeros ? mergeBuckets(rows, byBucket.keys()) : rows;
    response.intervals = intervalRows.map((row) => {
      const item: Record<string, unknown> = {
        [query.interval]: isoTimestamp(row.bucket),
        clicks: row.clicks,
      };
      if (query.withConversions) {
        item.conversions = conversionsObject(
          byBucket.get(row.bucket.getTime()) ?? emptyCounts(),
          project.goalLabels,
        );
      }
      return item;
    });
    if (query.withMetadata) {
      const link = await this.lookups.findProjectLink(project, query.svcId);
      // Deleted in between: not found, as it would be a moment later.
      if (!link) throw Errors.notFound(`No link ${query.svcId} in this project`);
      [response.metadata] = await this.lookups.records(project, [link]);
    }
    return response;
  }

  /** stats/{svc_id}.json: a link's clicks (in the period, when given) and its latest click. */
  async linkDetails(
    project: ProjectEntity,
    svcId: string,
    options: DetailsOptions,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const [details] = (await this.linkBatch(project, [svcId], options, signal)).svc_ids;
    return {
      start_date: options.start ? isoTimestamp(options.start) : null,
      end_date: options.end ? isoTimestamp(options.end) : null,
      with_metadata: options.withMetadata,
      ...details,
    };
  }

  /** stats/svc_ids/batch.json: clicks and latest click of each link, in the order asked. */
  async linkBatch(
    project: ProjectEntity,
    svcIds: string[],
    options: DetailsOptions,
    signal?: AbortSignal,
  ): Promise<{ svc_ids: Record<string, unknown>[] }> {
    const links = [];
    for (const svcId of svcIds) {
      const link = await this.lookups.findProjectLink(project, svcId);
      if (!link) throw Errors.notFound(`No link ${svcId} in this project`);
      links.push(link);
    }
    const clicks = await this.repository.linkClicks(
      {
        projectId: project.id,
        linkIds: links.map((l) => l.id),
        start: options.start,
        end: options.end,
        withBots: options.withBots,
      },
      signal,
    );
    const records = options.withMetadata ? await this.lookups.records(project, links) : [];
    return {
      svc_ids: links.map((link, i) => {
        const figures = clicks.get(link.id);
        const item: Record<string, unknown> = {
          svc_id: link.svcId,
          clicks: figures?.clicks ?? 0,
          last_clicked_at: figures?.last ? isoTimestamp(figures.last) : null,
        };
        if (options.withMetadata) item.metadata = records[i];
        return item;
      }),
    };
  }

  /** stats/range/intervals.json: a project's clicks and shares per interval. */
  async rangeIntervals(
    project: ProjectEntity,
    query: StatsQuery & { start: Date; end: Date; interval: Interval },
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const count = countIntervals(query.start, query.end, query.interval);
    if (count > MAX_INTERVALS) {
      throw Errors.invalid(
        'interval',
        `the period holds ${count} ${query.interval} intervals; at most ${MAX_INTERVALS}`,
      );
    }
    const request = {
      projectIds: [project.id],
      start: query.start,
      end: query.end,
      interval: query.interval,
      filters: query.filters,
      toolKeys: await this.toolKeys([project.id], query),
      attribution: query.attribution,
    };
    const activity = await this.repository.rangeIntervals(
      { ...request, withBots: query.withBots },
      signal,
    );
    // With conversions, an interval with conversions and no click or share is activity too.
    const { byBucket, total } = countByBucket(
      query.withConversions ? await this.repository.rangeIntervalConversions(request, signal) : [],
    );
    const zero = { shares: 0 };
    const rows = query.withZeros
      ? withZeros(activity, query.start, query.end, query.interval, zero)
      : mergeBuckets(activity, byBucket.keys(), zero);
    // Filtered by a click dimension, shares are null: they count links, not clicks.
    const byDimensions = usesDimensions(query);
    const totals: Record<string, unknown> = {
      clicks: rows.reduce((sum, r) => sum + r.clicks, 0),
      shares: byDimensions ? null : rows.reduce((sum, r) => sum + r.shares, 0),
      intervals: rows.map((r) => {
        const item: Record<string, unknown> = {
          [query.interval]: isoTimestamp(r.bucket),
          clicks: r.clicks,
          shares: byDimensions ? null : r.shares,
        };
        if (query.withConversions)
          item.conversions = conversionsObject(
            byBucket.get(r.bucket.getTime()) ?? emptyCounts(),
            project.goalLabels,
          );
        return item;
      }),
    };
    if (query.withConversions) totals.conversions = conversionsObject(total, project.goalLabels);
    return {
      start_date: isoTimestamp(query.start),
      end_date: isoTimestamp(query.end),
      interval: query.interval,
      with_zeros: query.withZeros,
      with_conversions: query.withConversions,
      ...chainEcho(query),
      filters: await filtersEcho(this.lookups, [project], query),
      totals,
    };
  }

  /**
   * stats/range.json and stats/totals.json: totals, one page of groups and their pivots, with the
   * full echo.
   */
  async aggregate(
    projects: ProjectEntity[],
    query: StatsQuery,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const labels = projects[0].goalLabels;
    const ids = projects.map((p) => p.id);
    const request: RowsRequest = {
      query,
      scope: { ids, keys: projects.map((p) => p.apiKey) },
      context: await this.rowsContext(query, ids, signal),
    };
    const found = await this.repository.aggregate(request, signal);
    const { totals, groups, totalResults } = found;
    const pivots = await this.orderedPivots(request, found, signal);
    // A group's or pivot's figures, added to its object (which holds its value first). By click
    // dimensions shares are null: they count links, which have no place nor device.
    const byDimensions = usesDimensions(query);
    const withFigures = (object: Record<string, unknown>, f: Figures): Record<string, unknown> => {
      object.clicks = f.clicks;
      object.shares = byDimensions ? null : f.shares;
      object.clicks_per_share = byDimensions
        ? null
        : f.shares === 0
          ? 0
          : Math.round((f.clicks / f.shares) * 10_000) / 10_000;
      if (query.withConversions) {
        object.conversions = conversionsObject({ pageviews: f.pageviews, goals: f.goals }, labels);
      }
      if (query.withChain) object.chain = chainObject(f, query.withConversions, labels);
      return object;
    };
    const groupObjects = await Promise.all(
      groups.map(async (group: GroupRow, i) => {
        const object = withFigures({ [query.groupBy!]: group.value }, group);
        if (query.withMetadata)
          object.metadata = await metadataOf(this.lookups, projects, query.groupBy!, group.value);
        if (query.pivot) {
          const pivot = query.pivot;
          object.pivots = pivots[i].map((row: PivotRow) =>
            withFigures({ [pivot]: row.value }, row),
          );
        }
        return object;
      }),
    );
    return {
      start_date: query.start ? isoTimestamp(query.start) : null,
      end_date: query.end ? isoTimestamp(query.end) : null,
      with_metadata: query.withMetadata,
      with_conversions: query.withConversions,
      with_zeros: query.withZeros,
      ...chainEcho(query),
      filters: await filtersEcho(this.lookups, projects, query),
      group_by: query.groupBy,
      sort_type: query.groupBy ? query.sortType : null,
      sort_order: query.groupBy ? query.sortOrder : null,
      pivot: query.pivot,
      pivot_sort_type: query.pivot ? query.pivotSortType : null,
      pivot_sort_order: query.pivot ? query.pivotSortOrder : null,
      page: query.page,
      per_page: query.perPage,
      offset: query.offset,
      last_offset: query.offset + groups.length,
      total_results: totalResults,
      totals: withFigures({}, totals),
      groups: groupObjects,
    };
  }

  /**
   * What range's or totals' rows are made from: the tool filter's keys (PostgreSQL, only with a
   * tool filter), then the stamp state (StampStates).
   */
  private async rowsContext(
    query: StatsQuery,
    projectIds: string[],
    signal: AbortSignal | undefined,
  ): Promise<RowsContext> {
    return {
      toolKeys: await this.toolKeys(projectIds, query),
      stamped: await this.stampStates.forRequest(query, projectIds, signal),
    };
  }

  /** The keys of the tools whose label is the tool filter (none without one). */
  private async toolKeys(
    projectIds: string[],
    query: Pick<StatsQuery, 'filters'>,
  ): Promise<string[]> {
    const label = query.filters.tool;
    return label === undefined ? [] : this.lookups.toolKeysByLabel(projectIds, label);
  }

  /**
   * Each group's pivots in pivot_sort_type order; with with_zeros, every pivot value of the whole
   * result (not only of this page) in every group. As found without a pivot or groups.
   */
  private async orderedPivots(
    request: RowsRequest,
    found: Aggregate,
    signal: AbortSignal | undefined,
  ): Promise<PivotRow[][]> {
    const { query } = request;
    if (!query.pivot || found.groups.length === 0) return found.pivots;
    const zeroValues = query.withZeros ? await this.repository.pivotValues(request, signal) : null;
    return orderPivots(found.pivots, query, zeroValues);
  }
}
