import { MigrationInterface, QueryRunner } from 'typeorm';

/** Subscriptions, applications, projects, users and domains: the administration model. */
export class Admin1763884800000 implements MigrationInterface {
  name = 'Admin1763884800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE subscriptions (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        name text NOT NULL,
        key_hash char(64) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_subscriptions PRIMARY KEY (id),
        CONSTRAINT uq_subscriptions_key_hash UNIQUE (key_hash)
      )`);
    await q.query(`
      CREATE TABLE applications (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        subscription_id uuid NOT NULL,
        name text NOT NULL,
        key_hash char(64) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_applications PRIMARY KEY (id),
        CONSTRAINT uq_applications_key_hash UNIQUE (key_hash),
        CONSTRAINT fk_applications_subscription FOREIGN KEY (subscription_id)
          REFERENCES subscriptions (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX ix_applications_subscription ON applications (subscription_id)`);
    await q.query(`
      CREATE TABLE projects (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        subscription_id uuid NOT NULL,
        name text NOT NULL,
        api_key char(64) NOT NULL,
        default_domain text NOT NULL,
        conversions_enabled boolean NOT NULL DEFAULT false,
        conversion_domains jsonb NOT NULL DEFAULT '[]'::jsonb,
        goal_labels jsonb NOT NULL DEFAULT '{}'::jsonb,
        settings jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz NULL,
        CONSTRAINT pk_projects PRIMARY KEY (id),
        CONSTRAINT uq_projects_api_key UNIQUE (api_key),
        CONSTRAINT fk_projects_subscription FOREIGN KEY (subscription_id)
          REFERENCES subscriptions (id) ON DELETE CASCADE
      )`);
    // A destroyed project frees its name; its key stays unique forever.
    await q.query(
      `CREATE UNIQUE INDEX uq_projects_name_live ON projects (name) WHERE deleted_at IS NULL`,
    );
    await q.query(`CREATE INDEX ix_projects_subscription ON projects (subscription_id)`);
    await q.query(`
      CREATE TABLE users (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        email text NOT NULL,
        username text NOT NULL,
        name text NOT NULL,
        default_project_id uuid NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_users PRIMARY KEY (id),
        CONSTRAINT uq_users_email UNIQUE (email),
        CONSTRAINT uq_users_username UNIQUE (username),
        CONSTRAINT fk_users_default_project FOREIGN KEY (default_project_id)
          REFERENCES projects (id) ON DELETE SET NULL
      )`);
    await q.query(`
      CREATE TABLE project_users (
        project_id uuid NOT NULL,
        user_id uuid NOT NULL,
        role text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_project_users PRIMARY KEY (project_id, user_id),
        CONSTRAINT ck_project_users_role CHECK (role IN ('admin', 'sharer', 'viewer')),
        CONSTRAINT fk_project_users_project FOREIGN KEY (project_id)
          REFERENCES projects (id) ON DELETE CASCADE,
        CONSTRAINT fk_project_users_user FOREIGN KEY (user_id)
          REFERENCES users (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX ix_project_users_user ON project_users (user_id)`);
    await q.query(`
      CREATE TABLE domains (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        subscription_id uuid NOT NULL,
        hostname text NOT NULL,
        root_redirect text NOT NULL,
        not_found_redirect text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_domains PRIMARY KEY (id),
        CONSTRAINT uq_domains_hostname UNIQUE (hostname),
        CONSTRAINT fk_domains_subscription FOREIGN KEY (subscription_id)
          REFERENCES subscriptions (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX ix_domains_subscription ON domains (subscription_id)`);
    await q.query(`
      CREATE TABLE project_domains (
        project_id uuid NOT NULL,
        domain_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_project_domains PRIMARY KEY (project_id, domain_id),
        CONSTRAINT fk_project_domains_project FOREIGN KEY (project_id)
          REFERENCES projects (id) ON DELETE CASCADE,
        CONSTRAINT fk_project_domains_domain FOREIGN KEY (domain_id)
          REFERENCES domains (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX ix_project_domains_domain ON project_domains (domain_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'project_domains',
      'domains',
      'project_users',
      'users',
      'projects',
      'applications',
      'subscriptions',
    ]) {
      await q.query(`DROP TABLE ${table}`);
    }
  }
}
