import { Injectable } from '@nestjs/common';
import { Errors } from '../common/app-error';
import { isoTimestamp } from '../common/time';
import { LinkRecord } from '../links/link-record';
import { LinksService } from '../links/links.service';
import { ProjectEntity } from '../projects/project.entity';
import { ConversionCounts, ConversionsObject, addConversion, conversionsObject, emptyCounts } from './conversions-object';
import { Interval, countIntervals, intervalStart, nextInterval } from './stats-params';
import { StatsQuery } from './stats-query';
import { Figures, GroupRow, IntervalConversionRow, IntervalRow, PivotRow } from './stats.repository';
import { StatsRepository } from './stats.repository';

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
  metadata?: LinkRecord;
  conversions?: ConversionsObject;
}

@Injectable()
export class StatsService {
  constructor(
    private readonly repository: StatsRepository,
    private readonly links: LinksService,
  ) {}

  /** SPEC.md 4.6: a link's clicks per hour, day or week. */
  async intervals(project: ProjectEntity, query: IntervalsQuery): Promise<IntervalsResponse> {
    const count = countIntervals(query.start, query.end, query.interval);
    if (count > MAX_INTERVALS) {
      throw Errors.invalid('interval', `the period holds ${count} ${query.interval} intervals; at most ${MAX_INTERVALS}`);
    }
    const linkId = await this.repository.linkId(project.id, query.svcId);
    if (!linkId) throw Errors.notFound(`No link ${query.svcId} in this project`);
    const { rows: activity, last } = await this.repository.linkIntervals(project.id, linkId, query.start, query.end, query.interval, query);
    const rows = query.withZeros ? withZeros(activity, query.start, query.end, query.interval) : activity;
    const response: IntervalsResponse = {
      svc_id: query.svcId,
      start_date: isoTimestamp(query.start),
      end_date: isoTimestamp(query.end),
      interval: query.interval,
      with_zeros: query.withZeros,
      with_metadata: query.withMetadata,
      with_conversions: query.withConversions,
      clicks: rows.reduce((sum, row) => sum + row.clicks, 0),
      last_clicked_at: last ? isoTimestamp(last) : null,
      intervals: [],
    };
    const { byBucket, total } = countByBucket(
      query.withConversions ? await this.repository.linkIntervalConversions(project.id, linkId, query.start, query.end, query.interval) : [],
    );
    if (query.withConversions) response.conversions = conversionsObject(total, project.goalLabels);
    // An interval with conversions and no click is activity too: listed without with_zeros.
    const intervalRows = query.withConversions && !query.withZeros ? mergeBuckets(rows, byBucket.keys()) : rows;
    response.intervals = intervalRows.map((row) => {
      const item: Record<string, unknown> = { [query.interval]: isoTimestamp(row.bucket), clicks: row.clicks };
      if (query.withConversions) {
        item.conversions = conversionsObject(byBucket.get(row.bucket.getTime()) ?? emptyCounts(), project.goalLabels);
      }
      return item;
    });
    if (query.withMetadata) {
      const link = await this.links.findProjectLink(project, query.svcId);
      // Deleted in between: not found, as it would be a moment later.
      if (!link) throw Errors.notFound(`No link ${query.svcId} in this project`);
      [response.metadata] = await this.links.records(project, [link]);
    }
    return response;
  }

