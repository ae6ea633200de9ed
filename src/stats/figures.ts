import { GOALS } from '../common/goals';

/** A group's or pivot's value: a field's value, or null for the links without one. */
export type GroupValue = string | number | null;

/** Figures of a total, group or pivot: clicks, shares and, with conversions, counts and values. */
export interface Figures {
  clicks: number;
  shares: number;
  pageviews: number;
  goals: Record<number, { count: number; value: number }>;
  /** with_chain: the figures of the descendants (docs/api.md, "Share chains"). */
  chain?: Figures;
}

export interface GroupRow extends Figures {
  value: GroupValue;
}

/** A pivot of a group: its value and figures. */
export type PivotRow = GroupRow;

/**
 * A pivot row with the latest shared time of its links (for sort type shared_at), as ClickHouse
 * writes it ('YYYY-MM-DD hh:mm:ss.sss', UTC): its text order is its time order.
 */
export type SortablePivot = PivotRow & { lastShared: string | null };

/** The key of a null group or pivot value, apart from every string (the statements use it too). */
export const NULL_KEY = '\u0000null';

/** A group or pivot value as a string key (null apart from every string). */
export function keyOf(value: GroupValue): string {
  return value === null ? NULL_KEY : String(value);
}

/** A group or pivot value as read from a row (an array value, of a multi-value tag, as JSON). */
export function readValue(value: unknown): GroupValue {
  if (typeof value === 'number' || typeof value === 'string') return value;
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/**
 * The figures of a row, from its columns under a prefix (clicks, shares, pageviews, g1c, g1v, …):
 * a goal when the row has its column, or every goal with `withConversions`; zeros for no row.
 */
export function readFigures(
  row: Record<string, unknown> | null | undefined,
  prefix = '',
  withConversions?: boolean,
): Figures {
  const names = figureNames(prefix);
  const read = (name: string): number => Number(row?.[name] ?? 0);
  const figures: Figures = {
    clicks: read(names.clicks),
    shares: read(names.shares),
    pageviews: read(names.pageviews),
    goals: {},
  };
  for (const goal of names.goals) {
    if ((row && goal.count in row) || withConversions) {
      figures.goals[goal.n] = { count: read(goal.count), value: read(goal.value) };
    }
  }
  if (row && names.chain in row) figures.chain = readFigures(row, `${prefix}chain_`);
  return figures;
}

/** A pivot of a row of columns p, the figures and last_shared. */
export function pivotOf(row: Record<string, unknown>): SortablePivot {
  return {
    value: readValue(row.p),
    ...readFigures(row),
    lastShared: typeof row.last_shared === 'string' ? row.last_shared : null,
  };
}

/**
 * A pivot from its tuple (p, clicks, shares[, pageviews, g1c, g1v, …]), figures in figureColumns'
 * order (queries/row-parts.ts), and its latest shared time.
 */
export function pivotOfTuple(
  tuple: unknown[],
  withConversions: boolean,
  lastShared: unknown,
): SortablePivot {
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
    for (const n of GOALS) {
      pivot.goals[n] = { count: Number(tuple[2 + 2 * n]), value: Number(tuple[3 + 2 * n]) };
    }
  }
  return pivot;
}

interface FigureNames {
  clicks: string;
  shares: string;
  pageviews: string;
  goals: { n: number; count: string; value: string }[];
  /** The chain clicks' column (present with with_chain). */
  chain: string;
}

/** The column names of the figures under a prefix, made once per prefix (readFigures: per row). */
const figureNamesByPrefix = new Map<string, FigureNames>();

function figureNames(prefix: string): FigureNames {
  let names = figureNamesByPrefix.get(prefix);
  if (!names) {
    names = {
      clicks: `${prefix}clicks`,
      shares: `${prefix}shares`,
      pageviews: `${prefix}pageviews`,
      goals: GOALS.map((n) => ({ n, count: `${prefix}g${n}c`, value: `${prefix}g${n}v` })),
      chain: `${prefix}chain_clicks`,
    };
    figureNamesByPrefix.set(prefix, names);
  }
  return names;
}
