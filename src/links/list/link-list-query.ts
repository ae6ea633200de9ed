import { RAW_CLICKS_READ } from '../../analytics/analytics-schema';
import { rawSinceHorizon, retiredBeforeHorizon } from '../../analytics/retired-horizon';
import { Binder, Statement, andAll, countOf } from '../../analytics/statement';
import { linkFilterConditions } from './link-filter-conditions';
import { LinkFilter, SharedAtField, isMultiTagField, isSharedAtField } from './link-filters';
import { LinkListQuery } from './link-list-params';

/**
 * The statements of url/list.{format} (docs/api.md, "Listing links"), built by pure functions
 * and run by LinkListRepository. Without a search, the analytics store (ClickHouse) filters,
 * orders and counts the project's links over its mirror of their attributes (`links`, latest
 * versions: FINAL), as statistics filter them; with a search, PostgreSQL finds, filters, orders
 * and counts them (its trigram index over the searched text), and the store only counts their
 * clicks. Every value is bound ($n in PostgreSQL, {pN:Type} in ClickHouse); every name comes
 * from a whitelist.
 */

// ---- PostgreSQL: the search ----

/**
 * The text `search` matches, as the index ix_links_search holds it (its migration,
 * 1764000000000-links-list.ts, keeps the same expression): URL, notes, tag and campaign, a space
 * between two (a word holds no space, so it never matches across two of them).
 */
export const LINK_SEARCH_TEXT =
  "(original_url || ' ' || coalesce(notes, '') || ' ' || coalesce(tag, '') || ' ' || coalesce(campaign, ''))";

/** A LIKE pattern that finds `word` anywhere: its `\`, `%` and `_` stand for themselves. */
function containsPattern(word: string): string {
  return `%${word.replace(/[\\%_]/g, '\\$&')}%`;
}

/** A link's shared time in UTC (its post's, else its creation), as the mirror's `shared_at`. */
const PG_SHARED_AT = "(coalesce(service_postid_shared_at, created_at) AT TIME ZONE 'UTC')";

const PG_SHARED_AT_EXPRESSIONS: Record<SharedAtField, string> = {
  shared_at_hour_of_day: `extract(hour FROM ${PG_SHARED_AT})::int`,
  shared_at_day_of_week: `(extract(isodow FROM ${PG_SHARED_AT})::int - 1)`,
  shared_at_hour_of_week: `((extract(isodow FROM ${PG_SHARED_AT})::int - 1) * 24 + extract(hour FROM ${PG_SHARED_AT})::int)`,
};

/**
 * The WHERE clause of a search over `links` in PostgreSQL: the project ($1), each word in the
 * searched text in any case (ILIKE: the trigram index serves each word of three characters or
 * more), and the filters as linkFilterConditions writes them for the store.
 */
function searchWhere(
  projectId: string,
  query: LinkListQuery,
): { where: string; params: unknown[] } {
  const params: unknown[] = [projectId];
  const bind = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const conditions = ['project_id = $1'];
  for (const word of query.search) {
    conditions.push(`${LINK_SEARCH_TEXT} ILIKE ${bind(containsPattern(word))}`);
  }
  for (const [name, value] of Object.entries(query.filters) as [LinkFilter, string][]) {
    if (name === 'tool') {
      const tool = bind(value);
      conditions.push(
        `(tool = ${tool} OR tool IN (SELECT key FROM tools WHERE project_id = $1 AND label = ${tool}))`,
      );
    } else if (isSharedAtField(name)) {
      conditions.push(`${PG_SHARED_AT_EXPRESSIONS[name]} = ${bind(Number(value))}`);
    } else if (isMultiTagField(name)) {
      conditions.push(`${bind(value)} = ANY(${name})`);
    } else if (name === 'sharer_id') {
      conditions.push(`sharer_id::text = ${bind(value)}`);
    } else {
      conditions.push(`${name} = ${bind(value)}`);
    }
  }
  return { where: conditions.join(' AND '), params };
}

