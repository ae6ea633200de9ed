import { MigrationInterface, QueryRunner } from 'typeorm';

/** Static finds a project's links by url (and metadata) whatever endpoint made them. */
export class LinksByUrl1763960000000 implements MigrationInterface {
  name = 'LinksByUrl1763960000000';

  async up(q: QueryRunner): Promise<void> {
    // md5: URLs may be longer than a B-tree entry allows.
    await q.query(`CREATE INDEX ix_links_project_url ON links (project_id, md5(original_url))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_links_project_url`);
  }
}
