import { MigrationInterface, QueryRunner } from 'typeorm';

/** A per-link figure: its column, and its sum over rollup rows `d` carrying a `sign` (+1 or -1). */
type Figure = [column: string, sum: string];

const CLICK_FIGURES: Figure[] = [
  ['clicks', 'SUM(d.sign * d.clicks)'],
  ['bot_clicks', 'SUM(d.sign * d.bot_clicks)'],
];

const ofType = (type: string, field: 'count' | 'value'): string =>
  `COALESCE(SUM(d.sign * d.${field}) FILTER (WHERE d.type = '${type}'), 0)`;

const CONVERSION_FIGURES: Figure[] = [
  ['pageviews', ofType('pageview', 'count')],
  ...Array.from({ length: 10 }, (_, i): Figure[] => [
    [`goal_${i + 1}_count`, ofType(`goal_${i + 1}`, 'count')],
    [`goal_${i + 1}_value`, ofType(`goal_${i + 1}`, 'value')],
  ]).flat(),
];

/** The select list of the figures' sums. */
const sumsOf = (figures: Figure[]): string =>
  figures.map(([column, sum]) => `${sum} AS ${column}`).join(', ');

/** Adds the per-link sums of the rollup rows `rows` (each with its `sign`) to `target`. */
function addSums(target: string, figures: Figure[], rows: string): string {
  return `INSERT INTO ${target} (link_id, ${figures.map(([column]) => column).join(', ')})
     SELECT d.link_id, ${sumsOf(figures)}
     FROM (${rows}) d GROUP BY d.link_id ORDER BY d.link_id
     ON CONFLICT (link_id) DO UPDATE SET ${figures.map(([c]) => `${c} = ${target}.${c} + EXCLUDED.${c}`).join(', ')}`;
}

/**
 * The trigger function that adds a statement's new rollup rows to the per-link totals and takes
 * away its old ones (an update has both; a transition table exists only for the events its trigger
 * names, hence TG_OP). A delete only updates: when a link is deleted, its totals row goes with it.
 */
function totalsFunction(name: string, target: string, figures: Figure[]): string {
  return `
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        ${addSums(target, figures, 'SELECT *, 1 AS sign FROM new_rows')};
      ELSIF TG_OP = 'UPDATE' THEN
        ${addSums(target, figures, 'SELECT *, 1 AS sign FROM new_rows UNION ALL SELECT *, -1 AS sign FROM old_rows')};
      ELSE
        UPDATE ${target} t SET ${figures.map(([c]) => `${c} = t.${c} - o.${c}`).join(', ')}
        FROM (SELECT d.link_id, ${sumsOf(figures)} FROM (SELECT *, 1 AS sign FROM old_rows) d GROUP BY d.link_id) o
        WHERE t.link_id = o.link_id;
      END IF;
      RETURN NULL;
    END $$`;
}

/** The per-link totals, each from its rollup table, and the function that keeps them. */
const TOTALS = [
  {
    target: 'link_click_totals',
    source: 'link_clicks_hourly',
    fn: 'link_click_totals_apply',
    figures: CLICK_FIGURES,
  },
  {
    target: 'link_conversion_totals',
    source: 'link_conversions_hourly',
    fn: 'link_conversion_totals_apply',
    figures: CONVERSION_FIGURES,
  },
];

/** The statement triggers on each rollup table, with the transition tables each event has. */
const TRIGGER_EVENTS = [
  ['insert', 'NEW TABLE AS new_rows'],
  ['update', 'OLD TABLE AS old_rows NEW TABLE AS new_rows'],
  ['delete', 'OLD TABLE AS old_rows'],
];

/**
 * The statements that fill the per-link totals from the rollup rows already stored (the migration;
 * bench:stats after seeding the rollups in replica mode, where triggers do not fire).
 */
export const LINK_TOTALS_BACKFILL = TOTALS.map(({ target, source, figures }) =>
  addSums(target, figures, `SELECT *, 1 AS sign FROM ${source}`),
);

/**
 * All-time figures per link, the sums of its hourly rollups: totals.json reads them for the links
 * shared in its period instead of summing every hourly row those links ever had.
 * Statement-level triggers on the hourly rollups keep them equal to those sums
 * whoever writes the rollups (click and conversion ingestion, an operator's fix): one set-based
 * upsert per statement, in the writer's transaction, links in ascending order like the rollup
 * upserts so concurrent ingests lock rows in one order.
 */
export class LinkTotals1763940000000 implements MigrationInterface {
  name = 'LinkTotals1763940000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE link_click_totals (
        link_id bigint NOT NULL,
        clicks bigint NOT NULL DEFAULT 0,
        bot_clicks bigint NOT NULL DEFAULT 0,
        CONSTRAINT pk_link_click_totals PRIMARY KEY (link_id),
        CONSTRAINT fk_link_click_totals_link FOREIGN KEY (link_id) REFERENCES links (id) ON DELETE CASCADE
      )`);
    // One row per link with conversions, every type a column: totals join it like the clicks.
    await q.query(`
      CREATE TABLE link_conversion_totals (
        link_id bigint NOT NULL,
        ${CONVERSION_FIGURES.map(([column]) => `${column} bigint NOT NULL DEFAULT 0`).join(',\n        ')},
        CONSTRAINT pk_link_conversion_totals PRIMARY KEY (link_id),
        CONSTRAINT fk_link_conversion_totals_link FOREIGN KEY (link_id) REFERENCES links (id) ON DELETE CASCADE
      )`);
    for (const { target, source, fn, figures } of TOTALS) {
      await q.query(totalsFunction(fn, target, figures));
      for (const [event, transitions] of TRIGGER_EVENTS) {
        await q.query(
          `CREATE TRIGGER tr_${source}_${event} AFTER ${event.toUpperCase()} ON ${source} REFERENCING ${transitions} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
        );
      }
    }
    // The rollups written so far (the triggers' lock on the rollups holds writers off until commit).
    for (const statement of LINK_TOTALS_BACKFILL) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { target, source, fn } of TOTALS) {
      for (const [event] of TRIGGER_EVENTS)
        await q.query(`DROP TRIGGER tr_${source}_${event} ON ${source}`);
      await q.query(`DROP FUNCTION ${fn}()`);
      await q.query(`DROP TABLE ${target}`);
    }
  }
}
