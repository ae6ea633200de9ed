import { linkListQuery } from '../../../test/factories/link-list-query';
import { LINK_SEARCH_TEXT as INDEXED_TEXT } from '../../database/migrations/1764000000000-links-list';
import {
  LINK_SEARCH_TEXT,
  clickedPageStatement,
  clicksPageStatement,
  clicksStatement,
  createdPageStatement,
  searchCountStatement,
  searchIdsStatement,
  searchPageStatement,
} from './link-list-query';

/** SQL on one line, runs of white space as one space. */
const flat = (sql: string) => sql.replace(/\s+/g, ' ').trim();

const TEXT = LINK_SEARCH_TEXT;

describe('the search (PostgreSQL)', () => {
  it('matches the expression the trigram index holds', () => {
    expect(LINK_SEARCH_TEXT).toBe(INDEXED_TEXT);
  });

  it('looks for a word anywhere, its %, _ and \\ taken as themselves', () => {
    const words = (search: string[]) => searchPageStatement('P', linkListQuery({ search })).params;
    expect(words(['spring'])[1]).toBe('%spring%');
    expect(words(['100%_a\\b'])[1]).toBe('%100\\%\\_a\\\\b%');
  });

  it('a page by creation time: each word ILIKE the text, counted over the links found', () => {
    const { sql, params } = searchPageStatement(
      'P',
      linkListQuery({ search: ['blue', 'Sale'], perPage: 5, offset: 10 }),
    );
    expect(flat(sql)).toBe(
      "WITH found AS MATERIALIZED ( SELECT id, date_trunc('milliseconds', created_at) AS created" +
        ` FROM links WHERE project_id = $1 AND ${TEXT} ILIKE $2 AND ${TEXT} ILIKE $3 )` +
        ' SELECT id::text AS id, count(*) OVER () AS total FROM found' +
        ' ORDER BY created DESC, id DESC LIMIT $4 OFFSET $5',
    );
    expect(params).toEqual(['P', '%blue%', '%Sale%', 5, 10]);
    expect(
      flat(searchPageStatement('P', linkListQuery({ search: ['a'], sortOrder: 'asc' })).sql),
    ).toContain('ORDER BY created ASC, id ASC');
  });

  it('filters as the store does: equality, a tool by key or label, shared_at_* in UTC, multi-value tags', () => {
    const { sql, params } = searchIdsStatement(
      'P',
      linkListQuery({
        search: ['x'],
        filters: {
          channel: 'email',
          tool: 'Mail-Form',
          sharer_id: 'S',
          shared_at_hour_of_day: '9',
          shared_at_day_of_week: '0',
          shared_at_hour_of_week: '33',
          tag_3: 'b',
        },
      }),
      50_001,
    );
    const at = "(coalesce(service_postid_shared_at, created_at) AT TIME ZONE 'UTC')";
    expect(flat(sql)).toBe(
      `SELECT id::text AS id FROM links WHERE project_id = $1 AND ${TEXT} ILIKE $2` +
        ' AND channel = $3' +
        ' AND (tool = $4 OR tool IN (SELECT key FROM tools WHERE project_id = $1 AND label = $4))' +
        ' AND sharer_id::text = $5' +
        ` AND extract(hour FROM ${at})::int = $6` +
        ` AND (extract(isodow FROM ${at})::int - 1) = $7` +
        ` AND ((extract(isodow FROM ${at})::int - 1) * 24 + extract(hour FROM ${at})::int) = $8` +
        ' AND $9 = ANY(tag_3) LIMIT $10',
    );
    expect(params).toEqual(['P', '%x%', 'email', 'Mail-Form', 'S', 9, 0, 33, 'b', 50_001]);
  });

  it('counts the links found', () => {
    const { sql, params } = searchCountStatement('P', linkListQuery({ search: ['x'] }));
    expect(flat(sql)).toBe(
      `SELECT count(*) AS total FROM links WHERE project_id = $1 AND ${TEXT} ILIKE $2`,
    );
    expect(params).toEqual(['P', '%x%']);
  });
});

