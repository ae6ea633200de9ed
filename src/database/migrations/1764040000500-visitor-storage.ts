import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How much of a visitor each project keeps (docs/api.md, "Addresses" under "Security"):
 * `ip_storage` (NULL: the instance's CLICK_IP, so that a project never set follows the instance as
 * before) and `ua_storage` (`full` unless set). Constant defaults: no rewrite of the table.
 */
export class VisitorStorage1764040000500 implements MigrationInterface {
  name = 'VisitorStorage1764040000500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE projects
        ADD COLUMN ip_storage text NULL
          CONSTRAINT ck_projects_ip_storage CHECK (ip_storage IN ('full', 'anonymised', 'none')),
        ADD COLUMN ua_storage text NOT NULL DEFAULT 'full'
          CONSTRAINT ck_projects_ua_storage CHECK (ua_storage IN ('full', 'parsed'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE projects DROP COLUMN ip_storage, DROP COLUMN ua_storage`);
  }
}
