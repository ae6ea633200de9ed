import { randomUUID } from 'node:crypto';
import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { PROCESSOR_METADATA, WORKER_METADATA } from '@nestjs/bullmq/dist/bull.constants';
import { DurableQueue, jobOf } from './durable-queue';
import { JobDeferred } from './job-defer';
import {
  BulkJob,
  DEFAULT_ATTEMPTS,
  DURABLE_QUEUES,
  EnqueueOptions,
  Enqueued,
  JobQueue,
  retryDelay,
} from './job-queue';
import { PendingJob, PendingJobs } from './pending-jobs';
import { QueueName } from './queue-names';
import { Slots } from './slots';

/** A job id seen before: that job, not this hand-over, holds the work. */
const ALREADY_HELD: Enqueued = { stored: Promise.resolve(false) };
const WRITTEN: Enqueued = { stored: Promise.resolve(true) };

/**
 * Without Redis the same processors run in this process: a job is handed to the queue's
 * WorkerHost.process on the next tick (or after its delay), retried with back-off like BullMQ
 * would, and awaited at shutdown so nothing accepted is dropped. A job lives in memory only: it is
 * stored (Enqueued.stored) once it has run. The jobs of durable queues (DURABLE_QUEUES) are rows of
 * pending_jobs instead, stored once written, run by a DurableQueue from the start of the
 * application; at shutdown the running ones finish and the others wait for the next start.
 */
