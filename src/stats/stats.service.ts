import { Injectable } from '@nestjs/common';
import { Errors } from '../common/app-error';
import { isoTimestamp } from '../common/time';
import { LinkRecord } from '../links/link-record';
import { LinksService } from '../links/links.service';
import { ProjectEntity } from '../projects/project.entity';
import { ConversionCounts, ConversionsObject, addConversion, conversionsObject, emptyCounts } from './conversions-object';
import { Interval, countIntervals } from './stats-params';
import { StatsRepository } from './stats.repository';

export const MAX_INTERVALS = 500;

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
    const link = await this.links.findProjectLink(project, query.svcId);
    if (!link) throw Errors.notFound(`No link ${query.svcId} in this project`);
    const rows = await this.repository.linkIntervals(link.id, query.start, query.end, query.interval, query);
    const response: IntervalsResponse = {
      svc_id: link.svcId,
      start_date: isoTimestamp(query.start),
      end_date: isoTimestamp(query.end),
      interval: query.interval,
      with_zeros: query.withZeros,
      with_metadata: query.withMetadata,
      with_conversions: query.withConversions,
      clicks: rows.reduce((sum, row) => sum + row.clicks, 0),
      last_clicked_at: null,
      intervals: [],
    };
    const last = await this.repository.lastClickedAt(link.id, query.withBots);
    response.last_clicked_at = last ? isoTimestamp(last) : null;
    let byBucket = new Map<number, ConversionCounts>();
    if (query.withConversions) {
      const total = emptyCounts();
      for (const row of await this.repository.linkIntervalConversions(link.id, query.start, query.end, query.interval)) {
        const counts = byBucket.get(row.bucket.getTime()) ?? emptyCounts();
        addConversion(counts, row.type, row.count, row.value);
        addConversion(total, row.type, row.count, row.value);
        byBucket.set(row.bucket.getTime(), counts);
      }
      response.conversions = conversionsObject(total, project.goalLabels);
    } else {
      byBucket = new Map();
    }
    response.intervals = rows.map((row) => {
      const item: Record<string, unknown> = { [query.interval]: isoTimestamp(row.bucket), clicks: row.clicks };
      if (query.withConversions) {
        item.conversions = conversionsObject(byBucket.get(row.bucket.getTime()) ?? emptyCounts(), project.goalLabels);
      }
      return item;
    });
    if (query.withMetadata) [response.metadata] = await this.links.records(project, [link]);
    return response;
  }
}
