import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Imported clicks (docs/api.md, "Importing links"): the clicks the shortener a link was imported
 * from had counted, kept as one figure and never as click rows. Null for every link made here (and
 * for an imported link whose file gave no count). Adding a nullable column rewrites no row.
 */
export class ImportedClicks1764040000700 implements MigrationInterface {
  name = 'ImportedClicks1764040000700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE links ADD COLUMN imported_clicks bigint
         CONSTRAINT ck_links_imported_clicks CHECK (imported_clicks >= 0)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE links DROP COLUMN imported_clicks`);
  }
}
