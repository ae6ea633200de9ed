import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AnalyticsClient, Page, Params, chTime, fromChTime } from '../analytics/analytics-client';
import { RAW_CLICKS_READ } from '../analytics/analytics-schema';
import { GOALS } from './conversions-object';
import { FilterField, filterConditions, groupExpression, isMultiTagField, isStampedField } from './stats-fields';
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

/** A pivot of a group: its value and figures. */
export type PivotRow = GroupRow;

/** Range's and totals' answer: the totals, one page of groups and, per group, its pivots (pivots[i] are groups[i]'s). */
export interface Aggregate {
  totals: Figures;
  groups: GroupRow[];
  totalResults: number;
  pivots: PivotRow[][];
}

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

/** The projects a range or totals request reads, with their API keys (group_by=project shows keys). */
export interface ProjectScope {
  ids: string[];
  keys: string[];
}

/**
 * What the rows of one range or totals request are made from: the tool keys of its tool filter, and
 * whether its events are grouped by their stamps (`stamped`; with `updated` when the projects have
 * links whose latest version is not the one they were created with) or joined to `links`.
 */
interface RowsContext {
  toolKeys: string[];
  stamped: StampState | null;
}

/**
 * What a request's projects hold that a stamp alone cannot group: links updated since their
 * creation (`link_updates`), and events not stamped (stored before the stamps, or for a link the
 * mirror lacked), per table.
 */
interface StampState {
  updated: boolean;
  unstamped: { clicks: boolean; conversions: boolean };
}

/** How the rows are grouped: the group (g) and pivot (p) expressions, each expanded when multi-valued. */
interface Grouping {
  group: string | null;
  pivot: string | null;
}

const NULL_KEY = '\u0000null';

/** Stamp states kept at most (by set of projects); all are dropped when there would be more. */
const STAMP_STATES_KEPT = 10_000;

/** Builds a statement's parameters: each value bound to a `{pN:Type}` placeholder. */
class Binder {
  readonly params: Params = {};
  private count = 0;

  bind = (value: unknown, type: string): string => {
    const name = `p${this.count++}`;
    this.params[name] = value;
    return `{${name}:${type}}`;
  };
}

/** The bucket of an interval, as ClickHouse starts it (UTC; weeks start on Monday). */
function bucketOf(interval: Interval, column: string): string {
  switch (interval) {
    case 'hour':
      return `toStartOfHour(${column})`;
    case 'day':
      return `toStartOfDay(${column})`;
    case 'week':
      return `toDateTime(toMonday(${column}), 'UTC')`;
  }
}

/**
 * Statistics queries over the analytics store (ClickHouse): click and conversion events and their
 * rollups, grouped by the link attributes they are stamped with while those are their link's latest,
 * and otherwise joined at query time to the latest version of each link's attributes (`links FINAL`).
 * PostgreSQL answers only what it owns: a link's id, tool labels and the metadata of users and
 * campaigns.
 */
