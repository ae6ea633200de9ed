import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/app-error';
import { ProjectEntity } from '../../projects/project.entity';
import { LinkListQuery } from './link-list-params';
import { LinkListPage, LinkListRepository } from './link-list.repository';
import { LinkMetadataService } from '../link-metadata.service';
import { LinkRecord } from '../link-record';

/**
 * The most links a search may find to be ordered by their clicks (docs/api.md, "Listing links"):
 * their ids go to the analytics store and are ordered here, in proportion to their number (about
 * 0.15 s for 18,000 at 1M links); past it, a 400 names `search`.
 */
const SEARCH_BY_CLICKS_MAX = 50_000;

/** A listed link: its record and its all-time human clicks. */
export type LinkListItem = LinkRecord & { clicks: number };

/** url/list.{format}'s answer (docs/api.md, "Listing links"). */
export interface LinkListAnswer {
  links: LinkListItem[];
  total_results: number;
  page: number | null;
  per_page: number;
  offset: number;
  last_offset: number;
}

/**
 * Lists a project's links (docs/api.md, "Listing links"; link-list-query.ts tells where each
 * part is answered): without a search the analytics store filters the project's links over its
 * mirror of their attributes (as statistics filter), orders them by creation or by clicks and
 * counts them; a search is answered by PostgreSQL (its trigram index over URL, notes, tag and
 * campaign), which filters and orders what it finds, or hands every link found to an order by
 * their clicks in the store. The page's records are then read from PostgreSQL by id, their clicks
 * from the store.
 */
@Injectable()
export class LinkListService {
  constructor(
    private readonly repository: LinkListRepository,
    private readonly metadata: LinkMetadataService,
  ) {}

  async list(
    project: ProjectEntity,
    query: LinkListQuery,
    signal?: AbortSignal,
  ): Promise<LinkListAnswer> {
    const found = await this.find(project, query, signal);
    const [clicks, links] = await Promise.all([
      query.sortType === 'clicks'
        ? Promise.resolve(found.clicks)
        : this.repository.clicks(project.id, found.ids, true, signal),
      this.repository.links(project.id, found.ids),
    ]);
    // In the order found; a link the store lists but PostgreSQL lacks (none: links are deleted
    // only with their project) would be left out.
    const byId = new Map(links.map((link) => [link.id, link]));
    const ordered = found.ids.flatMap((id) => byId.get(id) ?? []);
    const records = await this.metadata.records(project, ordered);
    return {
      links: records.map((record, i) => ({ ...record, clicks: clicks.get(ordered[i].id) ?? 0 })),
      total_results: found.total,
      page: query.page,
      per_page: query.perPage,
      offset: query.offset,
      last_offset: query.offset + records.length,
    };
  }

  private async find(
    project: ProjectEntity,
    query: LinkListQuery,
    signal: AbortSignal | undefined,
  ): Promise<LinkListPage> {
    if (query.search.length > 0) {
      return query.sortType === 'clicks'
        ? this.searchByClicks(project, query, signal)
        : this.repository.searchPage(project.id, query);
    }
    const request = {
      projectId: project.id,
      query,
      toolKeys:
        query.filters.tool === undefined
          ? []
          : await this.repository.toolKeysByLabel(project.id, query.filters.tool),
    };
    return query.sortType === 'clicks'
      ? this.repository.clicksPage(request, signal)
      : this.repository.createdPage(request, signal);
  }

  /**
   * Every link the search finds, ordered by its clicks (ties by id, in the same direction); at
   * most SEARCH_BY_CLICKS_MAX of them.
   */
  private async searchByClicks(
    project: ProjectEntity,
    query: LinkListQuery,
    signal: AbortSignal | undefined,
  ): Promise<LinkListPage> {
    const ids = await this.repository.searchIds(project.id, query, SEARCH_BY_CLICKS_MAX + 1);
    if (ids.length > SEARCH_BY_CLICKS_MAX) {
      throw Errors.invalid(
        'search',
        `finds more than ${SEARCH_BY_CLICKS_MAX} links, too many to sort by clicks: add words or filters, or sort by created_at`,
      );
    }
    const clicks = await this.repository.clicks(project.id, ids, false, signal);
    const sign = query.sortOrder === 'asc' ? 1 : -1;
    const ordered = ids
      .map((id) => ({ id, clicks: clicks.get(id) ?? 0 }))
      .sort((a, b) => sign * (a.clicks - b.clicks || compareIds(a.id, b.id)));
    const page = ordered.slice(query.offset, query.offset + query.perPage);
    return {
      ids: page.map((link) => link.id),
      clicks: new Map(page.map((link) => [link.id, link.clicks])),
      total: ids.length,
    };
  }
}

/** Two link ids (decimal bigints) in numeric order. */
function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