@Injectable()
export class InProcessJobQueue
  extends JobQueue
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('InProcessJobQueue');
  private processors?: Map<string, WorkerHost>;
  private readonly durables = new Map<QueueName, DurableQueue>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly seenJobIds = new Set<string>();
  private readonly slots = new Map<QueueName, Slots>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly pending: PendingJobs,
  ) {
    super();
  }

  async add<T extends object>(
    queue: QueueName,
    name: string,
    data: T,
    options: EnqueueOptions = {},
  ): Promise<Enqueued> {
    const [enqueued] = await this.addBulk(queue, [{ name, data, options }]);
    return enqueued;
  }

  /** For a durable queue, one insert of every job (a job id already there is not added again). */
  async addBulk<T extends object>(queue: QueueName, jobs: BulkJob<T>[]): Promise<Enqueued[]> {
    const processor = this.processorFor(queue);
    const fresh = jobs.map((job) => this.firstSeen(queue, job.options?.jobId));
    if (!DURABLE_QUEUES.includes(queue)) {
      return jobs.map((job, i) =>
        fresh[i] ? this.runInMemory(processor, queue, job) : ALREADY_HELD,
      );
    }
    const now = Date.now();
    const rows = jobs.filter((_, i) => fresh[i]).map((job) => pendingJob(queue, job, now));
    let written: boolean[];
    try {
      written = await this.durable(queue).add(rows);
    } catch (error) {
      // Not held: the same ids may be handed over again.
      for (const row of rows) this.seenJobIds.delete(`${queue}:${row.id}`);
      throw error;
    }
    let next = 0;
    return fresh.map((isFresh) =>
      !isFresh ? ALREADY_HELD : written[next++] ? WRITTEN : ALREADY_HELD,
    );
  }

  async addAndWait<T extends object, R>(
    queue: QueueName,
    name: string,
    data: T,
    timeoutMs: number,
  ): Promise<R> {
    const processor = this.processorFor(queue);
    const job = jobOf(queue, name, data, randomUUID());
    let timer: NodeJS.Timeout | undefined;
    // A job still waiting for its turn when the caller gives up is not run.
    const abandoned = new AbortController();
    const run = this.slotsFor(queue).run(
      () => processor.process(job) as Promise<R>,
      abandoned.signal,
    );
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(settled);
    void settled.finally(() => this.inFlight.delete(settled));
    try {
      return await Promise.race([
        run,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const error = new Error(`job ${queue}/${name} timed out after ${timeoutMs} ms`);
            abandoned.abort(error);
            reject(error);
          }, timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A durable queue's job waiting in pending_jobs runs now; in memory a deferred job keeps its time. */
  async wake(queue: QueueName, jobId: string): Promise<boolean> {
    return (await this.durables.get(queue)?.wake(jobId)) ?? false;
  }

  async drain(timeoutMs = 30_000): Promise<void> {
    await settle(() => [...this.inFlight, ...this.durableWork()], timeoutMs);
  }

  /** Durable queues start running once every processor is ready, what an earlier run left first. */
  onApplicationBootstrap(): void {
    for (const queue of DURABLE_QUEUES) {
      if (this.registered().has(queue)) this.durable(queue).start();
    }
  }

  /**
   * Before the database closes: durable queues start nothing more and the jobs they run finish
   * (their rows are deleted or moved to their retry); the others stay in pending_jobs.
   */
  async beforeApplicationShutdown(): Promise<void> {
    for (const durable of this.durables.values()) durable.stop();
    await settle(() => this.durableWork(), 30_000);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.drain();
  }

  /** Whether a job id (none: always) is new to the queue; remembers it. */
  private firstSeen(queue: QueueName, jobId: string | undefined): boolean {
    if (!jobId) return true;
    if (this.seenJobIds.has(`${queue}:${jobId}`)) return false;
    // Deduplication over the recent past, as BullMQ's kept jobs give; bounded memory.
    if (this.seenJobIds.size >= 100_000) this.seenJobIds.clear();
    this.seenJobIds.add(`${queue}:${jobId}`);
    return true;
  }

  private runInMemory(processor: WorkerHost, queue: QueueName, job: BulkJob): Enqueued {
    const options = job.options ?? {};
    const run = this.runWithRetries(
      processor,
      jobOf(queue, job.name, job.data, options.jobId ?? randomUUID()),
      options,
    );
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
    return { stored: run };
  }

  private durable(queue: QueueName): DurableQueue {
    let durable = this.durables.get(queue);
    if (!durable) {
      const processor = this.processorFor(queue);
      durable = new DurableQueue(queue, processor, concurrencyOf(processor), this.pending);
      this.durables.set(queue, durable);
    }
    return durable;
  }

  private durableWork(): Promise<unknown>[] {
    return [...this.durables.values()].flatMap((durable) => durable.work());
  }

  /** Runs the job until it succeeds (true: its effects are stored) or is given up (false). */
  private async runWithRetries(
    processor: WorkerHost,
    job: Job,
    options: EnqueueOptions,
  ): Promise<boolean> {
    const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
    await new Promise((resolve) =>
      options.delayMs ? setTimeout(resolve, options.delayMs) : setImmediate(resolve),
    );
    for (let attempt = 1; ; attempt++) {
      try {
        await this.slotsFor(job.queueName as QueueName).run(() => processor.process(job));
        return true;
      } catch (error) {
        // Set aside (deferJob): it runs again at its time, the attempt not counted.
        if (error instanceof JobDeferred) {
          await new Promise((resolve) =>
            setTimeout(resolve, Math.max(0, error.until - Date.now())),
          );
          attempt--;
          continue;
        }
        (job as { attemptsMade: number }).attemptsMade = attempt;
        if (attempt >= attempts) {
          this.logger.error(
            { err: error, queue: job.queueName, jobId: job.id },
            `job ${job.queueName}/${job.name} failed after ${attempt} attempts`,
          );
          return false;
        }
        await new Promise((resolve) => setTimeout(resolve, retryDelay(attempt, options)));
      }
    }
  }

  /**
   * The jobs of a queue kept in memory run as many at once as its processor's concurrency, as a
   * BullMQ worker would run them: a burst of retweets that unwrap cannot start a crawl each at
   * once (docs/api.md, "Security": bounded work).
   */
  private slotsFor(queue: QueueName): Slots {
    let slots = this.slots.get(queue);
    if (!slots) {
      slots = new Slots(concurrencyOf(this.processorFor(queue)));
      this.slots.set(queue, slots);
    }
    return slots;
  }

  private processorFor(queue: QueueName): WorkerHost {
    const processor = this.registered().get(queue);
    if (!processor) throw new Error(`no processor registered for queue "${queue}"`);
    return processor;
  }

  /** The processors of the application by queue, found once. */
  private registered(): Map<string, WorkerHost> {
    if (!this.processors) {
      this.processors = new Map();
      for (const wrapper of this.discovery.getProviders()) {
        const instance: unknown = wrapper.instance;
        if (!(instance instanceof WorkerHost)) continue;
        const meta = Reflect.getMetadata(PROCESSOR_METADATA, instance.constructor) as
          { name: string } | undefined;
        if (meta) this.processors.set(meta.name, instance as WorkerHost);
      }
    }
    return this.processors;
  }
}

/** How many jobs of a processor's queue run at once (@JobProcessor's concurrency). */
function concurrencyOf(processor: WorkerHost): number {
  const worker = Reflect.getMetadata(WORKER_METADATA, processor.constructor) as
    { concurrency?: number } | undefined;
  return worker?.concurrency ?? 1;
}

/** The row of a job handed to a durable queue at `now`. */
function pendingJob(queue: QueueName, job: BulkJob, now: number): PendingJob {
  const options = job.options ?? {};
  return {
    queue,
    id: options.jobId ?? randomUUID(),
    name: job.name,
    data: job.data,
    attempts: options.attempts ?? DEFAULT_ATTEMPTS,
    attemptsMade: 0,
    fixedBackoffMs: options.fixedBackoffMs ?? null,
    runAt: new Date(now + (options.delayMs ?? 0)),
    createdAt: new Date(now),
  };
}

/**
 * Waits until `work` (asked again as each round settles: finishing jobs start others) is none, or
 * for timeoutMs. The deadline timer is cleared as soon as the work settles: left pending, it would
 * hold the process open for up to timeoutMs after shutdown.
 */
async function settle(work: () => Promise<unknown>[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let pending = work(); pending.length > 0 && Date.now() < deadline; pending = work()) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(pending),
      new Promise((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      }),
    ]);
    clearTimeout(timer);
  }
}
