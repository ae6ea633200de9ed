import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GOALS } from './conversions-object';
import { SHARED_AT, filterConditions, groupExpression, isMultiTagField } from './stats-fields';
import { Interval } from './stats-params';
import { StatsQuery } from './stats-query';

/** Figures of a total, group or pivot: clicks, shares and, with conversions, counts and values. */
export interface Figures {
  clicks: number;
  shares: number;
  pageviews: number;
  goals: Record<number, { count: number; value: number }>;
}

export interface GroupRow extends Figures {
  value: string | number | null;
}

export interface PivotRow extends GroupRow {
  group: string | number | null;
}

const FAR_PAST = new Date('1970-01-01T00:00:00Z');
const FAR_FUTURE = new Date('9999-12-31T00:00:00Z');

export interface IntervalRow {
  bucket: Date;
  clicks: number;
}

export interface IntervalConversionRow {
  bucket: Date;
  type: string;
  count: number;
  value: number;
}

/** Stats queries: they read the hourly rollups (and their per-link sums), never raw clicks. */
@Injectable()
export class StatsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The project's link by svc_id (uq_links_svc_id), its clicks per interval in [start, end) and its
   * latest click (bots left out unless asked), in one statement and one round trip
   * (pk_link_clicks_hourly: link_id, hour); null when the project has no such link. With zeros,
   * every interval of the period appears (generate_series).
   */
  async linkIntervals(
    projectId: string,
    svcId: string,
    start: Date,
    end: Date,
    interval: Interval,
    options: { withZeros: boolean; withBots: boolean },
  ): Promise<{ linkId: string; rows: IntervalRow[]; last: Date | null } | null> {
    const clicks = options.withBots ? 'h.clicks + h.bot_clicks' : 'h.clicks';
    const activity = `
      SELECT date_trunc($4, h.hour, 'UTC') AS bucket, SUM(${clicks})::int AS clicks
      FROM link_clicks_hourly h
      WHERE h.link_id = (SELECT id FROM k) AND h.hour >= $2 AND h.hour < $3
      GROUP BY 1`;
    const intervals = options.withZeros
      ? `WITH a AS (${activity})
         SELECT s.bucket, COALESCE(a.clicks, 0)::int AS clicks
         FROM generate_series(date_trunc($4, $2::timestamptz, 'UTC'), $3::timestamptz - interval '1 microsecond', ('1 ' || $4)::interval) AS s(bucket)
         LEFT JOIN a ON a.bucket = s.bucket`
      : activity;
    // Part 0 is one row with the link's id (null: no such link) and latest click; part 1 the
    // intervals in order (none without the link).
    const rows: { part: number; link_id: string | null; bucket: Date | string | null; clicks: number | null; last: Date | string | null }[] =
      await this.dataSource.query(
        `WITH k AS (SELECT id FROM links WHERE svc_id = $1 AND project_id = $5)
         SELECT 0 AS part, (SELECT id FROM k)::text AS link_id, NULL::timestamptz AS bucket, NULL::int AS clicks,
                (SELECT MAX(x.last_clicked_at) FROM link_clicks_hourly x
                 WHERE x.link_id = (SELECT id FROM k) ${options.withBots ? '' : 'AND x.clicks > 0'}) AS last
         UNION ALL
         SELECT 1, NULL, i.bucket, i.clicks, NULL FROM (${intervals}) i WHERE EXISTS (SELECT 1 FROM k)
         ORDER BY part, bucket`,
        [svcId, start, end, interval, projectId],
      );
    const [first, ...intervalRows] = rows;
    if (!first?.link_id) return null;
    return {
      linkId: first.link_id,
      last: first.last ? new Date(first.last) : null,
      rows: intervalRows.map((r) => ({ bucket: new Date(r.bucket as Date | string), clicks: r.clicks ?? 0 })),
    };
  }

  /** Conversions of one link per interval and type in [start, end) (pk_link_conversions_hourly). */
  async linkIntervalConversions(linkId: string, start: Date, end: Date, interval: Interval): Promise<IntervalConversionRow[]> {
    const rows: { bucket: Date | string; type: string; count: number; value: string | number }[] = await this.dataSource.query(
      `SELECT date_trunc($4, c.hour, 'UTC') AS bucket, c.type, SUM(c.count)::int AS count, SUM(c.value)::bigint AS value
       FROM link_conversions_hourly c
       WHERE c.link_id = $1 AND c.hour >= $2 AND c.hour < $3
       GROUP BY 1, 2`,
      [linkId, start, end, interval],
    );
    return rows.map((r) => ({ bucket: new Date(r.bucket), type: r.type, count: r.count, value: Number(r.value) }));
  }

  /**
   * Clicks in [start, end) and the latest click of each link (pk_link_clicks_hourly), for link
   * details and the batch of link details.
   */
  async linkClicks(
    linkIds: string[],
    start: Date | null,
    end: Date | null,
    withBots: boolean,
  ): Promise<Map<string, { clicks: number; last: Date | null }>> {
    const clicks = withBots ? 'h.clicks + h.bot_clicks' : 'h.clicks';
    const rows = await this.dataSource.query<{ link_id: string; clicks: number; last: Date | string | null }[]>(
      `SELECT h.link_id::text AS link_id,
              COALESCE(SUM(${clicks}) FILTER (WHERE h.hour >= $2 AND h.hour < $3), 0)::int AS clicks,
              MAX(h.last_clicked_at) FILTER (WHERE ${withBots ? 'true' : 'h.clicks > 0'}) AS last
       FROM link_clicks_hourly h WHERE h.link_id = ANY($1::bigint[]) GROUP BY h.link_id`,
      [linkIds, start ?? FAR_PAST, end ?? FAR_FUTURE],
    );
    return new Map(rows.map((r) => [r.link_id, { clicks: r.clicks, last: r.last ? new Date(r.last) : null }]));
  }

  /**
   * A project's clicks and shares per interval (range/intervals): clicks by the hour of the click
   * (ix_link_clicks_hourly_project_hour), shares by the time the link was shared
   * (ix_links_project_shared_at); filters as on range.
   */
  async projectIntervals(
    projectIds: string[],
    start: Date,
    end: Date,
    interval: Interval,
    filters: StatsQuery['filters'],
    options: { withZeros: boolean; withBots: boolean },
  ): Promise<{ bucket: Date; clicks: number; shares: number }[]> {
    const params: unknown[] = [projectIds, start, end, interval];
    const bind = (value: unknown): string => {
      params.push(value);
      return `$${params.length}`;
    };
    const conditions = filterConditions(filters, bind);
    const where = conditions.length > 0 ? `AND ${conditions.join(' AND ')}` : '';
    const clicks = options.withBots ? 'h.clicks + h.bot_clicks' : 'h.clicks';
    const buckets = options.withZeros
      ? `SELECT s.bucket FROM generate_series(date_trunc($4, $2::timestamptz, 'UTC'), $3::timestamptz - interval '1 microsecond', ('1 ' || $4)::interval) AS s(bucket)`
      : `SELECT bucket FROM c UNION SELECT bucket FROM s`;
    const rows = await this.dataSource.query<{ bucket: Date | string; clicks: number; shares: number }[]>(
      `WITH c AS (
         SELECT date_trunc($4, h.hour, 'UTC') AS bucket, SUM(${clicks})::int AS clicks
         FROM link_clicks_hourly h JOIN links l ON l.id = h.link_id
         WHERE h.project_id = ANY($1::uuid[]) AND h.hour >= $2 AND h.hour < $3 ${where}
         GROUP BY 1),
       s AS (
         SELECT date_trunc($4, ${SHARED_AT}, 'UTC') AS bucket, COUNT(*)::int AS shares
         FROM links l
         WHERE l.project_id = ANY($1::uuid[]) AND ${SHARED_AT} >= $2 AND ${SHARED_AT} < $3 ${where}
         GROUP BY 1),
       b AS (${buckets})
       SELECT b.bucket, COALESCE(c.clicks, 0)::int AS clicks, COALESCE(s.shares, 0)::int AS shares
       FROM b LEFT JOIN c ON c.bucket = b.bucket LEFT JOIN s ON s.bucket = b.bucket
       ORDER BY b.bucket`,
      params,
    );
    return rows.map((r) => ({ bucket: new Date(r.bucket), clicks: r.clicks, shares: r.shares }));
  }

  /**
   * Range and totals: the matching rows with their figures (a CTE), then the totals, one page of
   * groups and their pivots. Range counts clicks in the period on every link of the project(s) and
   * shares made in it (rows: the period's rollup rows, via ix_link_clicks_hourly_project_hour, and
   * the links shared in it, via ix_links_project_shared_at); totals takes the links shared in the
   * period with their all-time figures (link_click_totals and link_conversion_totals, the rollups
   * summed per link, kept by triggers on the rollups).
   */
  async aggregate(
    query: StatsQuery,
    projectIds: string[],
  ): Promise<{ totals: Figures; groups: GroupRow[]; totalResults: number; pivots: PivotRow[] }> {
    const params: unknown[] = [];
    const rows = this.rowsSql(query, projectIds, params);
    const figures = this.figuresSql(query.withConversions);
    if (!query.groupBy) {
      const [totals] = await this.dataSource.query<Record<string, unknown>[]>(`WITH ${rows} SELECT ${figures} FROM rows`, params);
      return { totals: readFigures(totals), groups: [], totalResults: 0, pivots: [] };
    }
    // One statement: the matching rows are read once and summed per (group, pivot) value (gp,
    // materialized: a few thousand rows at most); totals, the page of groups and its pivots are
    // sums over gp. Every figure is a sum or a count, so summing the sums gives the same numbers.
    const columns = figureColumns(query.withConversions);
    const resum = columns.map((c) => `COALESCE(SUM(${c}), 0)::${c === 'shares' ? 'int' : 'bigint'} AS ${c}`).join(', ');
    const list = columns.join(', ');
    params.push(query.perPage, query.offset);
    // with_zeros: every pivot value of the whole result (not only of this page) in every group,
    // sorted with the others so the tie rule (value ascending) holds for zero rows too.
    const zeroFill = query.withZeros
      ? `, filled AS (
           SELECT k.g, v.p, ${columns.map((c) => `COALESCE(pg.${c}, 0) AS ${c}`).join(', ')}, pg.last_shared
           FROM (SELECT DISTINCT g FROM pg) k CROSS JOIN (SELECT DISTINCT p FROM gp) v
           LEFT JOIN pg ON pg.g IS NOT DISTINCT FROM k.g AND pg.p IS NOT DISTINCT FROM v.p)`
      : '';
    const pivots = query.pivot
      ? `, pg AS (SELECT gp.* FROM gp WHERE EXISTS (SELECT 1 FROM page WHERE page.g IS NOT DISTINCT FROM gp.g))${zeroFill}`
      : '';
    // Pivot rows first: their g and p columns give the UNION its types (NULL in the others).
    const pivotRows = query.pivot
      ? `SELECT 'p' AS kind, g, p, ${list}, NULL::int AS total_results,
           row_number() OVER (ORDER BY g ASC NULLS LAST, ${sortExpression(query.pivotSortType, 'p')} ${query.pivotSortOrder} NULLS LAST, p ASC NULLS LAST) AS ord
         FROM ${query.withZeros ? 'filled' : 'pg'}
         UNION ALL `
      : '';
    // A multi-value tag group or pivot counts a link under each of its values (under null when it
    // has none). Each level then sums rows that hold a link once: groups are not summed over a
    // multi-value pivot's rows, nor totals over a multi-value group's.
    const multiGroup = isMultiTagField(query.groupBy);
    const multiPivot = query.pivot !== null && isMultiTagField(query.pivot);
    const expanded = (group: boolean, pivot: boolean): string =>
      !group && !pivot
        ? 'rows'
        : `(SELECT ${columns.map((c) => (c === 'shares' ? 'r.shared' : `r.${c}`)).join(', ')}, r.shared_at,
             ${group ? 'gx.v' : 'r.g'} AS g, ${pivot ? 'px.v' : 'r.p'} AS p
           FROM rows r
           ${group ? 'CROSS JOIN LATERAL unnest(CASE WHEN cardinality(r.g) > 0 THEN r.g ELSE ARRAY[NULL::text] END) AS gx(v)' : ''}
           ${pivot ? 'CROSS JOIN LATERAL unnest(CASE WHEN cardinality(r.p) > 0 THEN r.p ELSE ARRAY[NULL::text] END) AS px(v)' : ''}) s`;
    const groups = multiPivot
      ? `SELECT g, ${figures}, MAX(shared_at) AS last_shared FROM ${expanded(multiGroup, false)} GROUP BY g`
      : `SELECT g, ${resum}, MAX(last_shared) AS last_shared FROM gp GROUP BY g`;
    const totalsRow =
      multiGroup || multiPivot
        ? `SELECT 't' AS kind, NULL, NULL, ${figures}, (SELECT COUNT(*) FROM grp)::int, 0 FROM rows`
        : `SELECT 't' AS kind, NULL, NULL, ${resum}, (SELECT COUNT(*) FROM grp)::int, 0 FROM gp`;
    const out = await this.dataSource.query<Record<string, unknown>[]>(
      `WITH ${rows},
       gp AS MATERIALIZED (SELECT g, p, ${figures}, MAX(shared_at) AS last_shared FROM ${expanded(multiGroup, multiPivot)} GROUP BY g, p),
       grp AS (${groups}),
       page AS (
         SELECT grp.*, row_number() OVER (ORDER BY ${sortExpression(query.sortType, 'g')} ${query.sortOrder} NULLS LAST, g ASC NULLS LAST) AS ord
         FROM grp ORDER BY ord LIMIT $${params.length - 1} OFFSET $${params.length})${pivots}
       ${pivotRows}SELECT 'g' AS kind, g, NULL AS p, ${list}, NULL::int AS total_results, ord FROM page
       UNION ALL ${totalsRow}
       ORDER BY kind, ord`,
      params,
    );
    const totals = out.find((row) => row.kind === 't');
    return {
      totals: readFigures(totals),
      totalResults: Number(totals?.total_results ?? 0),
      groups: out.filter((row) => row.kind === 'g').map((row) => ({ value: row.g as string | number | null, ...readFigures(row) })),
      pivots: out
        .filter((row) => row.kind === 'p')
        .map((row) => ({ group: row.g as string | number | null, value: row.p as string | number | null, ...readFigures(row) })),
    };
  }

  async linkMetadata(projectIds: string[], svcId: string): Promise<Record<string, string | null> | null> {
    const [row] = await this.dataSource.query<{ original_url: string; notes: string | null }[]>(
      `SELECT original_url, notes FROM links WHERE svc_id = $1 AND project_id = ANY($2::uuid[])`,
      [svcId, projectIds],
    );
    return row ? { original_url: row.original_url, notes: row.notes } : null;
  }

  async userMetadata(projectIds: string[], userId: string): Promise<Record<string, string | null> | null> {
    const [row] = await this.dataSource.query<{ username: string | null; icon_url: string | null; profile_url: string | null }[]>(
      `SELECT username, icon_url, profile_url FROM user_identities WHERE user_id = $1 AND project_id = ANY($2::uuid[])
       ORDER BY updated_at DESC LIMIT 1`,
      [userId, projectIds],
    );
    return row ? { username: row.username, icon_url: row.icon_url, profile_url: row.profile_url } : null;
  }

  async campaignMetadata(projectIds: string[], stub: string): Promise<Record<string, string | null> | null> {
    const [row] = await this.dataSource.query<{ name: string | null; description: string | null }[]>(
      `SELECT name, description FROM campaigns WHERE stub = $1 AND project_id = ANY($2::uuid[]) ORDER BY created_at LIMIT 1`,
      [stub, projectIds],
    );
    return row ? { name: row.name, description: row.description } : null;
  }

  /**
   * The `rows` CTE: rows of figures with the group and pivot values (g, p) and the shared time of
   * their link; `shared` marks the one row per link that counts it as a share.
   */
  private rowsSql(query: StatsQuery, projectIds: string[], params: unknown[]): string {
    const bind = (value: unknown): string => {
      params.push(value);
      return `$${params.length}`;
    };
    const projects = `${bind(projectIds)}::uuid[]`;
    const start = `${bind(query.start ?? FAR_PAST)}::timestamptz`;
    const end = `${bind(query.end ?? FAR_FUTURE)}::timestamptz`;
    const conditions = filterConditions(query.filters, bind);
    const where = conditions.length > 0 ? `AND ${conditions.join(' AND ')}` : '';
    const group = query.groupBy ? groupExpression(query.groupBy) : 'NULL';
    const pivot = query.pivot ? groupExpression(query.pivot) : 'NULL';
    const clicks = query.withBots ? 'h.clicks + h.bot_clicks' : 'h.clicks';
    const inPeriod = `${SHARED_AT} >= ${start} AND ${SHARED_AT} < ${end}`;
    const linkValues = `${group} AS g, ${pivot} AS p, ${SHARED_AT} AS shared_at`;
    if (query.kind === 'range') {
      // One row per rollup row of the period (clicks; conversions, a column per type) and one per
      // link shared in it, all joined to their link: every figure is a sum or a count, so the
      // groups need no per-link step in between, and PostgreSQL joins and sums the parts in
      // parallel. A group holds the links with activity in the period or shared in it.
      const noConversions = query.withConversions ? `, 0 AS pageviews, ${GOALS.map((n) => `0 AS g${n}c, 0 AS g${n}v`).join(', ')}` : '';
      const ofType = (type: string, column: 'count' | 'value'): string => `CASE WHEN c.type = '${type}' THEN c.${column} ELSE 0 END`;
      const conversions = query.withConversions
        ? `UNION ALL
          SELECT ${linkValues}, 0, false, ${ofType('pageview', 'count')},
                 ${GOALS.map((n) => `${ofType(`goal_${n}`, 'count')}, ${ofType(`goal_${n}`, 'value')}`).join(', ')}
          FROM link_conversions_hourly c JOIN links l ON l.id = c.link_id
          WHERE c.project_id = ANY(${projects}) AND c.hour >= ${start} AND c.hour < ${end} AND l.project_id = ANY(${projects}) ${where}`
        : '';
      return `rows AS (
          SELECT ${linkValues}, ${clicks} AS clicks, false AS shared${noConversions}
          FROM link_clicks_hourly h JOIN links l ON l.id = h.link_id
          WHERE h.project_id = ANY(${projects}) AND h.hour >= ${start} AND h.hour < ${end} AND l.project_id = ANY(${projects}) ${where}
          UNION ALL
          SELECT ${linkValues}, 0, true${noConversions}
          FROM links l WHERE l.project_id = ANY(${projects}) AND ${inPeriod} ${where}
          ${conversions})`;
    }
    // Totals: all-time figures, one pass over the links shared in the period with the per-link
    // sums of their rollups (link_click_totals; link_conversion_totals, a column per type).
    const conversions = query.withConversions
      ? `, COALESCE(v.pageviews, 0) AS pageviews, ${GOALS.map((n) => `COALESCE(v.goal_${n}_count, 0) AS g${n}c, COALESCE(v.goal_${n}_value, 0) AS g${n}v`).join(', ')}`
      : '';
    return `rows AS (
        SELECT ${linkValues}, COALESCE(${clicks}, 0) AS clicks, true AS shared${conversions}
        FROM links l
        LEFT JOIN link_click_totals h ON h.link_id = l.id
        ${query.withConversions ? 'LEFT JOIN link_conversion_totals v ON v.link_id = l.id' : ''}
        WHERE l.project_id = ANY(${projects}) AND ${inPeriod} ${where})`;
  }

  private figuresSql(withConversions: boolean): string {
    const base = 'COALESCE(SUM(clicks), 0)::bigint AS clicks, (COUNT(*) FILTER (WHERE shared))::int AS shares';
    if (!withConversions) return base;
    return `${base}, COALESCE(SUM(pageviews), 0)::bigint AS pageviews, ${GOALS.map(
      (n) => `COALESCE(SUM(g${n}c), 0)::bigint AS g${n}c, COALESCE(SUM(g${n}v), 0)::bigint AS g${n}v`,
    ).join(', ')}`;
  }
}