describe('pages in the analytics store', () => {
  const links = (conditions = '') =>
    `SELECT link_id, created_at FROM svc.links FINAL WHERE project_id = {p0:UUID}${conditions}`;

  it('by creation time, newest first, ties by link id; every link counted before the LIMIT', () => {
    const { sql, params } = createdPageStatement('svc', {
      projectId: 'P',
      query: linkListQuery({ filters: { channel: 'email' }, perPage: 20, offset: 40 }),
      toolKeys: [],
    });
    expect(flat(sql)).toBe(
      `SELECT toString(link_id) AS id FROM (${links(' AND channel = {p1:String}')})` +
        ' ORDER BY created_at DESC, link_id DESC LIMIT {p2:UInt32} OFFSET {p3:UInt64}' +
        ' SETTINGS exact_rows_before_limit = 1',
    );
    expect(params).toEqual({ p0: 'P', p1: 'email', p2: 20, p3: 40 });
  });

  it('by clicks: per-link counts of the projection joined to every filtered link (0 without clicks)', () => {
    const { sql, params } = clicksPageStatement('svc', {
      projectId: 'P',
      query: linkListQuery({ sortType: 'clicks', sortOrder: 'asc', filters: { tag: 'x' } }),
      toolKeys: [],
    });
    expect(flat(sql)).toBe(
      'SELECT toString(l.link_id) AS id, c.clicks AS clicks FROM' +
        ' (SELECT link_id, countIf(is_bot = 0) AS clicks FROM svc.clicks WHERE project_id = {p0:UUID} GROUP BY link_id) AS c' +
        ` RIGHT JOIN (${links(' AND tag = {p1:String}')}) AS l ON c.link_id = l.link_id` +
        ' ORDER BY clicks ASC, l.link_id ASC LIMIT {p2:UInt32} OFFSET {p3:UInt64}' +
        ' SETTINGS exact_rows_before_limit = 1',
    );
    expect(params).toEqual({ p0: 'P', p1: 'x', p2: 10, p3: 0 });
  });

  it('most clicked first without filters: the links with clicks, and the number of links', () => {
    const { sql, params } = clickedPageStatement('svc', {
      projectId: 'P',
      query: linkListQuery({ sortType: 'clicks', perPage: 10, offset: 30 }),
      toolKeys: [],
    });
    expect(flat(sql)).toBe(
      'SELECT toString(link_id) AS id, clicks,' +
        ' (SELECT count() FROM svc.links FINAL WHERE project_id = {p0:UUID}) AS total' +
        ' FROM (SELECT link_id, countIf(is_bot = 0) AS clicks FROM svc.clicks WHERE project_id = {p0:UUID} GROUP BY link_id)' +
        ' WHERE clicks > 0 ORDER BY clicks DESC, link_id DESC LIMIT {p1:UInt32} OFFSET {p2:UInt64}' +
        ' SETTINGS exact_rows_before_limit = 1',
    );
    expect(params).toEqual({ p0: 'P', p1: 10, p2: 30 });
  });

  it("a page's clicks from its links' key ranges, a search's from the projection", () => {
    const few = clicksStatement('svc', 'P', ['7', '12'], true);
    expect(flat(few.sql)).toBe(
      'SELECT toString(link_id) AS id, countIf(is_bot = 0) AS clicks FROM svc.clicks' +
        ' WHERE project_id = {p0:UUID} AND link_id IN {p1:Array(UInt64)} GROUP BY link_id' +
        ' SETTINGS optimize_use_projections = 0',
    );
    expect(few.params).toEqual({ p0: 'P', p1: [7, 12] });
    expect(flat(clicksStatement('svc', 'P', ['7'], false).sql)).not.toContain('SETTINGS');
  });

  it('with retired clicks: the raw ones since the horizon and the rollups before it, per link', () => {
    const horizon =
      '(SELECT mapFromArrays(groupArray(project_id), groupArray(until)) FROM (SELECT project_id, max(retired_until) AS until' +
      ' FROM svc.retired_horizons WHERE project_id IN [{p0:UUID}] GROUP BY project_id))[project_id]';
    const counts = (links: string) =>
      'SELECT link_id, sum(clicks) AS clicks FROM (' +
      ` SELECT link_id, countIf(is_bot = 0) AS clicks FROM svc.clicks WHERE project_id = {p0:UUID}${links}` +
      ` AND toStartOfHour(clicked_at) >= ${horizon} GROUP BY link_id` +
      ' UNION ALL SELECT link_id, sumIf(n, is_bot = 0) AS clicks FROM svc.clicks_retired' +
      ` WHERE project_id = {p0:UUID}${links} AND hour < ${horizon} GROUP BY link_id) GROUP BY link_id`;
    const page = clicksPageStatement('svc', {
      projectId: 'P',
      query: linkListQuery({ sortType: 'clicks', sortOrder: 'asc', filters: { tag: 'x' } }),
      toolKeys: [],
      retired: true,
    });
    expect(flat(page.sql)).toContain(`FROM (${counts('')}) AS c RIGHT JOIN`);
    const clicked = clickedPageStatement('svc', {
      projectId: 'P',
      query: linkListQuery({ sortType: 'clicks' }),
      toolKeys: [],
      retired: true,
    });
    expect(flat(clicked.sql)).toContain(`FROM (${counts('')}) WHERE clicks > 0`);
    const few = clicksStatement('svc', 'P', ['7', '12'], true, true);
    expect(flat(few.sql)).toBe(
      `SELECT toString(link_id) AS id, clicks FROM (${counts(' AND link_id IN {p1:Array(UInt64)}')})` +
        ' SETTINGS optimize_use_projections = 0',
    );
    expect(few.params).toEqual({ p0: 'P', p1: [7, 12] });
    // Without retired clicks, as before.
    expect(clicksStatement('svc', 'P', ['7'], true, false).sql).toBe(
      clicksStatement('svc', 'P', ['7'], true).sql,
    );
  });
});
