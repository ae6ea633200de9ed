import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/**
 * How far a project's events are retired (table `retention_state`, migration Retention):
 * every raw event before `retiredUntil` is gone, its rollups kept; `rolledUntil` is the end of
 * the chunk being retired (equal to `retiredUntil` between chunks): its rollups may be written
 * already, its raw events not all deleted yet. `sweepToken`: the sweep of late events under way
 * (RetentionService.sweep), null or absent for none.
 */
export interface RetentionState {
  retiredUntil: Date;
  rolledUntil: Date;
  sweepToken?: string | null;
}

/** A lock of the retention job, held for a run; release it when the run ends. */
export interface RetentionLock {
  release(): Promise<void>;
}

/** The key of the job's advisory lock: one run at a time in the whole instance. */
const RETENTION_LOCK = 7_361_450;

/** The owner of `retention_state` (docs/architecture.md, "Table owners"). */
@Injectable()
export class RetentionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The project's state, or null before its first chunk. */
  async state(projectId: string): Promise<RetentionState | null> {
    const rows = await this.dataSource.query<
      { retired_until: Date; rolled_until: Date; sweep_token: string | null }[]
    >(
      `SELECT retired_until, rolled_until, sweep_token::text AS sweep_token
       FROM retention_state WHERE project_id = $1`,
      [projectId],
    );
    if (rows.length === 0) return null;
    return {
      retiredUntil: new Date(rows[0].retired_until),
      rolledUntil: new Date(rows[0].rolled_until),
      sweepToken: rows[0].sweep_token,
    };
  }

  /** Writes the project's state; a sweep token absent (undefined) is left as it is. */
  async save(projectId: string, state: RetentionState): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO retention_state (project_id, retired_until, rolled_until, sweep_token, updated_at)
       VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (project_id) DO UPDATE
         SET retired_until = excluded.retired_until, rolled_until = excluded.rolled_until,
             sweep_token = CASE WHEN $5 THEN excluded.sweep_token
                                ELSE retention_state.sweep_token END,
             updated_at = now()`,
      [
        projectId,
        state.retiredUntil,
        state.rolledUntil,
        state.sweepToken ?? null,
        state.sweepToken !== undefined,
      ],
    );
  }

  /**
   * The job's lock, held by a connection of its own for the run, or null when another process
   * holds it. On PGlite (one process, one session) there is none to take: the job's periodic
   * task never runs twice at a time in a process.
   */
  async lock(): Promise<RetentionLock | null> {
    if (!('url' in this.dataSource.options && this.dataSource.options.url)) {
      return { release: () => Promise.resolve() };
    }
    const runner = this.dataSource.createQueryRunner();
    try {
      const [row] = await runner.manager.query<{ locked: boolean }[]>(
        'SELECT pg_try_advisory_lock($1) AS locked',
        [RETENTION_LOCK],
      );
      if (!row.locked) {
        await runner.release();
        return null;
      }
    } catch (error) {
      await runner.release();
      throw error;
    }
    return {
      // A connection that broke is dropped from the pool by the driver, its session lock with it.
      release: async () => {
        try {
          await runner.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK]);
        } finally {
          await runner.release();
        }
      },
    };
  }
}
