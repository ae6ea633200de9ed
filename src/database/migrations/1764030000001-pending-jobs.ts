import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The jobs of durable queues waiting in the in-process transport (PendingJobEntity), so that an
 * embedded service runs after a restart what was pending (docs/architecture.md, "API keys, jobs,
 * logging, shutdown"). A job id is unique within its queue, as in BullMQ: adding it again is a no-op. The
 * index serves the reads in run_at order (PendingJobs.next).
 */
export class PendingJobs1764030000001 implements MigrationInterface {
  name = 'PendingJobs1764030000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE pending_jobs (
        queue text NOT NULL,
        id text NOT NULL,
        name text NOT NULL,
        data jsonb NOT NULL,
        attempts integer NOT NULL,
        attempts_made integer NOT NULL DEFAULT 0,
        fixed_backoff_ms integer NULL,
        run_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_pending_jobs PRIMARY KEY (queue, id)
      )`);
    await q.query(`CREATE INDEX ix_pending_jobs_queue_run_at ON pending_jobs (queue, run_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE pending_jobs`);
  }
}
