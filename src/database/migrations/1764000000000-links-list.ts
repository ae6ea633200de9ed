import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The text `url/list.json`'s `search` matches (docs/api.md, "Listing links"): a link's URL, notes,
 * tag and campaign, one space between them (a search word holds no space, so it never matches
 * across two of them). Kept here as the index holds it; src/links/list/link-list-query.ts writes the
 * same expression (its spec checks that they agree), or the index would not serve the search.
 */
export const LINK_SEARCH_TEXT =
  "(original_url || ' ' || coalesce(notes, '') || ' ' || coalesce(tag, '') || ' ' || coalesce(campaign, ''))";

/**
 * Listing links (url/list.json): a trigram index (pg_trgm, GIN) over the searched text serves
 * `ILIKE '%word%'` for words of three characters or more. Where pg_trgm cannot be had (PGlite, the
 * embedded database, ships without it unless loaded; a server without the contrib modules, or a
 * role that may not create it) the migration leaves the index out and the search still answers, by
 * reading the project's links.
 */
export class LinksList1764000000000 implements MigrationInterface {
  name = 'LinksList1764000000000';

  async up(q: QueryRunner): Promise<void> {
    const rows = (await q.query(
      `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') AS available`,
    )) as { available: boolean }[];
    if (!rows[0]?.available) return;
    // pg_trgm is a trusted extension (PostgreSQL 13+: a role that may create objects in the
    // database may create it); where it is refused, the savepoint keeps the migration going.
    await q.query(`SAVEPOINT links_list_trgm`);
    try {
      await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    } catch {
      await q.query(`ROLLBACK TO SAVEPOINT links_list_trgm`);
      return;
    }
    await q.query(
      `CREATE INDEX IF NOT EXISTS ix_links_search ON links USING gin (${LINK_SEARCH_TEXT} gin_trgm_ops)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS ix_links_search`);
  }
}
