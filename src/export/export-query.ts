import { Binder, Statement, andAll } from '../analytics/statement';
import type { IpMode } from '../common/ip';
import type { VisitorStorage } from '../common/visitor-storage';
import { linkFilterConditions } from '../links/list/link-filter-conditions';
import { DIMENSION_FIELDS, eventConditions } from '../stats/stats-fields';
import type { ExportQuery } from './export-params';

/**
 * The statements of the exports (docs/api.md, "Export"), built by pure functions and streamed by
 * ExportRepository in the engine's own output formats. Every value is bound ({pN:Type}); every
 * name comes from the lists below.
 *
 * An event export reads the project's events in their sorting key's order (project_id, link_id,
 * time) and merges them with its links' latest attributes (`links FINAL`, sorted by project_id,
 * link_id) as both are read: a sort-merge join over two inputs already sorted by its keys
 * (`full_sorting_merge` on (project_id, link_id)) sorts nothing and holds a block of each side,
 * where a hash join would hold every link of the project. With a link filter the join keeps the
 * events of matching links (INNER), as statistics filter by a link's latest attributes; without,
 * every event (LEFT: a link the mirror lacks gives null attributes).
 */

/** The attributes of its link each exported event carries: enough to read it; the links export has the rest. */
export const EVENT_LINK_COLUMNS = [
  'svc_id',
  'channel',
  'service',
  'campaign',
  'tag',
  'tool',
  'parent',
  'user_id',
] as const;

/** The columns of the clicks export, in order. */
export const CLICK_COLUMNS = [
  'clicked_at',
  'click_id',
  ...EVENT_LINK_COLUMNS,
  'referrer',
  'user_agent',
  'ip',
  'is_bot',
  ...DIMENSION_FIELDS,
] as const;

/** The columns of the conversions export, in order (a conversion's dimensions are its click's). */
export const CONVERSION_COLUMNS = [
  'converted_at',
  'conversion_id',
  'click_id',
  'type',
  'value',
  ...EVENT_LINK_COLUMNS,
  ...DIMENSION_FIELDS,
] as const;

/** The columns of the links export, in order: the mirror's attributes, then imported_clicks. */
export const LINK_COLUMNS = [
  'svc_id',
  'domain',
  'original_url',
  'channel',
  'service',
  'tool',
  'application',
  'campaign',
  'tag',
  'tag_2',
  'tag_3',
  'tag_4',
  'tag_5',
  'parent',
  'sharer_id',
  'username',
  'service_userid',
  'service_postid',
  'user_id',
  'created_at',
  'shared_at',
  'imported_clicks',
] as const;

/**
 * Settings of every export statement: the sort-merge join; null attributes for a link the mirror
 * lacks; reads in order without buffering ahead (read_in_order_use_buffering reads several blocks
 * of each part before it merges them); blocks of 2,048 rows rather than 65,409 (each stage of the
 * pipeline, the merge of the parts and the join hold a block or two of every column, so the
 * engine's memory during an export grows with the block: docs/benchmarks.md, "bench:export");
 * 64-bit integers as JSON numbers.
 */
const EXPORT_SETTINGS = [
  "join_algorithm = 'full_sorting_merge'",
  'join_use_nulls = 1',
  'read_in_order_use_buffering = 0',
  'max_block_size = 2048',
  'output_format_json_quote_64bit_integers = 0',
].join(', ');

/** What an export statement needs beyond the request: the project and what it keeps of visitors. */
export interface ExportContext {
  db: string;
  projectId: string;
  /** The keys of the tools whose label is the tool filter (LinkLookupsService.toolKeysByLabel). */
  toolKeys: string[];
  /** The project's ip_storage (unset: CLICK_IP) and ua_storage, applied to every exported row. */
  visitor: VisitorStorage;
  /** The table holding the project's imported clicks for this export (links), or null: none. */
  importedTable?: string | null;
}

const NULL_STRING = 'CAST(NULL AS Nullable(String))';

/**
 * A stored address as `mode` keeps it, in SQL: `anonymised` as common/ip.ts's anonymiseIp writes it
 * (IPv4 its last octet zeroed, IPv6 its first three groups and `::`), so that an address stored
 * anonymised is exported as it is, and one stored before the project kept less is exported as the
 * project keeps it now.
 */
export function ipExpression(column: string, mode: IpMode): string {
  switch (mode) {
    case 'full':
      return column;
    case 'none':
      return NULL_STRING;
    case 'anonymised':
      return `multiIf(isIPv4String(${column}), replaceRegexpOne(${column}, '[.][0-9]+$', '.0'),
        isIPv6String(${column}), concat(arrayStringConcat(arraySlice(arrayFilter(g -> g != '',
          splitByChar(':', splitByString('::', ${column})[1])), 1, 3), ':'), '::'),
        ${column})`;
  }
}

/** The statement of an export. */
export function exportStatement(query: ExportQuery, context: ExportContext): Statement {
  switch (query.kind) {
    case 'clicks':
      return eventsStatement(query, context, 'clicks');
    case 'conversions':
      return eventsStatement(query, context, 'conversions');
    case 'links':
      return linksStatement(query, context);
  }
}

