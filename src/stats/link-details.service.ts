import { Injectable } from '@nestjs/common';
import { Errors } from '../common/app-error';
import { isoTimestamp } from '../common/time';
import { LinkLookupsService } from '../links/link-lookups.service';
import { ProjectEntity } from '../projects/project.entity';
import { StampStates } from './stamp-states';
import { StatsRepository } from './stats.repository';

export interface DetailsOptions {
  start: Date | null;
  end: Date | null;
  withMetadata: boolean;
  withBots: boolean;
}

/**
 * stats/{svc_id}.json and stats/svc_ids/batch.json (docs/api.md, "Statistics"): each link's clicks
 * and latest click from the analytics store, its record from the links module.
 */
@Injectable()
export class LinkDetailsService {
  constructor(
    private readonly repository: StatsRepository,
    private readonly lookups: LinkLookupsService,
    private readonly stampStates: StampStates,
  ) {}

  /** stats/{svc_id}.json: a link's clicks (in the period, when given) and its latest click. */
  async details(
    project: ProjectEntity,
    svcId: string,
    options: DetailsOptions,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const [details] = (await this.batch(project, [svcId], options, signal)).svc_ids;
    return {
      start_date: options.start ? isoTimestamp(options.start) : null,
      end_date: options.end ? isoTimestamp(options.end) : null,
      with_metadata: options.withMetadata,
      ...details,
    };
  }

  /** stats/svc_ids/batch.json: clicks and latest click of each link, in the order asked. */
  async batch(
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
        // Retired events (docs/architecture.md, "Retention"): their hourly rollups count too.
        ...((await this.stampStates.retired([project.id], signal)) ? { retired: true } : {}),
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
}
