import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { AnalyticsClient } from '../../analytics/analytics-client';
import { Statement } from '../../analytics/statement';
import { LinkListQuery } from './link-list-params';
import {
  PageRequest,
  clickedPageStatement,
  clicksPageStatement,
  clicksStatement,
  createdPageStatement,
  retiredClicksStatement,
  searchCountStatement,
  searchIdsStatement,
  searchPageStatement,
} from './link-list-query';
import { LinkEntity } from '../link.entity';

/** A page of link ids in order, the clicks the order read (when by clicks), and the total. */
export interface LinkListPage {
  ids: string[];
  /** Each listed link's clicks, when the page was ordered by them (else empty). */
  clicks: Map<string, number>;
  /** Every link that passes the filters and the search, over all pages. */
  total: number;
}

type Count = string | number;

/**
 * Runs url/list's statements (link-list-query.ts): the search and the links' rows in PostgreSQL,
 * the pages and the clicks in the analytics store.
 */
@Injectable()
export class LinkListRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(AnalyticsClient) private readonly analytics: AnalyticsClient,
  ) {}

  private get db(): string {
    return this.analytics.database;
  }

  /** The keys of the project's tools labelled `label` (ix_tools_label). */
  async toolKeysByLabel(projectId: string, label: string): Promise<string[]> {
    const rows = await this.dataSource.query<{ key: string }[]>(
      `SELECT key FROM tools WHERE project_id = $1 AND label = $2`,
      [projectId, label],
    );
    return rows.map((row) => row.key);
  }

  /** A page of the links the search finds, by creation time, and how many it finds. */
  async searchPage(projectId: string, query: LinkListQuery): Promise<LinkListPage> {
    const rows = await this.pg<{ id: string; total: Count }>(searchPageStatement(projectId, query));
    const total =
      rows.length > 0
        ? Number(rows[0].total)
        : Number(
            (await this.pg<{ total: Count }>(searchCountStatement(projectId, query)))[0].total,
          );
    return { ids: rows.map((row) => row.id), clicks: new Map(), total };
  }

  /** The links the search finds, at most `limit` of them. */
  async searchIds(projectId: string, query: LinkListQuery, limit: number): Promise<string[]> {
    return (await this.pg<{ id: string }>(searchIdsStatement(projectId, query, limit))).map(
      (r) => r.id,
    );
  }

  /** A page of the project's links that pass the filters, by creation time. */
  async createdPage(request: PageRequest, signal?: AbortSignal): Promise<LinkListPage> {
    const page = await this.page<{ id: string }>(createdPageStatement(this.db, request), signal);
    return { ids: page.rows.map((row) => row.id), clicks: new Map(), total: page.before };
  }

  /**
   * A page of the project's links that pass the filters, by clicks: without filters, most clicked
   * first, from the links with clicks alone when they fill the page (clickedPageStatement).
   */
  async clicksPage(request: PageRequest, signal?: AbortSignal): Promise<LinkListPage> {
    const { query } = request;
    if (await this.retired(request.projectId, signal)) request = { ...request, retired: true };
    if (Object.keys(query.filters).length === 0 && query.sortOrder === 'desc') {
      const clicked = await this.page<{ id: string; clicks: Count; total: Count }>(
        clickedPageStatement(this.db, request),
        signal,
      );
      if (clicked.rows.length === query.perPage) {
        return {
          ids: clicked.rows.map((row) => row.id),
          clicks: new Map(clicked.rows.map((row) => [row.id, Number(row.clicks)])),
          total: Number(clicked.rows[0].total),
        };
      }
    }
    const page = await this.page<{ id: string; clicks: Count }>(
      clicksPageStatement(this.db, request),
      signal,
    );
    return {
      ids: page.rows.map((row) => row.id),
      clicks: new Map(page.rows.map((row) => [row.id, Number(row.clicks)])),
      total: page.before,
    };
  }

  /** The all-time human clicks of the project's links, by id (absent: none); `few`: a page's. */
  async clicks(
    projectId: string,
    linkIds: string[],
    few: boolean,
    signal?: AbortSignal,
  ): Promise<Map<string, number>> {
    if (linkIds.length === 0) return new Map();
    const retired = await this.retired(projectId, signal);
    const rows = await this.rows<{ id: string; clicks: Count }>(
      clicksStatement(this.db, projectId, linkIds, few, retired),
      signal,
    );
    return new Map(rows.map((row) => [row.id, Number(row.clicks)]));
  }

  /**
   * Whether the project has retired clicks (docs/api.md, "Retention"), which the counts then add
   * under the project's horizon: read for each count, a row of `clicks_retired`'s key range.
   */
  private async retired(projectId: string, signal?: AbortSignal): Promise<boolean> {
    return (await this.rows(retiredClicksStatement(this.db, projectId), signal)).length > 0;
  }

  /**
   * The project's links of these ids (pk_links), in no particular order, each id a string as the
   * pg driver gives a bigint (PGlite's gives a number when it fits).
   */
  async links(projectId: string, ids: string[]): Promise<LinkEntity[]> {
    if (ids.length === 0) return [];
    const links = await this.dataSource
      .getRepository(LinkEntity)
      .findBy({ id: In(ids), projectId });
    for (const link of links) link.id = String(link.id);
    return links;
  }

  private pg<T>(statement: Statement<unknown[]>): Promise<T[]> {
    return this.dataSource.query<T[]>(statement.sql, statement.params);
  }

  private page<T>(statement: Statement, signal: AbortSignal | undefined) {
    return this.analytics.queryPage<T>(statement.sql, statement.params, { signal });
  }

  private rows<T>(statement: Statement, signal: AbortSignal | undefined): Promise<T[]> {
    return this.analytics.query<T>(statement.sql, statement.params, { signal });
  }
}
