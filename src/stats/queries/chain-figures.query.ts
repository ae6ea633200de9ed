import { GOALS } from '../../common/goals';
import { horizonParts } from './row-parts';

/**
 * The chain figures the store keeps, as statistics read them (docs/architecture.md, "Share
 * chains"): per (ancestor, generation below it), its descendants' activity, from the two tables
 * the views sum the events into, and the corrections of moved links.
 */

/** What a statement's chain figures read (keptFiguresSql, movedCorrectionsSql). */
export interface ChainFigures {
  db: string;
  /** The placeholder of the project ids. */
  projects: string;
  /** The period's condition on a time column, or null for all time. */
  period: ((column: string) => string) | null;
  withBots: boolean;
  /** The conversion figures to correct (CONVERSION_FIGURES, or none). */
  conversions: readonly string[];
  /**
   * Whether the projects have retired events (docs/architecture.md, "Retention"): their rollups
   * keep the chain they were stamped with, so the corrections read them too.
   */
  retired?: boolean;
}

/**
 * The corrections of moved links (`chain_moves`; docs/architecture.md, "Share chains"): each one's
 * clicks and conversions (in the period, by their key) stamped with a chain other than its latest
 * (`link_chains FINAL`; none: a root) are taken from each ancestor of the stamp (-1), at their
 * generation below it, and given to each latest one (+1). Rows: ancestor_id, generation (1: the
 * parent), n_clicks, and n_<figure> per conversion figure (Int64), as `chain_hourly` sums them.
 */
export function movedCorrectionsSql(moved: ChainFigures): string {
  const { db, projects, conversions } = moved;
  const period = (column: string): string => (moved.period ? ` AND ${moved.period(column)}` : '');
  const list = (as: (name: string) => string): string =>
    conversions.map((name) => `, ${as(name)}`).join('');
  const links = `SELECT link_id FROM ${db}.chain_moves WHERE project_id IN ${projects}`;
  const clicks = moved.withBots ? 'count()' : 'countIf(is_bot = 0)';
  // With retired events, each side of the projects' horizons (retired-horizon.ts).
  const { sinceHorizon, beforeHorizon } = horizonParts(db, projects, moved.retired === true);
  const conversionEvents =
    conversions.length > 0
      ? `UNION ALL
            SELECT link_id, ancestors AS stamped, toInt64(0) AS e_clicks${list((c) => `${conversionFigure(c)} AS e_${c}`)}
            FROM ${db}.conversions
            WHERE project_id IN ${projects} AND link_id IN (${links}) AND chain_stamped = 1${period('converted_at')}${sinceHorizon('converted_at')}
            GROUP BY link_id, ancestors`
      : '';
  const retiredClicks = moved.withBots ? 'sum(n)' : 'sumIf(n, is_bot = 0)';
  const retiredEvents = moved.retired
    ? `
            UNION ALL
            SELECT link_id, ancestors AS stamped, toInt64(${retiredClicks}) AS e_clicks${list((c) => `toInt64(0) AS e_${c}`)}
            FROM ${db}.clicks_retired
            WHERE project_id IN ${projects} AND link_id IN (${links}) AND chain_stamped = 1${period('hour')}${beforeHorizon}
            GROUP BY link_id, ancestors
            ${
              conversions.length > 0
                ? `UNION ALL
            SELECT link_id, ancestors AS stamped, toInt64(0) AS e_clicks${list((c) => `${retiredFigure(c)} AS e_${c}`)}
            FROM ${db}.conversions_retired
            WHERE project_id IN ${projects} AND link_id IN (${links}) AND chain_stamped = 1${period('hour')}${beforeHorizon}
            GROUP BY link_id, ancestors`
                : ''
            }`
    : '';
  const events = `SELECT link_id, ancestors AS stamped, toInt64(${clicks}) AS e_clicks${list((c) => `toInt64(0) AS e_${c}`)}
            FROM ${db}.clicks
            WHERE project_id IN ${projects} AND link_id IN (${links}) AND chain_stamped = 1${period('toStartOfHour(clicked_at)')}${sinceHorizon('clicked_at')}
            GROUP BY link_id, ancestors
            ${conversionEvents}${retiredEvents}`;
  const stale = `SELECT e.stamped AS stamped, m.ancestors AS latest, e.e_clicks AS e_clicks${list((c) => `e.e_${c} AS e_${c}`)}
          FROM (${events}) AS e
          LEFT JOIN (SELECT link_id, ancestors FROM ${db}.link_chains FINAL
                     WHERE project_id IN ${projects} AND link_id IN (${links})) AS m
            ON m.link_id = e.link_id
          WHERE e.stamped != m.ancestors`;
  // (ancestor, generation below it, sign) for each ancestor of the stamp and of the latest chain.
  const moves = `arrayConcat(
            arrayMap((a, i) -> (a, toUInt8(i), toInt64(-1)), stamped, arrayEnumerate(stamped)),
            arrayMap((a, i) -> (a, toUInt8(i), toInt64(1)), latest, arrayEnumerate(latest)))`;
  return `SELECT t.1 AS ancestor_id, t.2 AS generation, t.3 * e_clicks AS n_clicks${list((c) => `t.3 * e_${c} AS n_${c}`)}
          FROM (${stale})
          ARRAY JOIN ${moves} AS t`;
}

/**
 * The kept figures in the period (by hour), of the ancestors `ancestors` (a subquery or list; all
 * when absent): clicks from `chain_clicks_hourly`, conversions (and clicks backfilled for events
 * stored before chain stamps) from `chain_hourly`. Rows: ancestor_id, generation, n_clicks (with
 * bots when asked), n_<figure> per conversion figure (Int64).
 */
export function keptFiguresSql(figures: ChainFigures, ancestors?: string): string {
  const { db, projects, conversions } = figures;
  const where = `project_id IN ${projects}${figures.period ? ` AND ${figures.period('hour')}` : ''}${
    ancestors ? ` AND ancestor_id IN (${ancestors})` : ''
  }`;
  const counted = figures.withBots ? 'clicks + bots' : 'clicks';
  const list = (as: (name: string) => string): string =>
    conversions.map((name) => `, ${as(name)}`).join('');
  return `SELECT ancestor_id, generation, ${counted} AS n_clicks${list((c) => `toInt64(0) AS n_${c}`)}
          FROM ${db}.chain_clicks_hourly WHERE ${where}
          UNION ALL
          SELECT ancestor_id, generation, ${counted} AS n_clicks${list((c) => `${c} AS n_${c}`)}
          FROM ${db}.chain_hourly WHERE ${where}`;
}

/** A conversion figure over `conversions_retired` (sums of `n` and `value`), as Int64. */
function retiredFigure(figure: string): string {
  return conversionFigure(figure).replace('countIf(', 'sumIf(n, ');
}

/** A conversion figure (pageviews, g<n>c, g<n>v) over `conversions`, as Int64. */
function conversionFigure(figure: string): string {
  const goal = /^g(\d+)([cv])$/.exec(figure);
  if (!goal) return `toInt64(countIf(type = 'pageview'))`;
  if (!GOALS.includes(Number(goal[1]) as (typeof GOALS)[number]))
    throw new Error(`not a goal figure: ${figure}`);
  return goal[2] === 'c'
    ? `toInt64(countIf(type = 'goal_${goal[1]}'))`
    : `toInt64(sumIf(value, type = 'goal_${goal[1]}'))`;
}
