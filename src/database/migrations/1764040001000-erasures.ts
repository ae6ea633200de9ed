import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit of erasures (docs/api.md, "Erasure"): one row per `POST /projects/{api_key}/erase`,
 * with what kind of identifier it named, the rows it changed in each store and when. It holds no
 * value of the identifier, not even a hash: a second identical erasure is answered the same way
 * (zero rows) without it. Listed newest first per project (ix_erasures_project).
 */
export class Erasures1764040001000 implements MigrationInterface {
  name = 'Erasures1764040001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE erasures (
        id uuid NOT NULL,
        project_id uuid NOT NULL,
        kind text NOT NULL,
        rows jsonb NOT NULL,
        complete boolean NOT NULL,
        erased_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_erasures PRIMARY KEY (id),
        CONSTRAINT ck_erasures_kind CHECK (kind IN ('session_id', 'clicker_id', 'ip', 'sharer_id', 'user_id')),
        CONSTRAINT fk_erasures_project FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX ix_erasures_project ON erasures (project_id, erased_at DESC, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE erasures`);
  }
}
