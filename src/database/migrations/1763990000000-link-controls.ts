import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Link controls (docs/api.md, "Link controls"): expiry by time or by counted clicks, where an
 * expired link sends visitors, disabling, device and country targeting, and a password. Every
 * column is null (disabled: false) for a link without controls; `rule_redirects` holds the
 * targeting URLs as the redirect serves them (redirection pattern and UTM applied when they are
 * set, like redirect_url when a link is created). Adding them rewrites no row.
 */
export class LinkControls1763990000000 implements MigrationInterface {
  name = 'LinkControls1763990000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE links
        ADD COLUMN expires_at timestamptz,
        ADD COLUMN max_clicks integer CHECK (max_clicks > 0),
        ADD COLUMN expired_url text,
        ADD COLUMN disabled boolean NOT NULL DEFAULT false,
        ADD COLUMN ios_url text,
        ADD COLUMN android_url text,
        ADD COLUMN geo jsonb,
        ADD COLUMN rule_redirects jsonb,
        ADD COLUMN password_hash text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE links
        DROP COLUMN expires_at,
        DROP COLUMN max_clicks,
        DROP COLUMN expired_url,
        DROP COLUMN disabled,
        DROP COLUMN ios_url,
        DROP COLUMN android_url,
        DROP COLUMN geo,
        DROP COLUMN rule_redirects,
        DROP COLUMN password_hash`);
  }
}
