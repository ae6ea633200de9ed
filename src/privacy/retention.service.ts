import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AnalyticsClient, fromChTime } from '../analytics/analytics-client';
import { countStampStateWrite } from '../analytics/stamp-state';
import { PeriodicService, Schedule } from '../common/periodic-task';
import { AppConfig } from '../config/app-config';
import { ConversionsRepository } from '../conversions/conversions.repository';
import { ProjectRetentions } from '../projects/project-retentions.service';
import { retiredStateQuery } from '../stats/queries/stamp-state.query';
import {
  Chunk,
  EVENT_TABLES,
  EventTable,
  RetentionStatement,
  Sweep,
  deleteRawStatement,
  firstEventHourQuery,
  horizonStatement,
  lateEventsQuery,
  rollupStatement,
  sweepDeleteStatement,
  sweepIdCountQuery,
  sweepIdsStatement,
  sweepRollupStatement,
} from './retention-statements';
import { HorizonReaders } from './horizon-readers';
import { RetentionRepository } from './retention.repository';

/** Chunks retired per run at most (a chunk: one project's events of one calendar month at most). */
export const STEPS_PER_RUN = 4;
/** Late events of a table a sweep takes at most (the rest wait for the next run). */
const SWEEP_ROWS = 100_000;
/** Conversion records deleted per statement. */
const RECORDS_BATCH = 5_000;
/** Where jobs run, every 10 minutes. */
const SCHEDULE: Schedule = { everyMs: 600_000, atStart: false, failure: 'retention not applied' };

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const TABLES = Object.keys(EVENT_TABLES) as EventTable[];

/**
 * The stages of a step, in order (RetentionService.pause, stopAfter): its rollups written, the
 * horizon moved, the raw clicks deleted, the raw conversions deleted, the conversion records
 * deleted. A sweep pauses after its rollups ('rollup').
 */
export type RetentionStage = 'rollup' | 'horizon' | EventTable | 'records';

/** A statement as the client's query takes it. */
function args({ sql, params }: RetentionStatement): [string, RetentionStatement['params']] {
  return [sql, params];
}

/** The start of the hour `days` days before `now`: the events before it are retired. */
export function retentionCutoff(days: number, now: Date): Date {
  return new Date(Math.floor((now.getTime() - days * DAY_MS) / HOUR_MS) * HOUR_MS);
}

