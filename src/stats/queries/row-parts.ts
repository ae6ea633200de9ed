import { chTime } from '../../analytics/analytics-client';
import { rawSinceHorizon, retiredBeforeHorizon } from '../../analytics/retired-horizon';
import { GOALS } from '../../common/goals';
import { GroupField, eventConditions, groupExpression, isMultiTagField } from '../stats-fields';
import { linkFilterConditions } from '../../links/list/link-filter-conditions';
import { StatsQuery } from '../stats-query';
import { Binder, TIME, andAll, countOf } from './statement';

/** The projects a range or totals request reads, with their keys (group_by=project shows them). */
export interface ProjectScope {
  ids: string[];
  keys: string[];
}

/**
 * What a request's projects hold that a stamp alone cannot group: links updated since their
 * creation (`link_updates`), and events not stamped (stored before the stamps, or for a link the
 * mirror lacked), per table.
 */
export interface StampState {
  updated: boolean;
  unstamped: { clicks: boolean; conversions: boolean };
}

/**
 * What the projects' chain figures kept by the store need (docs/architecture.md, "Share chains"):
 * whether they have events without a chain stamp (`unstamped`: their chain figures are joined
 * at query time instead), and links whose chain moved (`moved`, `chain_moves`: their events are
 * counted under their latest chain).
 */
export interface ChainState {
  unstamped: boolean;
  moved: boolean;
}

/**
 * What the rows of one range or totals request are made from: the tool keys of its tool filter,
 * whether its events are grouped by their stamps (`stamped`, the projects' stamp state) or all
 * joined to `links` (null), and with share chains the projects' chain state (`chains`; absent or
 * null: chains joined at query time).
 */
export interface RowsContext {
  toolKeys: string[];
  stamped: StampState | null;
  chains?: ChainState | null;
  /**
   * Whether the projects have retired events (docs/architecture.md, "Retention": hourly rollups
   * in `clicks_retired` and `conversions_retired`), which every part then adds; absent or false:
   * none, and the statements are as without retention.
   */
  retired?: boolean;
}

/** How the rows are grouped: the group (g) and pivot (p) fields, null for none. */
export interface Grouping {
  group: GroupField | null;
  pivot: GroupField | null;
}

/** The conversion figure columns of a row set: pageviews, then each goal's count and value. */
export const CONVERSION_FIGURES = ['pageviews', ...GOALS.flatMap((n) => [`g${n}c`, `g${n}v`])];

/**
 * The figure columns of a row set, in this order: clicks, shares, then with conversions
 * CONVERSION_FIGURES (pivotOfTuple reads a pivot's tuple by it).
 */
export function figureColumns(withConversions: boolean): string[] {
  return ['clicks', 'shares', ...(withConversions ? CONVERSION_FIGURES : [])];
}

/**
 * The chain figure columns of a row set with with_chain (chain-rows.query.ts): chain_clicks,
 * chain_shares, then the conversions' under `chain_`.
 */
export function chainFigureColumns(withConversions: boolean): string[] {
  return [
    'chain_clicks',
    'chain_shares',
    ...(withConversions ? CONVERSION_FIGURES.map((c) => `chain_${c}`) : []),
  ];
}

/** `, sum(c) AS c` for each conversion figure column (empty without conversions). */
export function conversionSums(withConversions: boolean): string {
  return withConversions
    ? `, ${CONVERSION_FIGURES.map((c) => `sum(${c}) AS ${c}`).join(', ')}`
    : '';
}

/**
 * The sums of the figure columns over rows (`shared` counted as shares), and with `withChain` of
 * the chain figures (chain-rows.query.ts).
 */
export function figureSums(withConversions: boolean, withChain = false): string {
  const chain = withChain
    ? `, ${chainFigureColumns(withConversions)
        .map((c) => `sum(${c}) AS ${c}`)
        .join(', ')}`
    : '';
  return `sum(clicks) AS clicks, sum(shared) AS shares${conversionSums(withConversions)}${chain}`;
}

/**
 * The pieces every form of range's and totals' rows is made of, the request's values bound once
 * (the placeholders repeat wherever a piece does).
 */
export interface RowParts {
  db: string;
  query: StatsQuery;
  /** The placeholder of the project ids. */
  projects: string;
  /** The period's conditions on a time column ('1' for an open end). */
  inPeriod: (column: string) => string;
  /** ` AND <filter>` for each link filter, over the links mirror or the stamps (same column names). */
  where: string;
  /** ` AND <filter>` for each click-dimension filter, over `clicks` or `conversions`. */
  eventWhere: string;
  /** The group and pivot value expressions, `… AS g, … AS p`. */
  grouped: string;
  /** Each link's latest attributes (`links FINAL`; for totals, the links shared in the period). */
  links: string;
  /** The click count, as the projections hold it. */
  clicks: string;
  /** Whether the parts add the retired events (RowsContext.retired). */
  retired: boolean;
  /** The click count over `clicks_retired`: the sum of `n` of the rows `clicks` would count. */
  retiredClicks: string;
  /** conversionCounts over `conversions_retired`: sums of `n` and `value` per type. */
  retiredConversionCounts: string;
  /**
   * With retired events, ` AND <the raw events at or after their project's horizon>` over a time
   * column of `clicks` or `conversions` (retired-horizon.ts); without, nothing.
   */
  sinceHorizon: (time: string) => string;
  /** With retired events, ` AND <the rollup rows before their project's horizon>`; else nothing. */
  beforeHorizon: string;
  /** `, countIf(type = 'pageview') AS pageviews, …` per conversion figure over `conversions`. */
  conversionCounts: string;
  /** `, toUInt64(0) AS pageviews, …`: the conversion figures of rows without conversions. */
  noConversions: string;
  /** `, a.pageviews AS pageviews, …`: the conversion figures of a joined table. */
  conversionsOf: (alias: string) => string;
}