@Injectable()
export class StatsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(AnalyticsClient) private readonly analytics: AnalyticsClient,
  ) {}

  /**
   * The stamp state last read per set of projects, with the store's count of writes that may change
   * one (AnalyticsClient.stampStateWrites) as it was when the read began: while the count is the
   * same, no such write has ended since, and the state is the store's. Kept only when this process
   * is the store's only writer (embedded).
   */
  private readonly stampStates = new Map<string, { writes: number; state: StampState }>();

  private get db(): string {
    return this.analytics.database;
  }

  /** The project's link id by svc_id (uq_links_svc_id), or null. */
  async linkId(projectId: string, svcId: string): Promise<string | null> {
    const rows = await this.dataSource.query<{ id: string }[]>(`SELECT id::text AS id FROM links WHERE svc_id = $1 AND project_id = $2`, [
      svcId,
      projectId,
    ]);
    return rows[0]?.id ?? null;
  }

  /**
   * A link's clicks per interval in [start, end) and its latest click (bots left out unless asked),
   * in one read of the link's key range of `clicks` (project, link, time): every bucket of the
   * link's life with its clicks in the period and its latest click; the buckets with clicks in
   * the period are the intervals, the latest of all is the latest click.
   */
  async linkIntervals(
    projectId: string,
    linkId: string,
    start: Date,
    end: Date,
    interval: Interval,
    options: { withBots: boolean },
  ): Promise<{ rows: IntervalRow[]; last: Date | null }> {
    const humans = options.withBots ? '1' : 'is_bot = 0';
    const buckets = await this.analytics.query<{ bucket: string; clicks: string | number; last: string }>(
      `SELECT ${bucketOf(interval, 'clicked_at')} AS bucket,
              countIf(clicked_at >= {start:DateTime64(3, 'UTC')} AND clicked_at < {end:DateTime64(3, 'UTC')}) AS clicks,
              max(clicked_at) AS last
       FROM ${this.db}.clicks
       WHERE project_id = {project:UUID} AND link_id = {link:UInt64} AND ${humans}
       GROUP BY bucket ORDER BY bucket
       ${RAW_CLICKS_READ}`,
      { project: projectId, link: linkId, start: chTime(start), end: chTime(end) },
    );
    let last: string | null = null;
    for (const bucket of buckets) if (last === null || bucket.last > last) last = bucket.last;
    return {
      rows: buckets.filter((r) => Number(r.clicks) > 0).map((r) => ({ bucket: fromChTime(r.bucket), clicks: Number(r.clicks) })),
      last: last === null ? null : fromChTime(last),
    };
  }

  /** Conversions of one link per interval and type in [start, end). */
  async linkIntervalConversions(projectId: string, linkId: string, start: Date, end: Date, interval: Interval): Promise<IntervalConversionRow[]> {
    const rows = await this.analytics.query<{ bucket: string; type: string; count: string | number; value: string | number }>(
      `SELECT ${bucketOf(interval, 'converted_at')} AS bucket, type, count() AS count, sum(value) AS value
       FROM ${this.db}.conversions
       WHERE project_id = {project:UUID} AND link_id = {link:UInt64}
         AND converted_at >= {start:DateTime64(3, 'UTC')} AND converted_at < {end:DateTime64(3, 'UTC')}
       GROUP BY bucket, type`,
      { project: projectId, link: linkId, start: chTime(start), end: chTime(end) },
    );
    return rows.map((r) => ({ bucket: fromChTime(r.bucket), type: r.type, count: Number(r.count), value: Number(r.value) }));
  }

  /** Clicks in [start, end) (all time without a period) and the latest click of each link, for link details and their batch. */
  async linkClicks(
    projectId: string,
    linkIds: string[],
    start: Date | null,
    end: Date | null,
    withBots: boolean,
  ): Promise<Map<string, { clicks: number; last: Date | null }>> {
    const binder = new Binder();
    const humans = withBots ? '1' : 'is_bot = 0';
    const period = [
      start ? `clicked_at >= ${binder.bind(chTime(start), "DateTime64(3, 'UTC')")}` : '1',
      end ? `clicked_at < ${binder.bind(chTime(end), "DateTime64(3, 'UTC')")}` : '1',
    ].join(' AND ');
    const rows = await this.analytics.query<{ link_id: string | number; clicks: string | number; last: string | null }>(
      `SELECT link_id, countIf(${period}) AS clicks, maxOrNull(clicked_at) AS last
       FROM ${this.db}.clicks
       WHERE project_id = ${binder.bind(projectId, 'UUID')} AND link_id IN ${binder.bind(linkIds.map(Number), 'Array(UInt64)')} AND ${humans}
       GROUP BY link_id
       ${RAW_CLICKS_READ}`,
      binder.params,
    );
    return new Map(rows.map((r) => [String(r.link_id), { clicks: Number(r.clicks), last: r.last ? fromChTime(r.last) : null }]));
  }

  /**
   * A project's clicks and shares per interval (range/intervals): clicks by the hour of the click
   * (the hourly projection of clicks), shares by the time the link was shared; filters as on range.
   */
  async projectIntervals(
    projectIds: string[],
    start: Date,
    end: Date,
    interval: Interval,
    filters: StatsQuery['filters'],
    options: { withBots: boolean },
  ): Promise<{ bucket: Date; clicks: number; shares: number }[]> {
    const binder = new Binder();
    const projects = binder.bind(projectIds, 'Array(UUID)');
    const from = binder.bind(chTime(start), "DateTime64(3, 'UTC')");
    const to = binder.bind(chTime(end), "DateTime64(3, 'UTC')");
    const conditions = filterConditions(filters, binder.bind, await this.toolKeys(projectIds, filters));
    const where = conditions.map((c) => ` AND ${c}`).join('');
    const clicks = countOf(options.withBots);
    const filtered = conditions.length > 0 ? `AND link_id IN (SELECT link_id FROM ${this.db}.links FINAL WHERE project_id IN ${projects}${where})` : '';
    const rows = await this.analytics.query<{ bucket: string; clicks: string | number; shares: string | number }>(
      `SELECT bucket, sum(clicks) AS clicks, sum(shares) AS shares FROM (
         SELECT ${bucketOf(interval, 'toStartOfHour(clicked_at)')} AS bucket, ${clicks} AS clicks, 0 AS shares
         FROM ${this.db}.clicks
         WHERE project_id IN ${projects} AND toStartOfHour(clicked_at) >= ${from} AND toStartOfHour(clicked_at) < ${to} ${filtered}
         GROUP BY bucket ${COUNTED}
         UNION ALL
         SELECT ${bucketOf(interval, 'shared_at')} AS bucket, 0 AS clicks, count() AS shares
         FROM ${this.db}.links FINAL
         WHERE project_id IN ${projects} AND shared_at >= ${from} AND shared_at < ${to}${where}
         GROUP BY bucket)
       GROUP BY bucket ORDER BY bucket`,
      binder.params,
    );
    return rows.map((r) => ({ bucket: fromChTime(r.bucket), clicks: Number(r.clicks), shares: Number(r.shares) }));
  }

  /** A project's conversions per interval and type in [start, end) (range intervals); filters as on range. */
  async projectIntervalConversions(
    projectIds: string[],
    start: Date,
    end: Date,
    interval: Interval,
    filters: StatsQuery['filters'],
  ): Promise<IntervalConversionRow[]> {
    const binder = new Binder();
    const projects = binder.bind(projectIds, 'Array(UUID)');
    const conditions = filterConditions(filters, binder.bind, await this.toolKeys(projectIds, filters));
    const filtered =
      conditions.length > 0
        ? `AND link_id IN (SELECT link_id FROM ${this.db}.links FINAL WHERE project_id IN ${projects}${conditions.map((c) => ` AND ${c}`).join('')})`
        : '';
    const rows = await this.analytics.query<{ bucket: string; type: string; count: string | number; value: string | number }>(
      `SELECT ${bucketOf(interval, 'converted_at')} AS bucket, type, count() AS count, sum(value) AS value
       FROM ${this.db}.conversions
       WHERE project_id IN ${projects} AND converted_at >= ${binder.bind(chTime(start), "DateTime64(3, 'UTC')")}
         AND converted_at < ${binder.bind(chTime(end), "DateTime64(3, 'UTC')")} ${filtered}
       GROUP BY bucket, type`,
      binder.params,
    );
    return rows.map((r) => ({ bucket: fromChTime(r.bucket), type: r.type, count: Number(r.count), value: Number(r.value) }));
  }

  /**
   * Range and totals: the totals, one page of groups and their pivots. The rows (rowsSql) are the
   * period's activity (range) or the all-time figures of the links shared in the period (totals),
   * with the links' attributes: fresh events grouped by their stamps, the others joined to `links`,
   * and the share counts. Groups are sorted and paged by ClickHouse; with a pivot, groups and the
   * page's pivots come from one statement (groupsWithPivots), else the pivots from a second one.
   */
  async aggregate(query: StatsQuery, scope: ProjectScope): Promise<Aggregate> {
    const context: RowsContext = {
      toolKeys: await this.toolKeys(scope.ids, query.filters),
      stamped: this.readsStamps(query) ? await this.stampState(scope.ids) : null,
    };
    const figures = figureSums(query.withConversions);
    if (!query.groupBy) {
      const binder = new Binder();
      const rows = this.rowsSql(query, scope, context, binder, { group: null, pivot: null });
      const [totals] = await this.queryRows(context, `SELECT ${figures} FROM (${rows})`, binder.params);
      return { totals: readFigures(totals), groups: [], totalResults: 0, pivots: [] };
    }
    const multiGroup = isMultiTagField(query.groupBy);
    if (query.pivot && !multiGroup && !isMultiTagField(query.pivot)) {
      const fused = await this.groupsWithPivots(query, scope, context);
      if (fused) return fused;
    }
    const binder = new Binder();
    const rows = this.rowsSql(query, scope, context, binder, { group: query.groupBy, pivot: null });
    const limit = binder.bind(query.perPage, 'UInt64');
    const offset = binder.bind(query.offset, 'UInt64');
    // The page of groups, sorted by ClickHouse, with the number of groups (rows before the LIMIT)
    // and, unless a link counts in several groups (multi-value tags), the totals as the sum of the
    // groups (WITH TOTALS: cheaper to plan than window functions over the groups).
    const page = await this.queryPage(
      context,
      `SELECT g, ${figures}, max(shared_at) AS last_shared FROM (${rows})
       GROUP BY g${multiGroup ? '' : ' WITH TOTALS'}
       ORDER BY ${sortExpression(query.sortType, 'g')} ${query.sortOrder} NULLS LAST, g ASC NULLS LAST
       LIMIT ${limit} OFFSET ${offset}`,
      binder.params,
    );
    let totals: Figures;
    if (multiGroup) {
      const plain = new Binder();
      const [row] = await this.queryRows(
        context,
        `SELECT ${figures} FROM (${this.rowsSql(query, scope, context, plain, { group: null, pivot: null })})`,
        plain.params,
      );
      totals = readFigures(row);
    } else {
      totals = readFigures(page.totals);
    }
    const groupRows = page.rows.map((row) => ({ value: readValue(row.g), ...readFigures(row) }));
    const pivots = query.pivot ? await this.pivots(query, scope, context, groupRows) : groupRows.map(() => []);
    return { totals, totalResults: page.before, groups: groupRows, pivots };
  }

  /**
   * Groups and pivots in one pass over the rows, when every link counts in one group and one pivot:
   * the rows are summed per (group, pivot), then per group, each group carrying its pivots as an
   * array; groups are sorted and paged by ClickHouse (window sums over every group give the totals
   * and the count), and the page's groups come back, one row each. Null when the page is empty
   * (the caller's path then answers the count and totals).
   */
  private async groupsWithPivots(
    query: StatsQuery,
    scope: ProjectScope,
    context: RowsContext,
  ): Promise<Aggregate | null> {
    const binder = new Binder();
    const rows = this.rowsSql(query, scope, context, binder, { group: query.groupBy, pivot: query.pivot });
    const figures = figureColumns(query.withConversions);
    const limit = binder.bind(query.perPage, 'UInt64');
    const offset = binder.bind(query.offset, 'UInt64');
    // A pivot's latest shared time only orders pivots by shared_at: otherwise its tuple leaves it
    // out (a constant there, and half of the result's bytes with 1,000 pivots per group).
    const pivotShared = query.pivotSortType === 'shared_at';
    const found = await this.queryRows(
      context,
      `SELECT g, ${figures.map((c) => `G_${c}`).join(', ')}, G_last_shared, pivots,
              count() OVER () AS total_results, ${figures.map((c) => `sum(G_${c}) OVER () AS T_${c}`).join(', ')}
       FROM (
         SELECT g, ${figures.map((c) => `sum(${c}) AS G_${c}`).join(', ')}, max(last_shared) AS G_last_shared,
                groupArray(tuple(p, ${figures.join(', ')}${pivotShared ? ', last_shared' : ''})) AS pivots
         FROM (SELECT g, p, ${figureSums(query.withConversions)}, max(shared_at) AS last_shared FROM (${rows}) GROUP BY g, p)
         GROUP BY g)
       ORDER BY ${sortExpression(query.sortType, 'g', 'G_')} ${query.sortOrder} NULLS LAST, g ASC NULLS LAST
       LIMIT ${limit} OFFSET ${offset}`,
      binder.params,
    );
    if (found.length === 0) return null;
    const groups: GroupRow[] = [];
    const foundPivots: SortablePivot[][] = [];
    for (const row of found) {
      groups.push({ value: readValue(row.g), ...readFigures(row, 'G_') });
      // (p, figures…[, last_shared]), figures in figureColumns' order.
      foundPivots.push((row.pivots as unknown[][]).map((pivot) => pivotOfTuple(pivot, query.withConversions, pivotShared ? pivot[figures.length + 1] : null)));
    }
    return {
      totals: readFigures(found[0], 'T_'),
      totalResults: Number(found[0].total_results),
      groups,
      pivots: await this.completePivots(query, scope, context, foundPivots),
    };
  }

  /**
   * The pivots of the page's groups, in each group sorted by pivot_sort_type; with_zeros adds every
   * pivot value of the whole result (not only of this page) to every group.
   */
  private async pivots(query: StatsQuery, scope: ProjectScope, context: RowsContext, groups: GroupRow[]): Promise<PivotRow[][]> {
    if (groups.length === 0) return [];
    const binder = new Binder();
    const rows = this.rowsSql(query, scope, context, binder, { group: query.groupBy, pivot: query.pivot });
    const keys = binder.bind(
      groups.map((g) => keyOf(g.value)),
      'Array(String)',
    );
    const figures = figureSums(query.withConversions);
    const found = await this.queryRows(
      context,
      `SELECT g, p, ${figures}, max(shared_at) AS last_shared FROM (${rows})
       WHERE ifNull(toString(g), '${NULL_KEY}') IN ${keys}
       GROUP BY g, p`,
      binder.params,
    );
    const byGroup = new Map<string, SortablePivot[]>();
    for (const row of found) {
      const key = keyOf(readValue(row.g));
      let pivots = byGroup.get(key);
      if (!pivots) byGroup.set(key, (pivots = []));
      pivots.push(pivotOf(row));
    }
    return this.completePivots(
      query,
      scope,
      context,
      groups.map((group) => byGroup.get(keyOf(group.value)) ?? []),
    );
  }

  /**
   * Each group's pivots found (found[i]: groups[i]'s), with with_zeros the pivot values they lack
   * added with zero figures, each group's sorted by pivot_sort_type.
   */
  private async completePivots(query: StatsQuery, scope: ProjectScope, context: RowsContext, found: SortablePivot[][]): Promise<PivotRow[][]> {
    const pivots = query.withZeros ? await this.withZeroPivots(query, scope, context, found) : found;
    const direction = query.pivotSortOrder === 'asc' ? 1 : -1;
    return pivots.map((group) => sortPivots(group, query.pivotSortType, direction));
  }

  /** Each group's pivots with every pivot value of the whole result (not only of this page) the group lacks, at zero (with_zeros). */
  private async withZeroPivots(query: StatsQuery, scope: ProjectScope, context: RowsContext, found: SortablePivot[][]): Promise<SortablePivot[][]> {
    const binder = new Binder();
    const values = (
      await this.queryRows(
        context,
        `SELECT DISTINCT p FROM (${this.rowsSql(query, scope, context, binder, { group: null, pivot: query.pivot })})`,
        binder.params,
      )
    ).map(({ p }) => readValue(p));
    return found.map((pivots) => {
      const present = new Set(pivots.map((pivot) => keyOf(pivot.value)));
      const zeros = values
        .filter((value) => !present.has(keyOf(value)))
        .map((value): SortablePivot => ({ value, ...readFigures(undefined, '', query.withConversions), lastShared: null }));
      return zeros.length > 0 ? [...pivots, ...zeros] : pivots;
    });
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
   * Whether a range or totals request groups events by their stamps: when every field it groups,
   * pivots or filters by is stamped (LINK_STAMP_COLUMNS; a multi-value tag only as a filter).
   * `useStamps` off joins every event to `links` instead (the tests compare both ways).
   */
  useStamps = true;

  private readsStamps(query: StatsQuery): boolean {
    if (!this.useStamps) return false;
    const grouped: string[] = [];
    for (const field of [query.groupBy, query.pivot]) if (field) grouped.push(field);
    if (grouped.some((field) => isMultiTagField(field))) return false;
    return [...grouped, ...Object.keys(query.filters)].every((field) => field === 'project' || isStampedField(field));
  }

  /**
   * Whether the projects have a link updated since its creation and not settled (`link_updates`), and
   * clicks or conversions not stamped (version 0: the minmax index of link_version skips every
   * granule of stamped events), in one statement; or, when this process alone writes the store, as
   * last read while no write that may change it has ended since (stampStates).
   */
  private async stampState(projectIds: string[]): Promise<StampState> {
    const writes = this.analytics.stampStateWrites;
    const key = projectIds.join(',');
    const kept = writes === null ? undefined : this.stampStates.get(key);
    if (kept && kept.writes === writes) return kept.state;
    const state = await this.readStampState(projectIds);
    if (writes !== null) {
      if (this.stampStates.size >= STAMP_STATES_KEPT) this.stampStates.clear();
      this.stampStates.set(key, { writes, state });
    }
    return state;
  }

  private async readStampState(projectIds: string[]): Promise<StampState> {
    const found = await this.analytics.query<{ what: string }>(
      `SELECT 'updated' AS what FROM ${this.db}.link_updates WHERE project_id IN {projects:Array(UUID)} LIMIT 1
       UNION ALL
       SELECT 'clicks' AS what FROM ${this.db}.clicks WHERE project_id IN {projects:Array(UUID)} AND link_version = 0 LIMIT 1
       UNION ALL
       SELECT 'conversions' AS what FROM ${this.db}.conversions WHERE project_id IN {projects:Array(UUID)} AND link_version = 0 LIMIT 1`,
      { projects: projectIds },
    );
    const has = new Set(found.map((row) => row.what));
    return { updated: has.has('updated'), unstamped: { clicks: has.has('clicks'), conversions: has.has('conversions') } };
  }

  /**
   * Runs a statement over range's or totals' rows (rowsSql). With updated links, the rows test each
   * event against the sets of `link_updates` (IN subqueries); ClickHouse would also use those sets to
   * analyse the primary key of every part and projection it considers, which with a million updated
   * links took a range statement from 0.2 s to over 1 s: the sets only filter.
   */
  private queryRows(context: RowsContext, sql: string, params: Params): Promise<Record<string, unknown>[]> {
    return this.analytics.query<Record<string, unknown>>(withSettings(sql, rowsSettings(context)), params);
  }

  /** A page of a statement over range's or totals' rows (queryRows' settings), with its totals and its count of rows before the LIMIT (exact). */
  private queryPage(context: RowsContext, sql: string, params: Params): Promise<Page<Record<string, unknown>>> {
    return this.analytics.queryPage<Record<string, unknown>>(withSettings(sql, ['exact_rows_before_limit = 1', ...rowsSettings(context)]), params);
  }

  /** The keys of the tools whose label is the tool filter (pk_tools, ix_tools_label): a tool is filtered by key or label. */
  private async toolKeys(projectIds: string[], filters: Partial<Record<FilterField, string>>): Promise<string[]> {
    if (filters.tool === undefined) return [];
    const rows = await this.dataSource.query<{ key: string }[]>(`SELECT key FROM tools WHERE project_id = ANY($1::uuid[]) AND label = $2`, [
      projectIds,
      filters.tool,
    ]);
    return rows.map((r) => r.key);
  }

  /**
   * The rows of figures with the group and pivot values (g, p) and the shared time of their links;
   * `shared` counts the links a row counts as shares. On stamps (`context.stamped`) the fresh events
   * and the shares come already summed per (g, p), the other events per link; joined to `links`,
   * a row per link. A multi-value tag group or pivot (joined only) gives a row per value (one with
   * null when the link has none). Every caller sums the rows per group, pivot or in all.
   */
  private rowsSql(query: StatsQuery, scope: ProjectScope, context: RowsContext, binder: Binder, grouping: Grouping): string {
    const bind = binder.bind;
    const projects = bind(scope.ids, 'Array(UUID)');
    if (query.groupBy === 'project' || query.pivot === 'project') {
      binder.params.project_ids = scope.ids;
      binder.params.project_keys = scope.keys;
    }
    const start = query.start ? bind(chTime(query.start), "DateTime64(3, 'UTC')") : null;
    const end = query.end ? bind(chTime(query.end), "DateTime64(3, 'UTC')") : null;
    const inPeriod = (column: string): string => [start ? `${column} >= ${start}` : '1', end ? `${column} < ${end}` : '1'].join(' AND ');
    const conditions = filterConditions(query.filters, bind, context.toolKeys);
    const where = conditions.map((c) => ` AND ${c}`).join('');
    const value = (field: string | null, name: 'g' | 'p'): string => {
      if (field === null) return `NULL AS ${name}`;
      const expression = groupExpression(field as Parameters<typeof groupExpression>[0]);
      return isMultiTagField(field)
        ? `arrayJoin(if(empty(${expression}), [NULL], arrayMap(x -> toNullable(x), ${expression}))) AS ${name}`
        : `${expression} AS ${name}`;
    };
    const links = `SELECT link_id, ${value(grouping.group, 'g')}, ${value(grouping.pivot, 'p')}, shared_at
      FROM ${this.db}.links FINAL WHERE project_id IN ${projects}${query.kind === 'totals' ? ` AND ${inPeriod('shared_at')}` : ''}${where}`;
    const conversionColumns = query.withConversions
      ? `, countIf(type = 'pageview') AS pageviews, ${GOALS.map((n) => `countIf(type = 'goal_${n}') AS g${n}c, sumIf(value, type = 'goal_${n}') AS g${n}v`).join(', ')}`
      : '';
    // Typed as the conversions' own columns (counts UInt64, values Int64), so that every part of a
    // UNION ALL has one type per column however its parts combine.
    const noConversions = query.withConversions ? `, toUInt64(0) AS pageviews, ${GOALS.map((n) => `toUInt64(0) AS g${n}c, toInt64(0) AS g${n}v`).join(', ')}` : '';
    const conversionsOf = (alias: string): string =>
      query.withConversions ? `, ${CONVERSION_FIGURES.map((c) => `${alias}.${c} AS ${c}`).join(', ')}` : '';
    const clicks = countOf(query.withBots);
    if (context.stamped) {
      const grouped = `${value(grouping.group, 'g')}, ${value(grouping.pivot, 'p')}`;
      const conversionNames = query.withConversions ? `, ${CONVERSION_FIGURES.join(', ')}` : '';
      // Fresh events: stamped with their link's latest version (the version of `link_updates`, or
      // the creation's for a link never updated), so grouped and filtered by their stamps. Each
      // condition is left out when the projects have nothing it would leave out.
      const { updated, unstamped } = context.stamped;
      const updates = `SELECT link_id, version FROM ${this.db}.link_updates FINAL WHERE project_id IN ${projects}`;
      const freshOf = (table: 'clicks' | 'conversions'): string | null => {
        const conditions = [
          ...(unstamped[table] ? ['link_version != 0'] : []),
          ...(updated ? [`(link_id NOT IN (SELECT link_id FROM (${updates})) OR (link_id, link_version) IN (${updates}))`] : []),
        ];
        return conditions.length > 0 ? conditions.join(' AND ') : null;
      };
      const freshClickRows = freshOf('clicks');
      const freshConversionRows = query.withConversions ? freshOf('conversions') : null;
      // Range: the events of the period. Totals: all the events of the links shared in the period,
      // by the shared time in the stamp (a fresh stamp's is the link's).
      const range = query.kind === 'range';
      // The latest shared time of a group's links only orders groups or pivots by shared_at: read
      // it only then (a quarter of range's time on the stamped rollup).
      const latest = query.sortType === 'shared_at' || query.pivotSortType === 'shared_at' ? 'max(shared_at)' : "toDateTime64(0, 3, 'UTC')";
      const freshClicks = `SELECT g, p, clicks, toUInt64(0) AS shared${noConversions}, last AS shared_at FROM (
          SELECT ${grouped}, ${clicks} AS clicks, ${latest} AS last FROM ${this.db}.clicks
          WHERE project_id IN ${projects} AND ${inPeriod(range ? 'toStartOfHour(clicked_at)' : 'shared_at')}${freshClickRows ? ` AND ${freshClickRows}` : ''}${where}
          GROUP BY g, p ${COUNTED})`;
      const freshConversions = query.withConversions
        ? `UNION ALL
           SELECT g, p, 0 AS clicks, toUInt64(0) AS shared${conversionNames}, last AS shared_at FROM (
             SELECT ${grouped}${conversionColumns}, ${latest} AS last FROM ${this.db}.conversions
             WHERE project_id IN ${projects} AND ${inPeriod(range ? 'converted_at' : 'shared_at')}${freshConversionRows ? ` AND ${freshConversionRows}` : ''}${where}
             GROUP BY g, p)`
        : '';
      // The other events (not stamped, or stamped with an earlier version of an updated link): each
      // link's, joined to its latest attributes (`links`, which for totals holds the links shared
      // in the period). The per-link sums are the join's build side: when there are none, `links`
      // is not read.
      const staleParts = [
        ...(freshClickRows
          ? [
              `SELECT link_id, ${clicks} AS clicks${noConversions} FROM ${this.db}.clicks
               WHERE project_id IN ${projects} AND ${range ? inPeriod('toStartOfHour(clicked_at)') : '1'} AND NOT (${freshClickRows}) GROUP BY link_id ${COUNTED}`,
            ]
          : []),
        ...(freshConversionRows
          ? [
              `SELECT link_id, 0 AS clicks${conversionColumns} FROM ${this.db}.conversions
               WHERE project_id IN ${projects} AND ${range ? inPeriod('converted_at') : '1'} AND NOT (${freshConversionRows}) GROUP BY link_id`,
            ]
          : []),
      ];
      const stale =
        staleParts.length > 0
          ? `UNION ALL
             SELECT l.g AS g, l.p AS p, a.clicks AS clicks, toUInt64(0) AS shared${conversionsOf('a')}, l.shared_at AS shared_at
             FROM (${links}) AS l
             INNER JOIN (SELECT link_id, sum(clicks) AS clicks${conversionSums(query.withConversions)} FROM (${staleParts.join(' UNION ALL ')}) GROUP BY link_id) AS a
               ON l.link_id = a.link_id`
          : '';
      // Every link shared in the period, as share counts per (g, p).
      const shares = `SELECT g, p, 0 AS clicks, shared${noConversions}, last AS shared_at FROM (
          SELECT ${grouped}, count() AS shared, ${latest} AS last FROM ${this.db}.links FINAL
          WHERE project_id IN ${projects} AND ${inPeriod('shared_at')}${where}
          GROUP BY g, p)`;
      return `${freshClicks}
        ${freshConversions}
        ${stale}
        UNION ALL
        ${shares}`;
    }
    if (query.kind === 'range') {
      // Each link's activity in the period (clicks, and conversions a column per type) joined to its
      // attributes, and a share row for each link shared in the period: a link is in the rows when it
      // had activity or was shared in the period (two rows when both). Joining only the active links,
      // rather than every link of the project to its activity, reads less.
      const conversions = query.withConversions
        ? `UNION ALL
           SELECT link_id, 0 AS clicks${conversionColumns}
           FROM ${this.db}.conversions WHERE project_id IN ${projects} AND ${inPeriod('converted_at')} GROUP BY link_id`
        : '';
      const activity = `SELECT link_id, sum(clicks) AS clicks${conversionSums(query.withConversions)}
        FROM (
          SELECT link_id, ${clicks} AS clicks${noConversions}
          FROM ${this.db}.clicks WHERE project_id IN ${projects} AND ${inPeriod('toStartOfHour(clicked_at)')} GROUP BY link_id ${COUNTED}
          ${conversions})
        GROUP BY link_id`;
      return `SELECT l.g AS g, l.p AS p, a.clicks AS clicks, toUInt8(0) AS shared${conversionsOf('a')}, l.shared_at AS shared_at
        FROM (${activity}) AS a INNER JOIN (${links}) AS l ON l.link_id = a.link_id
        UNION ALL
        SELECT g, p, 0 AS clicks, toUInt8(1) AS shared${noConversions}, shared_at
        FROM (${links}) WHERE ${inPeriod('shared_at')}`;
    }
    // Totals: all-time figures of the links shared in the period.
    const conversionTotals = query.withConversions
      ? `LEFT JOIN (SELECT link_id${conversionColumns} FROM ${this.db}.conversions WHERE project_id IN ${projects} GROUP BY link_id) AS c ON c.link_id = l.link_id`
      : '';
    return `SELECT l.g AS g, l.p AS p, t.clicks AS clicks, toUInt8(1) AS shared${conversionsOf('c')}, l.shared_at AS shared_at
      FROM (${links}) AS l
      LEFT JOIN (SELECT link_id, ${clicks} AS clicks FROM ${this.db}.clicks WHERE project_id IN ${projects} GROUP BY link_id) AS t
        ON t.link_id = l.link_id
      ${conversionTotals}`;
  }
}