/** The first instant of the calendar month (UTC) after the one `at` is in. */
export function nextMonth(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/**
 * Retention (docs/api.md, "Retention"; docs/architecture.md, "Retention"): where jobs run, every
 * 10 minutes, the events of each project with a retention (its retention_days, else
 * RETENTION_DAYS) older than the start of the hour that many days ago lose their raw rows in both
 * stores; their hourly rollups stay (`clicks_retired`, `conversions_retired`). A run retires at
 * most STEPS_PER_RUN chunks, each a project's events of one calendar month at most, and the
 * state in PostgreSQL (`retention_state`) lets the next run resume where it stopped:
 *
 * 1. The chunk's end is written first (`rolledUntil`), so a chunk begun is finished as it began.
 * 2. The chunk's events are summed into the rollups, an insert per table under a token of the
 *    chunk (a second insert of it after a crash is skipped by the store). Statistics leave them
 *    out: they lie at or after the project's horizon (retired-horizon.ts).
 * 3. The project's horizon moves to the chunk's end (`retired_horizons`): statistics now read the
 *    chunk from its rollups and leave its raw rows out, whether the delete reached them or not.
 *    Before and after the move, the job waits for the statements reading horizons that were
 *    running then (HorizonReaders), so that none reads a horizon and tables of different moments.
 *    A project's first chunk then waits firstChunkWaitMs: a request that found no rollups before
 *    them reads raw rows without a horizon, and must have ended before they go.
 * 4. The chunk's raw events are deleted (a mutation per table, waited for), then the project's
 *    conversion records older than the chunk's end, in short statements.
 * 5. `retiredUntil` moves to the chunk's end.
 *
 * Then each project's late events (raw rows before its retiredUntil, stored after their chunk was
 * retired: a replayed journal, an import), which statistics leave out, are swept (sweep).
 */
@Injectable()
export class RetentionService extends PeriodicService {
  protected readonly logger = new Logger('RetentionService');
  protected readonly task = () => this.run();

  constructor(
    config: AppConfig,
    private readonly projects: ProjectRetentions,
    private readonly repository: RetentionRepository,
    private readonly conversions: ConversionsRepository,
    @Inject(AnalyticsClient) private readonly analytics: AnalyticsClient,
    private readonly readers: HorizonReaders,
  ) {
    super(SCHEDULE, config.runsWorkers);
    // Reads without a limit (0): a minute.
    this.firstChunkWaitMs = (2 * (config.analyticsMaxExecutionSeconds || 30) + 5) * 1000;
  }

  /**
   * How long a project's first chunk waits after its horizon moved, before its raw rows go: a
   * statistics request that read the project's state (no rollups) before the rollups existed reads
   * no horizon and raw rows only, so it must have ended; its statements run ANALYTICS_MAX_EXECUTION_SECONDS
   * each at most, and a request runs its main statements right after that read.
   */
  firstChunkWaitMs: number;

  /** The wait of a project's first chunk, after its horizon moved (firstChunkWaitMs). */
  async waitForFirstReaders(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, this.firstChunkWaitMs));
  }

  /** Awaited after each stage of a step or a sweep (tests: a statistic read at every stage). */
  pause?: (stage: RetentionStage) => Promise<void>;

  /**
   * One run: chunks of the projects with a retention, in project order, until each is retired up
   * to its cutoff or `maxSteps` chunks are; none when another process runs it. Returns the chunks
   * retired.
   */
  async run(maxSteps = STEPS_PER_RUN, now = new Date()): Promise<number> {
    const lock = await this.repository.lock();
    if (!lock) return 0;
    let steps = 0;
    try {
      for (const { projectId, days } of await this.projects.retained()) {
        const cutoff = retentionCutoff(days, now);
        while (steps < maxSteps && (await this.step(projectId, cutoff))) steps++;
        if (steps < maxSteps && (await this.sweep(projectId))) steps++;
        if (steps >= maxSteps) break;
      }
    } finally {
      await lock.release();
    }
    if (steps > 0) this.logger.log(`retention: ${steps} chunk(s) retired`);
    return steps;
  }

  /**
   * Retires the project's next chunk before `cutoff` (or finishes the one begun); false when
   * nothing is left before it. `stopAfter` stops after that stage, as a crash there would (tests).
   */
  async step(projectId: string, cutoff: Date, stopAfter?: RetentionStage): Promise<boolean> {
    const state = await this.repository.state(projectId);
    const from = state?.retiredUntil ?? new Date(0);
    const db = this.analytics.database;
    let to: Date;
    if (state && state.rolledUntil > state.retiredUntil) {
      to = state.rolledUntil;
    } else {
      if (from >= cutoff) return false;
      const first = await this.firstEvent(projectId, from, cutoff);
      if (first === null) {
        // Nothing to retire before the cutoff: the horizon and the next run start there (an
        // event stored before it later is a late one, swept).
        await this.write(horizonStatement(db, projectId, cutoff));
        await this.repository.save(projectId, { retiredUntil: cutoff, rolledUntil: cutoff });
        return false;
      }
      const end = nextMonth(first);
      to = end < cutoff ? end : cutoff;
      await this.repository.save(projectId, { retiredUntil: from, rolledUntil: to });
    }
    const chunk: Chunk = { projectId, from, to };
    const firstRollups =
      (await this.analytics.query(...args(retiredStateQuery(db, [projectId])))).length === 0;
    const stage = async (name: RetentionStage) => {
      await this.pause?.(name);
      return stopAfter === name;
    };
    for (const table of TABLES) await this.write(rollupStatement(db, table, chunk));
    await this.readers.settle();
    if (await stage('rollup')) return true;
    await this.write(horizonStatement(db, projectId, to));
    await this.readers.settle();
    if (await stage('horizon')) return true;
    if (firstRollups) await this.waitForFirstReaders();
    for (const table of TABLES) {
      await this.write(deleteRawStatement(db, table, chunk));
      if (await stage(table)) return true;
    }
    while (
      (await this.conversions.deleteRecordsBefore(projectId, to, RECORDS_BATCH)) === RECORDS_BATCH
    );
    if (await stage('records')) return true;
    await this.repository.save(projectId, { retiredUntil: to, rolledUntil: to });
    return true;
  }

  /**
   * Sweeps the project's late events: raw rows before its retiredUntil (so before its horizon,
   * which statistics leave out), stored after their chunk was retired. Their ids (SWEEP_ROWS per
   * table at most) are saved under a token first written in PostgreSQL, then they are summed into
   * the rollups under tokens of the sweep (counted from then on: before the horizon) and deleted;
   * a sweep stopped midway resumes with the same token and ids. Also deletes the project's late
   * conversion records. False when there was nothing to sweep.
   */
  async sweep(projectId: string, stopAfter?: RetentionStage): Promise<boolean> {
    const state = await this.repository.state(projectId);
    // Only between chunks: a chunk begun owns its events, below the horizon or not.
    if (!state || state.rolledUntil > state.retiredUntil) return false;
    const db = this.analytics.database;
    let token = state.sweepToken ?? null;
    if (token === null) {
      const late = await this.analytics.query(
        ...args(lateEventsQuery(db, projectId, state.retiredUntil)),
      );
      if (late.length === 0) {
        await this.conversions.deleteRecordsBefore(projectId, state.retiredUntil, RECORDS_BATCH);
        return false;
      }
      token = randomUUID();
      await this.repository.save(projectId, { ...state, sweepToken: token });
    }
    const sweep: Sweep = { projectId, token, before: state.retiredUntil };
    const [saved] = await this.analytics.query<{ n: string | number }>(
      ...args(sweepIdCountQuery(db, sweep)),
    );
    if (Number(saved?.n ?? 0) === 0) await this.write(sweepIdsStatement(db, sweep, SWEEP_ROWS));
    for (const table of TABLES) await this.write(sweepRollupStatement(db, table, sweep));
    await this.pause?.('rollup');
    if (stopAfter === 'rollup') return true;
    for (const table of TABLES) await this.write(sweepDeleteStatement(db, table, sweep));
    while (
      (await this.conversions.deleteRecordsBefore(projectId, state.retiredUntil, RECORDS_BATCH)) ===
      RECORDS_BATCH
    );
    await this.repository.save(projectId, { ...state, sweepToken: null });
    return true;
  }

  /** The time of the project's first event in [from, to) in either store, or null. */
  private async firstEvent(projectId: string, from: Date, to: Date): Promise<Date | null> {
    const chunk: Chunk = { projectId, from, to };
    const found: Date[] = [];
    for (const table of TABLES) {
      const { sql, params } = firstEventHourQuery(this.analytics.database, table, chunk);
      const [row] = await this.analytics.query<{ hour: string }>(sql, params);
      if (row) found.push(fromChTime(row.hour));
    }
    const record = await this.conversions.firstRecordAt(projectId, from, to);
    if (record) found.push(record);
    if (found.length === 0) return null;
    return new Date(Math.max(from.getTime(), Math.min(...found.map((d) => d.getTime()))));
  }

  /** A write that may change what statistics read (stamp-state.ts: their kept states drop). */
  private write({ sql, params }: RetentionStatement): Promise<void> {
    return countStampStateWrite(this.analytics, this.analytics.command(sql, params));
  }
}
