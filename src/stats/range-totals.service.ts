import { Injectable } from '@nestjs/common';
import { isoTimestamp } from '../common/time';
import { LinkLookupsService } from '../links/link-lookups.service';
import { ProjectEntity } from '../projects/project.entity';
import { chainEcho, chainObject } from './chain-echo';
import { conversionsObject } from './conversions-object';
import { Figures, GroupRow, PivotRow } from './figures';
import { orderPivots } from './pivot-order';
import { RowsRequest } from './queries/range-totals.query';
import { RowsContext } from './queries/row-parts';
import { StampStates } from './stamp-states';
import { filtersEcho, metadataOf } from './stats-echo';
import { usesDimensions } from './stats-fields';
import { StatsQuery } from './stats-query';
import { Aggregate, StatsRepository } from './stats.repository';
import { toolKeys } from './tool-keys';

/**
 * stats/range.json and stats/totals.json (docs/api.md, "Statistics"): totals, one page of groups
 * and their pivots from the analytics store, pivots ordered, with the full echo.
 */
@Injectable()
export class RangeTotalsService {
  constructor(
    private readonly repository: StatsRepository,
    private readonly stampStates: StampStates,
    private readonly lookups: LinkLookupsService,
  ) {}

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
   * tool filter), then whether the projects have retired events, the stamp state and with share
   * chains the chain state (StampStates).
   */
  private async rowsContext(
    query: StatsQuery,
    projectIds: string[],
    signal: AbortSignal | undefined,
  ): Promise<RowsContext> {
    const retired = await this.stampStates.retired(projectIds, signal);
    return {
      toolKeys: await toolKeys(this.lookups, projectIds, query),
      stamped: await this.stampStates.forRequest(query, projectIds, signal, retired),
      chains: await this.stampStates.forChains(query, projectIds, signal, retired),
      ...(retired ? { retired } : {}),
    };
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