/** The settings of a statement over range's or totals' rows (see queryRows). */
function rowsSettings(context: RowsContext): string[] {
  return context.stamped?.updated ? ['use_index_for_in_with_subqueries = 0'] : [];
}

/** A statement with a SETTINGS clause of the given settings (none: as it is). */
function withSettings(sql: string, settings: string[]): string {
  return settings.length > 0 ? `${sql}\n       SETTINGS ${settings.join(', ')}` : sql;
}

/**
 * Clicks as the projections of `clicks` hold them (hourly, totals): humans, or humans and bots.
 * Written with exactly the projections' aggregates, so ClickHouse answers from them.
 */
function countOf(withBots: boolean): string {
  return withBots ? '(countIf(is_bot = 0) + countIf(is_bot = 1))' : 'countIf(is_bot = 0)';
}

/**
 * Keeps the rows of click counts that count a click: without with_bots, a link or interval whose
 * only clicks are bots' would otherwise make a row of zeros, and so a group of zeros in range
 * (bots are left out of the statistics). A filter over the projections' own aggregate: they still
 * answer the statement.
 */
const COUNTED = 'HAVING clicks > 0';

/** The conversion figure columns of a row set: pageviews, then each goal's count and value. */
const CONVERSION_FIGURES = ['pageviews', ...GOALS.flatMap((n) => [`g${n}c`, `g${n}v`])];

