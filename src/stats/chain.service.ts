import { Injectable } from '@nestjs/common';
import { Errors } from '../common/app-error';
import { isoTimestamp } from '../common/time';
import { LinkLookupsService } from '../links/link-lookups.service';
import { ProjectEntity } from '../projects/project.entity';
import { conversionsObject } from './conversions-object';
import { Figures, readFigures } from './figures';
import { CascadeRequest } from './queries/chain.query';
import { StampStates } from './stamp-states';
import { Row, StatsRepository } from './stats.repository';

/** What chain.json reads of its request (docs/api.md, "Share chains"). */
export interface ChainQuery {
  svcId: string;
  start: Date | null;
  end: Date | null;
  withConversions: boolean;
  withBots: boolean;
  page: number | null;
  perPage: number;
  offset: number;
}

/**
 * stats/{svc_id}/chain.json (docs/api.md, "Share chains"): a link's own figures, its descendants'
 * in all and per generation, and a page of its direct children with their own and downstream
 * figures, so that a client walks the cascade a level at a time. The chain itself (root, depth)
 * is PostgreSQL's; the figures are the analytics store's (StatsRepository).
 */
@Injectable()
export class ChainService {
  constructor(
    private readonly repository: StatsRepository,
    private readonly lookups: LinkLookupsService,
    private readonly stampStates: StampStates,
  ) {}

  async chain(
    project: ProjectEntity,
    query: ChainQuery,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const link = await this.lookups.findProjectLink(project, query.svcId);
    if (!link) throw Errors.notFound(`No link ${query.svcId} in this project`);
    // A link made before chains and not backfilled yet is its own root.
    const rootId = link.rootId ?? link.id;
    const root = rootId === link.id ? link.svcId : await this.lookups.svcIdOf(project.id, rootId);
    const request: CascadeRequest = {
      projectId: project.id,
      linkId: link.id,
      depth: link.depth ?? 0,
      start: query.start,
      end: query.end,
      withConversions: query.withConversions,
      withBots: query.withBots,
    };
    // Retired events (docs/architecture.md, "Retention") are read from their rollups too.
    const retired = await this.stampStates.retired([project.id], signal);
    if (retired) request.retired = true;
    // The figures the store keeps, unless some event of the project lacks a chain stamp.
    const kept = !(await this.stampStates.chains([project.id], signal, retired)).unstamped;
    const [generations, children] = await Promise.all([
      this.repository.cascadeGenerations(request, signal, kept),
      this.repository.cascadeChildren(request, query, signal, kept),
    ]);
    const labels = project.goalLabels;
    const figures = (f: Figures, shares: boolean): Record<string, unknown> => {
      const object: Record<string, unknown> = shares
        ? { shares: f.shares, clicks: f.clicks }
        : { clicks: f.clicks };
      if (query.withConversions)
        object.conversions = conversionsObject({ pageviews: f.pageviews, goals: f.goals }, labels);
      return object;
    };
    const rows = generations.rows.map((row) => ({
      generation: Number(row.generation),
      ...readFigures(row, '', query.withConversions),
    }));
    const own =
      rows.find((row) => row.generation === 0) ?? readFigures(undefined, '', query.withConversions);
    // A generation counts when it holds a share or activity in the window.
    const below = rows.filter((row) => row.generation > 0 && hasActivity(row));
    const downstream = sumFigures(below, query.withConversions);
    return {
      svc_id: link.svcId,
      root,
      depth: link.depth ?? 0,
      start_date: query.start ? isoTimestamp(query.start) : null,
      end_date: query.end ? isoTimestamp(query.end) : null,
      with_conversions: query.withConversions,
      own: figures(own, false),
      downstream: {
        shares: downstream.shares,
        sharers: generations.sharers,
        clicks: downstream.clicks,
        generations: below.length > 0 ? below[below.length - 1].generation : 0,
        ...(query.withConversions ? { conversions: figures(downstream, false).conversions } : {}),
      },
      generations: below.map((row) => ({ generation: row.generation, ...figures(row, true) })),
      page: query.page,
      per_page: query.perPage,
      offset: query.offset,
      total_results: children.length > 0 ? Number(children[0].total_results) : 0,
      children: children.map((row) => this.child(row, figures, query.withConversions)),
    };
  }

  private child(
    row: Row,
    figures: (f: Figures, shares: boolean) => Record<string, unknown>,
    withConversions: boolean,
  ): Record<string, unknown> {
    const downstream = readFigures(row, 'down_', withConversions);
    return {
      svc_id: row.svc_id,
      channel: row.channel ?? null,
      sharer_id: row.sharer_id ?? null,
      user_id: row.user_id ?? null,
      own: figures(readFigures(row, 'own_', withConversions), false),
      downstream: {
        shares: downstream.shares,
        sharers: Number(row.sharers),
        clicks: downstream.clicks,
        generations: Number(row.generations),
        ...(withConversions ? { conversions: figures(downstream, false).conversions } : {}),
      },
    };
  }
}

function hasActivity(f: Figures): boolean {
  return (
    f.shares > 0 ||
    f.clicks > 0 ||
    f.pageviews > 0 ||
    Object.values(f.goals).some((goal) => goal.count > 0 || goal.value !== 0)
  );
}

/** The sums of figures (goals per goal). */
function sumFigures(rows: Figures[], withConversions: boolean): Figures {
  const sum = readFigures(undefined, '', withConversions);
  for (const row of rows) {
    sum.clicks += row.clicks;
    sum.shares += row.shares;
    sum.pageviews += row.pageviews;
    for (const [n, goal] of Object.entries(row.goals)) {
      const into = (sum.goals[Number(n)] ??= { count: 0, value: 0 });
      into.count += goal.count;
      into.value += goal.value;
    }
  }
  return sum;
}