/** A request's row parts, its values bound through the binder: projects, period, filters. */
export function rowParts(
  db: string,
  query: StatsQuery,
  scope: ProjectScope,
  context: RowsContext,
  binder: Binder,
  grouping: Grouping,
): RowParts {
  const bind = binder.bind;
  const projects = bind(scope.ids, 'Array(UUID)');
  if (query.groupBy === 'project' || query.pivot === 'project') {
    binder.params.project_ids = scope.ids;
    binder.params.project_keys = scope.keys;
  }
  const start = query.start ? bind(chTime(query.start), TIME) : null;
  const end = query.end ? bind(chTime(query.end), TIME) : null;
  const inPeriod = (column: string): string =>
    [start ? `${column} >= ${start}` : '1', end ? `${column} < ${end}` : '1'].join(' AND ');
  const where = andAll(linkFilterConditions(query.filters, bind, context.toolKeys));
  const grouped = `${valueOf(grouping.group, 'g')}, ${valueOf(grouping.pivot, 'p')}`;
  const sharedInPeriod = query.kind === 'totals' ? ` AND ${inPeriod('shared_at')}` : '';
  const links = `SELECT link_id, ${grouped}, shared_at
      FROM ${db}.links FINAL WHERE project_id IN ${projects}${sharedInPeriod}${where}`;
  const withConversions = query.withConversions;
  return {
    db,
    query,
    projects,
    inPeriod,
    where,
    eventWhere: andAll(eventConditions(query.filters, bind)),
    grouped,
    links,
    clicks: countOf(query.withBots),
    retired: context.retired === true,
    retiredClicks: retiredCountOf(query.withBots),
    ...horizonParts(db, projects, context.retired === true),
    conversionCounts: withConversions
      ? `, countIf(type = 'pageview') AS pageviews, ${GOALS.map(goalFigures).join(', ')}`
      : '',
    retiredConversionCounts: withConversions ? retiredConversionCounts() : '',
    // Typed as the conversions' own columns (counts UInt64, values Int64), so that every part of a
    // UNION ALL has one type per column however its parts combine.
    noConversions: withConversions
      ? `, toUInt64(0) AS pageviews, ${GOALS.map(noGoalFigures).join(', ')}`
      : '',
    conversionsOf: (alias) =>
      withConversions
        ? `, ${CONVERSION_FIGURES.map((c) => `${alias}.${c} AS ${c}`).join(', ')}`
        : '',
  };
}

/**
 * The horizon conditions of a statement over the projects `projects` (RowParts.sinceHorizon,
 * beforeHorizon): with retired events the raw rows at or after their project's horizon and the
 * rollup rows before it; without, none (the statement as without retention).
 */
export function horizonParts(
  db: string,
  projects: string,
  retired: boolean,
): Pick<RowParts, 'sinceHorizon' | 'beforeHorizon'> {
  return retired
    ? {
        sinceHorizon: (time) => ` AND ${rawSinceHorizon(db, projects, time)}`,
        beforeHorizon: ` AND ${retiredBeforeHorizon(db, projects)}`,
      }
    : { sinceHorizon: () => '', beforeHorizon: '' };
}

/**
 * The retired counterpart of countOf (docs/architecture.md, "Retention"): the clicks a row of
 * `clicks_retired` stands for, humans only unless with bots.
 */
export function retiredCountOf(withBots: boolean): string {
  return withBots ? 'sum(n)' : 'sumIf(n, is_bot = 0)';
}

/** `, sumIf(n, type = 'pageview') AS pageviews, …`: conversionCounts over `conversions_retired`. */
export function retiredConversionCounts(): string {
  const goals = GOALS.map(
    (n) => `sumIf(n, type = 'goal_${n}') AS g${n}c, sumIf(value, type = 'goal_${n}') AS g${n}v`,
  );
  return `, sumIf(n, type = 'pageview') AS pageviews, ${goals.join(', ')}`;
}

/** A goal's count and value over `conversions`. */
function goalFigures(n: number): string {
  return `countIf(type = 'goal_${n}') AS g${n}c, sumIf(value, type = 'goal_${n}') AS g${n}v`;
}

/** A goal's count and value of rows without conversions. */
function noGoalFigures(n: number): string {
  return `toUInt64(0) AS g${n}c, toInt64(0) AS g${n}v`;
}

/**
 * A group or pivot value as column `name`: the field's whitelisted expression (groupExpression);
 * a multi-value tag gives a row per value (one with null when the link has none).
 */
export function valueOf(field: GroupField | null, name: 'g' | 'p'): string {
  if (field === null) return `NULL AS ${name}`;
  const expression = groupExpression(field);
  if (!isMultiTagField(field)) return `${expression} AS ${name}`;
  const values = `arrayMap(x -> toNullable(x), ${expression})`;
  return `arrayJoin(if(empty(${expression}), [NULL], ${values})) AS ${name}`;
}