/** `column >= start AND column < end` for the bounds given (` AND …` each), bound as DateTime64. */
function periodWhere(column: string, query: ExportQuery, bind: Binder['bind']): string {
  const conditions: string[] = [];
  if (query.start)
    conditions.push(`${column} >= ${bind(chParam(query.start), "DateTime64(3, 'UTC')")}`);
  if (query.end) conditions.push(`${column} < ${bind(chParam(query.end), "DateTime64(3, 'UTC')")}`);
  return andAll(conditions);
}

/** A time as a DateTime64(3, 'UTC') parameter: 'YYYY-MM-DD hh:mm:ss.sss'. */
function chParam(date: Date): string {
  return date.toISOString().slice(0, 23).replace('T', ' ');
}

/**
 * Clicks or conversions of the project (their sorting key: project_id, link_id, time; the period
 * on their time), each with its link's attributes (EVENT_LINK_COLUMNS) and, for clicks, the
 * address and user agent as the project keeps them.
 */
function eventsStatement(
  query: ExportQuery,
  context: ExportContext,
  table: 'clicks' | 'conversions',
): Statement {
  const { bind, params } = new Binder();
  const project = bind(context.projectId, 'UUID');
  const time = table === 'clicks' ? 'clicked_at' : 'converted_at';
  const linkWhere = andAll(linkFilterConditions(query.filters, bind, context.toolKeys));
  const eventWhere =
    periodWhere(time, query, bind) +
    andAll(eventConditions(query.filters, bind)) +
    (table === 'clicks' && !query.withBots ? ' AND is_bot = 0' : '');
  const own =
    table === 'clicks'
      ? ['clicked_at', 'click_id', 'referrer', 'user_agent', 'ip', 'is_bot', ...DIMENSION_FIELDS]
      : ['converted_at', 'conversion_id', 'click_id', 'type', 'value', ...DIMENSION_FIELDS];
  const columns = table === 'clicks' ? CLICK_COLUMNS : CONVERSION_COLUMNS;
  const select = columns.map((name): string => {
    if ((EVENT_LINK_COLUMNS as readonly string[]).includes(name)) return `l.${name} AS ${name}`;
    if (name === 'ip') return `${ipExpression('e.ip', context.visitor.ip)} AS ip`;
    if (name === 'user_agent')
      return `${context.visitor.userAgent === 'parsed' ? NULL_STRING : 'e.user_agent'} AS user_agent`;
    return `e.${name} AS ${name}`;
  });
  const sql = `SELECT ${select.join(', ')}
    FROM (
      SELECT project_id, link_id, ${own.join(', ')} FROM ${context.db}.${table}
      WHERE project_id = ${project}${eventWhere}
      ORDER BY project_id, link_id, ${time}
    ) AS e
    ${linkWhere === '' ? 'LEFT' : 'INNER'} JOIN (
      SELECT project_id, link_id, ${EVENT_LINK_COLUMNS.join(', ')} FROM ${context.db}.links FINAL
      WHERE project_id = ${project}${linkWhere}
      ORDER BY project_id, link_id
    ) AS l ON l.project_id = e.project_id AND l.link_id = e.link_id
    SETTINGS ${EXPORT_SETTINGS}`;
  return { sql, params };
}

/**
 * The project's links (the mirror's latest versions, sorted by link id), those shared in the period
 * (`shared_at`, as totals select links), with their imported clicks: merged from the export's own
 * table of them (ExportRepository fills it from PostgreSQL), sorted alike; null without one.
 */
function linksStatement(query: ExportQuery, context: ExportContext): Statement {
  const { bind, params } = new Binder();
  const project = bind(context.projectId, 'UUID');
  const where =
    periodWhere('shared_at', query, bind) +
    andAll(linkFilterConditions(query.filters, bind, context.toolKeys));
  const attributes = LINK_COLUMNS.filter((c) => c !== 'imported_clicks');
  const links = `SELECT project_id, link_id, ${attributes.join(', ')} FROM ${context.db}.links FINAL
      WHERE project_id = ${project}${where}
      ORDER BY project_id, link_id`;
  const select = attributes.map((name) => `l.${name} AS ${name}`).join(', ');
  const sql = context.importedTable
    ? `SELECT ${select}, i.imported_clicks AS imported_clicks
    FROM (${links}) AS l
    LEFT JOIN (
      SELECT project_id, link_id, imported_clicks FROM ${context.db}.${context.importedTable}
      ORDER BY project_id, link_id
    ) AS i ON i.project_id = l.project_id AND i.link_id = l.link_id
    SETTINGS ${EXPORT_SETTINGS}`
    : `SELECT ${select}, CAST(NULL AS Nullable(UInt64)) AS imported_clicks
    FROM (${links}) AS l
    SETTINGS ${EXPORT_SETTINGS}`;
  return { sql, params };
}

/** The statement that makes an export's table of imported clicks (ExportContext.importedTable). */
export function importedTableSql(db: string, table: string): string {
  return `CREATE TABLE ${db}.${table} (project_id UUID, link_id UInt64, imported_clicks UInt64)
    ENGINE = MergeTree ORDER BY (project_id, link_id)`;
}