/**
 * A page of the links the search finds, by creation time to the millisecond as the mirror holds
 * it (ties by id, in the same direction: the store's order), each row with the number of links
 * found (`total`; no row: count them with searchCountStatement). The links found are gathered
 * first (the index's bitmap), then ordered: walking the creation index instead, as the planner may
 * prefer for a LIMIT, reads the whole project for a rare word.
 */
export function searchPageStatement(projectId: string, query: LinkListQuery): Statement<unknown[]> {
  const { where, params } = searchWhere(projectId, query);
  const direction = query.sortOrder === 'asc' ? 'ASC' : 'DESC';
  params.push(query.perPage, query.offset);
  return {
    sql: `WITH found AS MATERIALIZED (
         SELECT id, date_trunc('milliseconds', created_at) AS created FROM links WHERE ${where}
       )
       SELECT id::text AS id, count(*) OVER () AS total FROM found
       ORDER BY created ${direction}, id ${direction}
       LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  };
}

/** How many links the search finds. Rows: total. */
export function searchCountStatement(
  projectId: string,
  query: LinkListQuery,
): Statement<unknown[]> {
  const { where, params } = searchWhere(projectId, query);
  return { sql: `SELECT count(*) AS total FROM links WHERE ${where}`, params };
}

/**
 * The ids of the links the search finds (for an order by clicks), at most `limit` of them: a
 * caller asks for one more than it takes to learn that there are too many. Rows: id.
 */
export function searchIdsStatement(
  projectId: string,
  query: LinkListQuery,
  limit: number,
): Statement<unknown[]> {
  const { where, params } = searchWhere(projectId, query);
  params.push(limit);
  return { sql: `SELECT id::text AS id FROM links WHERE ${where} LIMIT $${params.length}`, params };
}

// ---- ClickHouse: filters, order and clicks ----

/** What a page is read from in the store: the project, the request, its tool filter's keys. */
export interface PageRequest {
  projectId: string;
  query: LinkListQuery;
  /** The keys of the project's tools labelled as the tool filter's value. */
  toolKeys: string[];
  /**
   * Whether the project has retired clicks (docs/api.md, "Retention": `clicks_retired`), which
   * the counts then add; absent or false: none, and the statements are as without retention.
   */
  retired?: boolean;
}

/** The pieces of a page statement: the project's filtered links, the direction, the LIMIT. */
function pageParts(db: string, request: PageRequest) {
  const { query } = request;
  const binder = new Binder();
  const project = binder.bind(request.projectId, 'UUID');
  const conditions = andAll(linkFilterConditions(query.filters, binder.bind, request.toolKeys));
  return {
    binder,
    project,
    links: `SELECT link_id, created_at FROM ${db}.links FINAL WHERE project_id = ${project}${conditions}`,
    direction: query.sortOrder === 'asc' ? 'ASC' : 'DESC',
    // The rows before the LIMIT count every link of the order (exact: the engine may not stop early).
    limit: `LIMIT ${binder.bind(query.perPage, 'UInt32')} OFFSET ${binder.bind(query.offset, 'UInt64')}
       SETTINGS exact_rows_before_limit = 1`,
  };
}

/**
 * Each link's all-time human clicks, as the stamped_totals projection of `clicks` answers; with
 * retired clicks, those at or after the project's horizon (stamped_hourly then) and the rollups'
 * before it (retired-horizon.ts), summed per link. `links`: ` AND …` narrowing the links.
 */
function linkClicks(db: string, project: string, retired = false, links = ''): string {
  const raw = `SELECT link_id, ${countOf(false)} AS clicks FROM ${db}.clicks WHERE project_id = ${project}${links}`;
  if (!retired) return `${raw} GROUP BY link_id`;
  const projects = `[${project}]`;
  return `SELECT link_id, sum(clicks) AS clicks FROM (
         ${raw} AND ${rawSinceHorizon(db, projects, 'clicked_at')} GROUP BY link_id
         UNION ALL
         SELECT link_id, sumIf(n, is_bot = 0) AS clicks FROM ${db}.clicks_retired
         WHERE project_id = ${project}${links} AND ${retiredBeforeHorizon(db, projects)}
         GROUP BY link_id)
       GROUP BY link_id`;
}

/**
 * Whether the project has retired clicks (rows: one when it has), read before a statement that
 * counts clicks (PageRequest.retired).
 */
export function retiredClicksStatement(db: string, projectId: string): Statement {
  return {
    sql: `SELECT 1 AS retired FROM ${db}.clicks_retired WHERE project_id = {project:UUID} LIMIT 1`,
    params: { project: projectId },
  };
}

/**
 * A page of the project's links that pass the filters, by creation time, ties by link id in the
 * same direction; the rows before the LIMIT are all of them. Rows: id.
 */
export function createdPageStatement(db: string, request: PageRequest): Statement {
  const { binder, links, direction, limit } = pageParts(db, request);
  return {
    sql: `SELECT toString(link_id) AS id FROM (${links})
       ORDER BY created_at ${direction}, link_id ${direction}
       ${limit}`,
    params: binder.params,
  };
}

/**
 * A page of the project's links that pass the filters, by all-time human clicks (a link without
 * clicks counts 0), ties by link id in the same direction; the rows before the LIMIT are all of
 * them. The clicks are counted per link over the projection and joined to the filtered links,
 * which the engine builds first and filters the clicks with (a runtime filter of the join): a
 * filter that keeps few links makes few counts. Rows: id, clicks.
 */
export function clicksPageStatement(db: string, request: PageRequest): Statement {
  const { binder, project, links, direction, limit } = pageParts(db, request);
  return {
    sql: `SELECT toString(l.link_id) AS id, c.clicks AS clicks
       FROM (${linkClicks(db, project, request.retired)}) AS c
       RIGHT JOIN (${links}) AS l ON c.link_id = l.link_id
       ORDER BY clicks ${direction}, l.link_id ${direction}
       ${limit}`,
    params: binder.params,
  };
}

/**
 * Without filters, most clicked first: a page of the project's links that have clicks, with the
 * number of the project's links (`total`, on every row), the rows before the LIMIT being those
 * with clicks. When the page is full it is clicksPageStatement's page, without joining the links
 * (half the time on a large project); otherwise that statement answers. Rows: id, clicks, total.
 */
export function clickedPageStatement(db: string, request: PageRequest): Statement {
  const { binder, project, limit } = pageParts(db, {
    ...request,
    query: { ...request.query, filters: {} },
  });
  return {
    sql: `SELECT toString(link_id) AS id, clicks,
              (SELECT count() FROM ${db}.links FINAL WHERE project_id = ${project}) AS total
       FROM (${linkClicks(db, project, request.retired)})
       WHERE clicks > 0
       ORDER BY clicks DESC, link_id DESC
       ${limit}`,
    params: binder.params,
  };
}

/**
 * The all-time human clicks of some of the project's links. Rows: id, clicks (links with clicks
 * only). A page's links (`few`) are read from their key ranges of `clicks` (RAW_CLICKS_READ); the
 * many links of a search from the projection.
 */
export function clicksStatement(
  db: string,
  projectId: string,
  linkIds: string[],
  few: boolean,
  retired = false,
): Statement {
  const binder = new Binder();
  if (retired) {
    const project = binder.bind(projectId, 'UUID');
    const links = ` AND link_id IN ${binder.bind(linkIds.map(Number), 'Array(UInt64)')}`;
    return {
      sql: `SELECT toString(link_id) AS id, clicks FROM (${linkClicks(db, project, true, links)})${few ? `\n       ${RAW_CLICKS_READ}` : ''}`,
      params: binder.params,
    };
  }
  return {
    sql: `SELECT toString(link_id) AS id, ${countOf(false)} AS clicks FROM ${db}.clicks
       WHERE project_id = ${binder.bind(projectId, 'UUID')} AND link_id IN ${binder.bind(linkIds.map(Number), 'Array(UInt64)')}
       GROUP BY link_id${few ? `\n       ${RAW_CLICKS_READ}` : ''}`,
    params: binder.params,
  };
}