/** The figure columns of a row set. */
function figureColumns(withConversions: boolean): string[] {
  return ['clicks', 'shares', ...(withConversions ? CONVERSION_FIGURES : [])];
}

/** `, sum(c) AS c` for each conversion figure column (empty without conversions). */
function conversionSums(withConversions: boolean): string {
  return withConversions ? `, ${CONVERSION_FIGURES.map((c) => `sum(${c}) AS ${c}`).join(', ')}` : '';
}

/** The sums of the figure columns over rows. */
function figureSums(withConversions: boolean): string {
  return `sum(clicks) AS clicks, sum(shared) AS shares${conversionSums(withConversions)}`;
}

/** A pivot from its tuple (p, clicks, shares[, pageviews, g1c, g1v, …]), figures in figureColumns' order, and its latest shared time. */
function pivotOfTuple(tuple: unknown[], withConversions: boolean, lastShared: unknown): SortablePivot {
  const pivot: SortablePivot = {
    value: readValue(tuple[0]),
    clicks: Number(tuple[1]),
    shares: Number(tuple[2]),
    pageviews: 0,
    goals: {},
    lastShared: typeof lastShared === 'string' ? lastShared : null,
  };
  if (withConversions) {
    pivot.pageviews = Number(tuple[3]);
    for (const n of GOALS) pivot.goals[n] = { count: Number(tuple[2 + 2 * n]), value: Number(tuple[3 + 2 * n]) };
  }
  return pivot;
}