/** The columns figuresSql yields. */
function figureColumns(withConversions: boolean): string[] {
  return ['clicks', 'shares', ...(withConversions ? ['pageviews', ...GOALS.flatMap((n) => [`g${n}c`, `g${n}v`])] : [])];
}

function readFigures(row: Record<string, unknown> | undefined): Figures {
  const figures: Figures = { clicks: Number(row?.clicks ?? 0), shares: Number(row?.shares ?? 0), pageviews: Number(row?.pageviews ?? 0), goals: {} };
  for (const n of GOALS) {
    if (row && `g${n}c` in row) figures.goals[n] = { count: Number(row[`g${n}c`]), value: Number(row[`g${n}v`]) };
  }
  return figures;
}

/** ORDER BY of a sort type over the aggregated columns (names from the whitelist only). */
function sortExpression(sortType: string, column: 'g' | 'p'): string {
  switch (sortType) {
    case 'clicks':
    case 'shares':
    case 'pageviews':
      return sortType;
    case 'clicks_per_share':
      return 'CASE WHEN shares = 0 THEN 0 ELSE clicks::numeric / shares END';
    case 'alpha':
      return column;
    case 'shared_at':
      return 'last_shared';
    case 'goal_total_count':
      return `(${GOALS.map((n) => `g${n}c`).join(' + ')})`;
    case 'goal_total_value':
      return `(${GOALS.map((n) => `g${n}v`).join(' + ')})`;
    default: {
      const match = /^goal_(\d+)_(count|value)$/.exec(sortType);
      if (!match) throw new Error(`unknown sort type ${sortType}`);
      return `g${Number(match[1])}${match[2] === 'count' ? 'c' : 'v'}`;
    }
  }
}
