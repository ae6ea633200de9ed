import { TestApp } from './app';

/**
 * Where a piece of personal data is (docs/api.md, "Erasure"): every row of every table of both
 * stores of a test app that contains `text`, as `table: rows` per store; `{}` where none does.
 */
export async function tracesOf(
  t: Pick<TestApp, 'db' | 'analytics'>,
  text: string,
): Promise<{ postgresql: Record<string, number>; analytics: Record<string, number> }> {
  return { postgresql: await inPostgresOf(t, text), analytics: await inAnalyticsOf(t, text) };
}

/** Every row of every PostgreSQL table of the app (its whole row as text) that contains `text`. */
export async function inPostgresOf(
  t: Pick<TestApp, 'db'>,
  text: string,
): Promise<Record<string, number>> {
  const { rows: tables } = await t.db.query<{ name: string }>(
    `SELECT quote_ident(table_name) AS name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const found: Record<string, number> = {};
  for (const { name } of tables) {
    const { rows } = await t.db.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM ${name} x WHERE strpos(x::text, $1) > 0`,
      [text],
    );
    if (Number(rows[0].n) > 0) found[name] = Number(rows[0].n);
  }
  return found;
}

/** Every row of every table of the app's analytics store (as a TabSeparated line) that contains `text`. */
export async function inAnalyticsOf(
  t: Pick<TestApp, 'analytics'>,
  text: string,
): Promise<Record<string, number>> {
  const db = t.analytics.database;
  const tables = await t.analytics.query<{ name: string }>(
    `SELECT name FROM system.tables WHERE database = {db:String} AND engine LIKE '%MergeTree'`,
    { db },
  );
  const found: Record<string, number> = {};
  for (const { name } of tables) {
    const [row] = await t.analytics.query<{ n: string }>(
      `SELECT toString(count()) AS n FROM ${db}.${name}
       WHERE position(formatRowNoNewline('TabSeparated', *), {text:String}) > 0`,
      { text },
    );
    if (Number(row.n) > 0) found[name] = Number(row.n);
  }
  return found;
}