function readFigures(row: Record<string, unknown> | null | undefined, prefix = '', withConversions?: boolean): Figures {
  const names = figureNames(prefix);
  const read = (name: string): number => Number(row?.[name] ?? 0);
  const figures: Figures = { clicks: read(names.clicks), shares: read(names.shares), pageviews: read(names.pageviews), goals: {} };
  for (const goal of names.goals) {
    if ((row && goal.count in row) || withConversions) figures.goals[goal.n] = { count: read(goal.count), value: read(goal.value) };
  }
  return figures;
}

/** The column names of the figures under a prefix, made once per prefix (readFigures runs per row). */
const figureNamesByPrefix = new Map<string, FigureNames>();

interface FigureNames {
  clicks: string;
  shares: string;
  pageviews: string;
  goals: { n: number; count: string; value: string }[];
}

function figureNames(prefix: string): FigureNames {
  let names = figureNamesByPrefix.get(prefix);
  if (!names) {
    names = {
      clicks: `${prefix}clicks`,
      shares: `${prefix}shares`,
      pageviews: `${prefix}pageviews`,
      goals: GOALS.map((n) => ({ n, count: `${prefix}g${n}c`, value: `${prefix}g${n}v` })),
    };
    figureNamesByPrefix.set(prefix, names);
  }
  return names;
}

