import { MigrationInterface, QueryRunner } from 'typeorm';

/** Tracked links and the per-project metadata they refer to (campaigns, tools, user identities). */
export class Links1763900000000 implements MigrationInterface {
  name = 'Links1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE campaigns (
        project_id uuid NOT NULL,
        stub text NOT NULL,
        name text NULL,
        description text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_campaigns PRIMARY KEY (project_id, stub),
        CONSTRAINT fk_campaigns_project FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE tools (
        project_id uuid NOT NULL,
        key text NOT NULL,
        label text NOT NULL,
        application text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_tools PRIMARY KEY (project_id, key),
        CONSTRAINT fk_tools_project FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX ix_tools_label ON tools (project_id, label)`);
    await q.query(`
      CREATE TABLE user_identities (
        project_id uuid NOT NULL,
        user_id text NOT NULL,
        username text NULL,
        icon_url text NULL,
        profile_url text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_user_identities PRIMARY KEY (project_id, user_id),
        CONSTRAINT fk_user_identities_project FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE links (
        id bigint GENERATED ALWAYS AS IDENTITY,
        project_id uuid NOT NULL,
        svc_id text NOT NULL,
        domain text NOT NULL,
        path text NOT NULL,
        original_url text NOT NULL,
        redirect_url text NOT NULL,
        channel text NULL,
        service text NULL,
        tool text NOT NULL,
        application text NOT NULL,
        parent text NULL,
        sharer_id uuid NULL,
        username text NULL,
        service_userid text NULL,
        service_postid text NULL,
        service_postid_reach bigint NULL,
        service_postid_shared_at timestamptz NULL,
        campaign text NULL,
        user_id text NULL,
        tag text NULL,
        tag_2 text[] NULL,
        tag_3 text[] NULL,
        tag_4 text[] NULL,
        tag_5 text[] NULL,
        notes text NULL,
        static_key char(64) NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_links PRIMARY KEY (id),
        CONSTRAINT uq_links_svc_id UNIQUE (svc_id),
        CONSTRAINT uq_links_domain_path UNIQUE (domain, path),
        CONSTRAINT fk_links_project FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE CASCADE
      )`);
    // Static links: one per project and metadata fingerprint.
    await q.query(
      `CREATE UNIQUE INDEX uq_links_static ON links (project_id, static_key) WHERE static_key IS NOT NULL`,
    );
    await q.query(`CREATE INDEX ix_links_project_created ON links (project_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['links', 'user_identities', 'tools', 'campaigns']) {
      await q.query(`DROP TABLE ${table}`);
    }
  }
}
