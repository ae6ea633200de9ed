import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PendingJobEntity } from './pending-job.entity';

/** A pending job's row, as written and as read back. */
export type PendingJob = PendingJobEntity;

/** Rows per INSERT (9 parameters each, under PostgreSQL's 65,535). */
const ROWS_PER_INSERT = 500;

const COLUMNS = `queue, id, name, data, attempts, attempts_made AS "attemptsMade",
  fixed_backoff_ms AS "fixedBackoffMs", run_at AS "runAt", created_at AS "createdAt"`;

/**
 * The queries of `pending_jobs`, where the in-process transport keeps the jobs of durable queues
 * (DurableQueue). Runs on the service's DataSource: PGlite in embedded mode, the only mode without
 * Redis a deployment runs.
 */
@Injectable()
export class PendingJobs {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Writes jobs, one statement per ROWS_PER_INSERT; a job whose queue and id are already there is
   * left as it is (pk_pending_jobs). Returns the ids written.
   */
  async insert(jobs: PendingJob[]): Promise<Set<string>> {
    const written = new Set<string>();
    for (let i = 0; i < jobs.length; i += ROWS_PER_INSERT) {
      const params: unknown[] = [];
      const values = jobs.slice(i, i + ROWS_PER_INSERT).map((job) => {
        params.push(
          job.queue,
          job.id,
          job.name,
          JSON.stringify(job.data),
          job.attempts,
          job.attemptsMade,
          job.fixedBackoffMs,
          job.runAt.toISOString(),
          job.createdAt.toISOString(),
        );
        const n = params.length;
        return `($${n - 8}, $${n - 7}, $${n - 6}, $${n - 5}::jsonb, $${n - 4}::integer,
          $${n - 3}::integer, $${n - 2}::integer, $${n - 1}::timestamptz, $${n}::timestamptz)`;
      });
      const rows = await this.dataSource.query<{ id: string }[]>(
        `INSERT INTO pending_jobs
           (queue, id, name, data, attempts, attempts_made, fixed_backoff_ms, run_at, created_at)
         VALUES ${values.join(', ')}
         ON CONFLICT (queue, id) DO NOTHING
         RETURNING id`,
        params,
      );
      for (const { id } of rows) written.add(id);
    }
    return written;
  }

  /**
   * The first `limit` jobs of a queue by run_at (ix_pending_jobs_queue_run_at), due or not, but
   * those of `skip` (the ones the queue already holds).
   */
  async next(queue: string, skip: string[], limit: number): Promise<PendingJob[]> {
    // pg and PGlite both read timestamptz as a Date and jsonb as its value.
    return this.dataSource.query<PendingJob[]>(
      `SELECT ${COLUMNS} FROM pending_jobs
       WHERE queue = $1 AND id <> ALL ($2::text[])
       ORDER BY run_at, id
       LIMIT $3`,
      [queue, skip, limit],
    );
  }

  /** Records a failed attempt and when the job runs again. */
  async retry(queue: string, id: string, attemptsMade: number, runAt: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE pending_jobs SET attempts_made = $3, run_at = $4 WHERE queue = $1 AND id = $2`,
      [queue, id, attemptsMade, runAt.toISOString()],
    );
  }

  /** A job not yet due becomes due now: whether there was one. */
  async wake(queue: string, id: string): Promise<boolean> {
    const rows = await this.dataSource.query<{ id: string }[]>(
      // A data-modifying statement inside a SELECT: the driver answers its rows, not a count.
      `WITH woken AS (
         UPDATE pending_jobs SET run_at = now() WHERE queue = $1 AND id = $2 AND run_at > now()
         RETURNING id)
       SELECT id FROM woken`,
      [queue, id],
    );
    return rows.length > 0;
  }

  /** Forgets a job that succeeded or was given up. */
  async remove(queue: string, id: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM pending_jobs WHERE queue = $1 AND id = $2`, [
      queue,
      id,
    ]);
  }
}
