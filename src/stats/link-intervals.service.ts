import { Injectable } from '@nestjs/common';
import { Errors } from '../common/app-error';
import { isoTimestamp } from '../common/time';
import { LinkLookupsService } from '../links/link-lookups.service';
import { LinkRecord } from '../links/link-record';
import { ProjectEntity } from '../projects/project.entity';
import { chainEcho } from './chain-echo';
import { ConversionsObject, conversionsObject, emptyCounts } from './conversions-object';
import { countByBucket, mergeBuckets, withZeros } from './interval-rows';
import { Interval, checkIntervalCount } from './intervals';
import { Attribution, ChainParam, StatsQuery } from './stats-query';
import { StampStates } from './stamp-states';
import { StatsRepository } from './stats.repository';

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
 * stats/{svc_id}/intervals.json (docs/api.md, "Statistics"): a link's clicks (and conversions) per
 * interval from the analytics store, zero intervals filled in, its record from the links module.
 */
@Injectable()
export class LinkIntervalsService {
  constructor(
    private readonly repository: StatsRepository,
    private readonly lookups: LinkLookupsService,
    private readonly stampStates: StampStates,
  ) {}

  /** stats/{svc_id}/intervals.json: a link's clicks per hour, day or week. */
  async intervals(
    project: ProjectEntity,
    query: IntervalsQuery,
    signal?: AbortSignal,
  ): Promise<IntervalsResponse> {
    checkIntervalCount(query.start, query.end, query.interval);
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
      // Retired events (docs/architecture.md, "Retention"): their hourly rollups count too.
      ...((await this.stampStates.retired([project.id], signal)) ? { retired: true } : {}),
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
}
