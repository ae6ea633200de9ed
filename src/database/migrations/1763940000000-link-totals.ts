import { MigrationInterface, QueryRunner } from 'typeorm';

/** A per-link figure: its column, and its sum over rollup rows `d` carrying a `sign` (+1 or -1). */
type Figure = [column: string, sum: string];

const CLICK_FIGURES: Figure[] = [
  ['clicks', 'SUM(d.sign * d.clicks)'],
  ['bot_clicks', 'SUM(d.sign * d.bot_clicks)'],
];

const ofType = (type: string, field: 'count' | 'value'): string =>
  `COALESCE(SUM(d.sign * d.${field}) FILTER (WHERE d.type = '${type}'), 0)`;

export const CONVERSION_FIGURES: Figure[] = [
  ['pageviews', ofType('pageview', 'count')],
  ...Array.from({ length: 10 }, (_, i): Figure[] => [
    [`goal_${i + 1}_count`, ofType(`goal_${i + 1}`, 'count')],
    [`goal_${i + 1}_value`, ofType(`goal_${i + 1}`, 'value')],
  ]).flat(),
];

/**
 * The trigger function that adds a statement's new rollup rows to the per-link totals and takes
 * away its old ones (an update has both; a transition table exists only for the events its trigger
 * names, hence TG_OP). A delete only updates: when a link is deleted, its totals row goes with it.
 */
function totalsFunction(name: string, target: string, figures: Figure[]): string {
  const columns = figures.map(([column]) => column).join(', ');
  const sums = figures.map(([column, sum]) => `${sum} AS ${column}`).join(', ');
  const upsert = (rows: string): string =>
    `INSERT INTO ${target} (link_id, ${columns})
     SELECT d.link_id, ${sums} FROM (${rows}) d GROUP BY d.link_id ORDER BY d.link_id
     ON CONFLICT (link_id) DO UPDATE SET ${figures.map(([c]) => `${c} = ${target}.${c} + EXCLUDED.${c}`).join(', ')};`;
  return `
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        ${upsert('SELECT *, 1 AS sign FROM new_rows')}
      ELSIF TG_OP = 'UPDATE' THEN
        ${upsert('SELECT *, 1 AS sign FROM new_rows UNION ALL SELECT *, -1 AS sign FROM old_rows')}
      ELSE
        UPDATE ${target} t SET ${figures.map(([c]) => `${c} = t.${c} - o.${c}`).join(', ')}
        FROM (SELECT d.link_id, ${sums} FROM (SELECT *, 1 AS sign FROM old_rows) d GROUP BY d.link_id) o
        WHERE t.link_id = o.link_id;
      END IF;
      RETURN NULL;
    END $$`;
}

/** The per-link totals of the rollup rows already in `source`. */
function totalsBackfill(target: string, source: string, figures: Figure[]): string {
  return `INSERT INTO ${target} (link_id, ${figures.map(([column]) => column).join(', ')})
          SELECT d.link_id, ${figures.map(([column, sum]) => `${sum} AS ${column}`).join(', ')}
          FROM (SELECT *, 1 AS sign FROM ${source}) d GROUP BY d.link_id`;
}

/**
 * All-time figures per link, the sums of its hourly rollups: totals.json reads them for the links
 * shared in its period instead of summing every hourly row those links ever had (SPEC.md 4.8:
 * all-time figures). Statement-level triggers on the hourly rollups keep them equal to those sums
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
    await q.query(totalsFunction('link_click_totals_apply', 'link_click_totals', CLICK_FIGURES));
    await q.query(totalsFunction('link_conversion_totals_apply', 'link_conversion_totals', CONVERSION_FIGURES));
    for (const [table, fn] of [
      ['link_clicks_hourly', 'link_click_totals_apply'],
      ['link_conversions_hourly', 'link_conversion_totals_apply'],
    ]) {
      await q.query(
        `CREATE TRIGGER tr_${table}_insert AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
      );
      await q.query(
        `CREATE TRIGGER tr_${table}_update AFTER UPDATE ON ${table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
      );
      await q.query(
        `CREATE TRIGGER tr_${table}_delete AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
      );
    }
    // The rollups written so far (the triggers' lock on the rollups holds writers off until commit).
    await q.query(totalsBackfill('link_click_totals', 'link_clicks_hourly', CLICK_FIGURES));
    await q.query(totalsBackfill('link_conversion_totals', 'link_conversions_hourly', CONVERSION_FIGURES));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['link_clicks_hourly', 'link_conversions_hourly']) {
      for (const event of ['insert', 'update', 'delete']) await q.query(`DROP TRIGGER tr_${table}_${event} ON ${table}`);
    }
    await q.query(`DROP FUNCTION link_click_totals_apply()`);
    await q.query(`DROP FUNCTION link_conversion_totals_apply()`);
    await q.query(`DROP TABLE link_conversion_totals`);
    await q.query(`DROP TABLE link_click_totals`);
  }
}