  /** stats/{svc_id}.json: a link's clicks (in the period, when given) and its latest click. */
  async linkDetails(project: ProjectEntity, svcId: string, options: DetailsOptions): Promise<Record<string, unknown>> {
    const [details] = (await this.linkBatch(project, [svcId], options)).svc_ids;
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
  ): Promise<{ svc_ids: Record<string, unknown>[] }> {
    const links = [];
    for (const svcId of svcIds) {
      const link = await this.links.findProjectLink(project, svcId);
      if (!link) throw Errors.notFound(`No link ${svcId} in this project`);
      links.push(link);
    }
    const clicks = await this.repository.linkClicks(
      project.id,
      links.map((l) => l.id),
      options.start,
      options.end,
      options.withBots,
    );
    const records = options.withMetadata ? await this.links.records(project, links) : [];
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
  ): Promise<Record<string, unknown>> {
    const count = countIntervals(query.start, query.end, query.interval);
    if (count > MAX_INTERVALS) {
      throw Errors.invalid('interval', `the period holds ${count} ${query.interval} intervals; at most ${MAX_INTERVALS}`);
    }
    const activity = await this.repository.projectIntervals([project.id], query.start, query.end, query.interval, query.filters, query);
    // With conversions, an interval with conversions and no click or share is activity too.
    const { byBucket, total } = countByBucket(
      query.withConversions
        ? await this.repository.projectIntervalConversions([project.id], query.start, query.end, query.interval, query.filters)
        : [],
    );
    const zero = { shares: 0 };
    const rows = query.withZeros
      ? withZeros(activity, query.start, query.end, query.interval, zero)
      : mergeBuckets(activity, byBucket.keys(), zero);
    const totals: Record<string, unknown> = {
      clicks: rows.reduce((sum, r) => sum + r.clicks, 0),
      shares: rows.reduce((sum, r) => sum + r.shares, 0),
      intervals: rows.map((r) => {
        const item: Record<string, unknown> = { [query.interval]: isoTimestamp(r.bucket), clicks: r.clicks, shares: r.shares };
        if (query.withConversions) item.conversions = conversionsObject(byBucket.get(r.bucket.getTime()) ?? emptyCounts(), project.goalLabels);
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
      filters: await this.filtersEcho([project], query),
      totals,
    };
  }

  /** SPEC.md 4.7 and 4.8: totals, one page of groups and their pivots, with the full echo. */
  async aggregate(projects: ProjectEntity[], query: StatsQuery): Promise<Record<string, unknown>> {
    const labels = projects[0].goalLabels;
    const { totals, groups, totalResults, pivots } = await this.repository.aggregate(query, {
      ids: projects.map((p) => p.id),
      keys: projects.map((p) => p.apiKey),
    });
    // A group's or pivot's figures, added to its object (which holds its value first).
    const withFigures = (object: Record<string, unknown>, f: Figures): Record<string, unknown> => {
      object.clicks = f.clicks;
      object.shares = f.shares;
      object.clicks_per_share = f.shares === 0 ? 0 : Math.round((f.clicks / f.shares) * 10_000) / 10_000;
      if (query.withConversions) {
        object.conversions = conversionsObject({ pageviews: f.pageviews, goals: f.goals }, labels);
      }
      return object;
    };
    const groupObjects = await Promise.all(
      groups.map(async (group: GroupRow, i) => {
        const object = withFigures({ [query.groupBy!]: group.value }, group);
        if (query.withMetadata) object.metadata = await this.metadata(projects, query.groupBy!, group.value);
        if (query.pivot) {
          const pivot = query.pivot;
          object.pivots = pivots[i].map((row: PivotRow) => withFigures({ [pivot]: row.value }, row));
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
      filters: await this.filtersEcho(projects, query),
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
   * The filters applied, each with its `<field>_metadata` (an empty array when there are none):
   * null (SPEC.md 2.5), or with with_metadata=true the link, user or campaign it names.
   */
  private async filtersEcho(projects: ProjectEntity[], query: StatsQuery): Promise<Record<string, unknown> | []> {
    const entries = Object.entries(query.filters);
    if (entries.length === 0) return [];
    const echo: Record<string, unknown> = {};
    for (const [name, value] of entries) {
      echo[name] = value;
      echo[`${name}_metadata`] = query.withMetadata ? await this.metadata(projects, name, value) : null;
    }
    return echo;
  }

  /** svc_id: original_url, notes; user_id: username, icon_url, profile_url; campaign: name, description. */
  private async metadata(
    projects: ProjectEntity[],
    field: string,
    value: string | number | null,
  ): Promise<Record<string, string | null> | null> {
    if (value === null || typeof value !== 'string') return null;
    const ids = projects.map((p) => p.id);
    if (field === 'svc_id') return this.repository.linkMetadata(ids, value);
    if (field === 'user_id') return this.repository.userMetadata(ids, value);
    if (field === 'campaign') return this.repository.campaignMetadata(ids, value);
    return null;
  }
}

/**
 * Every interval of [start, end) in order, with the activity rows where there was activity and
 * zeros elsewhere: the first interval is the one `start` falls in (weeks start on Monday, UTC).
 */
function withZeros<T extends { bucket: Date; clicks: number }>(rows: T[], start: Date, end: Date, interval: Interval, zero: Omit<T, 'bucket' | 'clicks'> = {} as Omit<T, 'bucket' | 'clicks'>): T[] {
  const byTime = new Map(rows.map((row) => [row.bucket.getTime(), row]));
  const out: T[] = [];
  for (let bucket = intervalStart(start, interval); bucket.getTime() < end.getTime(); bucket = nextInterval(bucket, interval)) {
    out.push(byTime.get(bucket.getTime()) ?? ({ ...zero, bucket, clicks: 0 } as T));
  }
  return out;
}

/** Conversion rows summed per interval (by its start time) and in all. */
function countByBucket(rows: IntervalConversionRow[]): { byBucket: Map<number, ConversionCounts>; total: ConversionCounts } {
  const byBucket = new Map<number, ConversionCounts>();
  const total = emptyCounts();
  for (const row of rows) {
    const counts = byBucket.get(row.bucket.getTime()) ?? emptyCounts();
    addConversion(counts, row.type, row.count, row.value);
    addConversion(total, row.type, row.count, row.value);
    byBucket.set(row.bucket.getTime(), counts);
  }
  return { byBucket, total };
}

/** The activity rows plus a zero row for every other bucket given, in time order. */
function mergeBuckets<T extends IntervalRow>(rows: T[], buckets: Iterable<number>, zero: Omit<T, 'bucket' | 'clicks'> = {} as Omit<T, 'bucket' | 'clicks'>): T[] {
  const seen = new Set(rows.map((row) => row.bucket.getTime()));
  const extra = [...buckets].filter((time) => !seen.has(time)).map((time) => ({ ...zero, bucket: new Date(time), clicks: 0 }) as T);
  if (extra.length === 0) return rows;
  return [...rows, ...extra].sort((a, b) => a.bucket.getTime() - b.bucket.getTime());
}
