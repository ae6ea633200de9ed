import { Logger } from '@nestjs/common';
import { WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { JobDeferred } from './job-defer';
import { retryDelay } from './job-queue';
import { PendingJob, PendingJobs } from './pending-jobs';
import { QueueName } from './queue-names';

/** Due jobs held in memory per processor slot (at least MIN_HELD): the rest wait in the table. */
const HELD_PER_SLOT = 4;
const MIN_HELD = 256;
/** The longest timer set: a later run_at is looked for again when it fires. */
const MAX_TIMER_MS = 3_600_000;
/** After a read or a write of pending_jobs failed, when the table is read again. */
const RETRY_READ_MS = 5000;

/**
 * One durable queue of the in-process transport (DURABLE_QUEUES). Every job is a row of
 * pending_jobs from the moment it is added until it succeeds or is given up, so a restart, even
 * after a crash, runs what was pending: at least once, like BullMQ.
 *
 * Jobs come into memory from the table only, a page at a time in run_at order, leaving out the ones
 * held or running; at most a few pages' worth are held, so a burst of any size costs the memory of
 * one page. They run `concurrency` at a time (the processor's, as a BullMQ worker would run them).
 * A job that is not due (a delay, a retry) stays in the table behind one timer, set for the earliest.
 * Nothing runs before start (the application's processors are ready) nor after stop (shutdown):
 * what has not started then waits for the next start.
 */
export class DurableQueue {
  private readonly logger = new Logger('DurableQueue');
  private readonly heldMax: number;
  /** Due jobs read and not yet started, in the order they run. */
  private readonly held = new Map<string, PendingJob>();
  private readonly running = new Map<string, Promise<void>>();
  /** Due rows may be in the table that are not held: at first, whatever an earlier run left. */
  private backlog = true;
  private reading: Promise<void> | null = null;
  /** Jobs that left `running` while a page was read: the page may show their former row. */
  private readonly leftWhileReading = new Set<string>();
  /** Jobs woken while they ran (JobQueue.wake): set aside, they run again at once. */
  private readonly wokenWhileRunning = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private started = false;
  private stopped = false;

  constructor(
    readonly queue: QueueName,
    private readonly processor: WorkerHost,
    private readonly concurrency: number,
    private readonly pending: PendingJobs,
  ) {
    this.heldMax = Math.max(MIN_HELD, concurrency * HELD_PER_SLOT);
  }

  /** Writes the jobs; answers for each whether it was written (false: its id was there already). */
  async add(jobs: PendingJob[]): Promise<boolean[]> {
    const written = await this.pending.insert(jobs);
    for (const job of jobs) if (written.has(job.id)) this.wakeAt(job.runAt.getTime());
    return jobs.map((job) => written.has(job.id));
  }

  /** Starts running jobs, those left in the table first. */
  start(): void {
    this.started = true;
    this.pump();
  }

  /** Starts no more jobs: the ones not started stay in the table for the next start. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** A job waiting in the table (not held, not running) runs now: whether there was one. */
  async wake(id: string): Promise<boolean> {
    if (this.held.has(id)) return false;
    // Running: if it sets itself aside, it runs again at once.
    if (this.running.has(id)) {
      this.wokenWhileRunning.add(id);
      return true;
    }
    if (!(await this.pending.wake(this.queue, id))) return false;
    this.wakeAt(0);
    return true;
  }

  /** What is under way: the jobs running and a page being read. */
  work(): Promise<unknown>[] {
    return this.reading ? [...this.running.values(), this.reading] : [...this.running.values()];
  }

  /** Starts held jobs while slots are free, and reads the next page when few are left. */
  private pump(): void {
    if (!this.started || this.stopped) return;
    for (const job of this.held.values()) {
      if (this.running.size >= this.concurrency) break;
      this.held.delete(job.id);
      this.run(job);
    }
    if (this.backlog && this.reading === null && this.held.size < this.heldMax / HELD_PER_SLOT) {
      this.read();
    }
  }

  private read(): void {
    this.backlog = false;
    const limit = this.heldMax - this.held.size;
    const skip = [...this.held.keys(), ...this.running.keys()];
    this.reading = this.pending
      .next(this.queue, skip, limit)
      .then(
        (jobs) => this.hold(jobs, limit),
        (error: Error) => {
          this.logger.warn(`${this.queue}: pending jobs not read (${error.message})`);
          this.wakeAt(Date.now() + RETRY_READ_MS);
        },
      )
      .finally(() => {
        this.reading = null;
        this.leftWhileReading.clear();
        this.pump();
      });
  }

  /** Holds the due jobs of a page; the first one not due sets the timer. */
  private hold(jobs: PendingJob[], limit: number): void {
    const now = Date.now();
    for (const job of jobs) {
      if (job.runAt.getTime() > now) return this.wakeAt(job.runAt.getTime());
      if (!this.leftWhileReading.has(job.id) && !this.running.has(job.id)) {
        this.held.set(job.id, job);
      }
    }
    // A full page of due jobs: more may follow.
    if (jobs.length === limit) this.backlog = true;
  }

  private run(job: PendingJob): void {
    const run = this.attempt(job)
      .catch((error: Error) => {
        // The row stays as it was: the job runs again from it.
        this.logger.warn(`${this.queue}: job ${job.id} not recorded (${error.message})`);
        return Date.now() + RETRY_READ_MS;
      })
      .then((readAt) => {
        this.running.delete(job.id);
        this.wokenWhileRunning.delete(job.id);
        if (this.reading) this.leftWhileReading.add(job.id);
        if (readAt !== null) this.wakeAt(readAt);
        this.pump();
      });
    this.running.set(job.id, run);
  }

  /**
   * Runs the job once. Its row is deleted once it succeeds or is given up; after a failure with
   * attempts left, it records the attempt and the retry's time, which it returns (else null).
   */
  private async attempt(job: PendingJob): Promise<number | null> {
    try {
      await this.processor.process(
        jobOf(this.queue, job.name, job.data, job.id, job.attemptsMade, job.createdAt.getTime()),
      );
    } catch (error) {
      // Set aside (deferJob): back in the table until its time or a wake, the attempt not counted.
      if (error instanceof JobDeferred) {
        const until = this.wokenWhileRunning.delete(job.id) ? Date.now() : error.until;
        await this.pending.retry(this.queue, job.id, job.attemptsMade, new Date(until));
        return until;
      }
      const made = job.attemptsMade + 1;
      if (made < job.attempts) {
        const runAt =
          Date.now() + retryDelay(made, { fixedBackoffMs: job.fixedBackoffMs ?? undefined });
        await this.pending.retry(this.queue, job.id, made, new Date(runAt));
        return runAt;
      }
      this.logger.error(
        { err: error, queue: this.queue, jobId: job.id },
        `job ${this.queue}/${job.name} failed after ${made} attempts`,
      );
    }
    await this.pending.remove(this.queue, job.id);
    return null;
  }

  /** Reads the table at `at`: at once when that has come, else by the timer (the earliest kept). */
  private wakeAt(at: number): void {
    if (this.stopped) return;
    const delay = at - Date.now();
    if (delay <= 0) {
      this.backlog = true;
      this.pump();
      return;
    }
    if (at >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = Date.now() + Math.min(delay, MAX_TIMER_MS);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAt = Infinity;
      this.wakeAt(0);
    }, this.timerAt - Date.now());
    // A timer alone does not keep the process up: the job waits in the table.
    this.timer.unref();
  }
}

/** The job a processor is handed in-process: the fields of a BullMQ job it reads. */
export function jobOf(
  queue: QueueName,
  name: string,
  data: object,
  id: string,
  attemptsMade = 0,
  timestamp = Date.now(),
): Job {
  return { id, name, data, queueName: queue, attemptsMade, timestamp } as unknown as Job;
}
