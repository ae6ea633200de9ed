import { Injectable } from '@nestjs/common';
import { isoTimestamp } from '../common/time';
import { LinkLookupsService } from '../links/link-lookups.service';
import { ProjectEntity } from '../projects/project.entity';
import { chainEcho } from './chain-echo';
import { conversionsObject, emptyCounts } from './conversions-object';
import { countByBucket, mergeBuckets, withZeros } from './interval-rows';
import { Interval, checkIntervalCount } from './intervals';
import { filtersEcho } from './stats-echo';
import { usesDimensions } from './stats-fields';
import { StatsQuery } from './stats-query';
import { StampStates } from './stamp-states';
import { StatsRepository } from './stats.repository';
import { toolKeys } from './tool-keys';

/**
 * stats/range/intervals.json (docs/api.md, "Statistics"): a project's clicks, shares (and
 * conversions) per interval, zero intervals filled in, with the echo of its filters.
 */
@Injectable()
export class RangeIntervalsService {
  constructor(
    private readonly repository: StatsRepository,
    private readonly lookups: LinkLookupsService,
    private readonly stampStates: StampStates,
  ) {}

  /** stats/range/intervals.json: a project's clicks and shares per interval. */
  async intervals(
    project: ProjectEntity,
    query: StatsQuery & { start: Date; end: Date; interval: Interval },
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    checkIntervalCount(query.start, query.end, query.interval);
    const request = {
      projectIds: [project.id],
      start: query.start,
      end: query.end,
      interval: query.interval,
      filters: query.filters,
      toolKeys: await toolKeys(this.lookups, [project.id], query),
      attribution: query.attribution,
      ...((await this.stampStates.retired([project.id], signal)) ? { retired: true } : {}),
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
}
