import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A publishable key per project (docs/api.md, "Keys"): `pk_` and 32 lowercase hex characters, the
 * `data-key` of the tracking script, which may record conversions and create links from pages but
 * nothing else. Not a secret, so stored as it is; found by equality through its unique index.
 *
 * The default fills every existing project with a key of its own (a volatile default is evaluated
 * per row) and serves rows inserted without one; the service generates its keys itself
 * (generatePublishableKey). 128 bits are taken from the SHA-256 of two random UUIDs (PostgreSQL's
 * strong random source, 244 random bits), with no extension needed.
 */
export class PublishableKeys1764010000000 implements MigrationInterface {
  name = 'PublishableKeys1764010000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE projects
        ADD COLUMN publishable_key text NOT NULL
          DEFAULT 'pk_' || left(encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'hex'), 32)
          CONSTRAINT ck_projects_publishable_key CHECK (publishable_key ~ '^pk_[0-9a-f]{32}$')`);
    await q.query(
      `ALTER TABLE projects ADD CONSTRAINT uq_projects_publishable_key UNIQUE (publishable_key)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE projects DROP COLUMN publishable_key`);
  }
}