/**
 * A pivot row with the latest shared time of its links (for sort type shared_at), as ClickHouse
 * writes it ('YYYY-MM-DD hh:mm:ss.sss', UTC): its text order is its time order.
 */
type SortablePivot = PivotRow & { lastShared: string | null };

function pivotOf(row: Record<string, unknown>): SortablePivot {
  return {
    value: readValue(row.p),
    ...readFigures(row),
    lastShared: typeof row.last_shared === 'string' ? row.last_shared : null,
  };
}

function readValue(value: unknown): string | number | null {
  if (typeof value === 'number' || typeof value === 'string') return value;
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** A group or pivot value as a string key (null apart from every string). */
function keyOf(value: string | number | null): string {
  return value === null ? NULL_KEY : String(value);
}

/** ORDER BY of a sort type over the aggregated columns (names from the whitelist only). */
function sortExpression(sortType: string, column: 'g' | 'p', prefix = ''): string {
  switch (sortType) {
    case 'clicks':
    case 'shares':
    case 'pageviews':
      return `${prefix}${sortType}`;
    case 'clicks_per_share':
      return `if(${prefix}shares = 0, 0, ${prefix}clicks / ${prefix}shares)`;
    case 'alpha':
      return column;
    case 'shared_at':
      return `${prefix}last_shared`;
    case 'goal_total_count':
      return `(${GOALS.map((n) => `${prefix}g${n}c`).join(' + ')})`;
    case 'goal_total_value':
      return `(${GOALS.map((n) => `${prefix}g${n}v`).join(' + ')})`;
    default: {
      const match = /^goal_(\d+)_(count|value)$/.exec(sortType);
      if (!match) throw new Error(`unknown sort type ${sortType}`);
      return `${prefix}g${Number(match[1])}${match[2] === 'count' ? 'c' : 'v'}`;
    }
  }
}

/** The value a sort type orders a pivot by. */
function sortValue(sortType: string, row: SortablePivot): number | string | null {
  const goalSum = (field: 'count' | 'value'): number => GOALS.reduce((sum, n) => sum + (row.goals[n]?.[field] ?? 0), 0);
  switch (sortType) {
    case 'clicks':
    case 'shares':
    case 'pageviews':
      return row[sortType];
    case 'clicks_per_share':
      return row.shares === 0 ? 0 : row.clicks / row.shares;
    case 'alpha':
      return row.value;
    case 'shared_at':
      return row.lastShared;
    case 'goal_total_count':
      return goalSum('count');
    case 'goal_total_value':
      return goalSum('value');
    default: {
      const match = /^goal_(\d+)_(count|value)$/.exec(sortType);
      if (!match) throw new Error(`unknown sort type ${sortType}`);
      return row.goals[Number(match[1])]?.[match[2] as 'count' | 'value'] ?? 0;
    }
  }
}

/** Ascending order as ClickHouse sorts (numbers by value, strings by code point), nulls last. */
function compareValues(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A group's pivots in pivot_sort_type order in a direction (1 ascending, -1 descending), nulls
 * last, then by value ascending; each pivot's sort value computed once.
 */
function sortPivots(pivots: SortablePivot[], sortType: string, direction: number): SortablePivot[] {
  const keys = pivots.map((pivot) => sortValue(sortType, pivot));
  const order = pivots.map((_, i) => i);
  order.sort((a, b) => compareSortValues(keys[a], keys[b], direction) || compareValues(pivots[a].value, pivots[b].value));
  return order.map((i) => pivots[i]);
}

/** Two pivots' sort values in a direction (1 ascending, -1 descending), nulls last either way. */
function compareSortValues(x: number | string | null, y: number | string | null, direction: number): number {
  if (x === y) return 0;
  if (x === null) return 1;
  if (y === null) return -1;
  return (x < y ? -1 : 1) * direction;
}
