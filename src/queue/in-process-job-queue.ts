import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { PROCESSOR_METADATA } from '@nestjs/bullmq/dist/bull.constants';
import { DEFAULT_ATTEMPTS, EnqueueOptions, Enqueued, JobQueue, retryDelay } from './job-queue';
import { QueueName } from './queue-names';

/** A job id seen before: that job, not this hand-over, holds the work. */
const ALREADY_HELD: Enqueued = { stored: Promise.resolve(false) };

/**
 * Without Redis the same processors run in this process: a job is handed to the queue's
 * WorkerHost.process on the next tick, retried with back-off like BullMQ would, and awaited at
 * shutdown so nothing accepted is dropped. A job lives in memory only: it is stored
 * (Enqueued.stored) once it has run.
 */
@Injectable()
export class InProcessJobQueue extends JobQueue implements OnApplicationShutdown {
  private readonly logger = new Logger('InProcessJobQueue');
  private processors?: Map<string, WorkerHost>;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly seenJobIds = new Set<string>();

  constructor(private readonly discovery: DiscoveryService) {
    super();
  }

  async add<T extends object>(
    queue: QueueName,
    name: string,
    data: T,
    options: EnqueueOptions = {},
  ): Promise<Enqueued> {
    if (options.jobId) {
      if (this.seenJobIds.has(`${queue}:${options.jobId}`)) return ALREADY_HELD;
      // Deduplication over the recent past, as BullMQ's kept jobs give; bounded memory.
      if (this.seenJobIds.size >= 100_000) this.seenJobIds.clear();
      this.seenJobIds.add(`${queue}:${options.jobId}`);
    }
    const processor = this.processorFor(queue);
    const job = jobOf(queue, name, data, options.jobId ?? randomUUID());
    const run = this.runWithRetries(processor, job, options);
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
    return { stored: run };
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
    const run = processor.process(job) as Promise<R>;
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
          timer = setTimeout(
            () => reject(new Error(`job ${queue}/${name} timed out after ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async drain(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.inFlight.size > 0 && Date.now() < deadline) {
      // The deadline timer is cleared as soon as the jobs settle: left pending, it would hold the
      // process open for up to timeoutMs after shutdown.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.inFlight]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        }),
      ]);
      clearTimeout(timer);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.drain();
  }

  /** Runs the job until it succeeds (true: its effects are stored) or is given up (false). */
  private async runWithRetries(
    processor: WorkerHost,
    job: Job,
    options: EnqueueOptions,
  ): Promise<boolean> {
    const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
    await new Promise((resolve) => setImmediate(resolve));
    for (let attempt = 1; ; attempt++) {
      try {
        await processor.process(job);
        return true;
      } catch (error) {
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

  private processorFor(queue: QueueName): WorkerHost {
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
    const processor = this.processors.get(queue);
    if (!processor) throw new Error(`no processor registered for queue "${queue}"`);
    return processor;
  }
}

/** The job a processor is handed: the fields of a BullMQ job it reads, nothing stored. */
function jobOf(queue: QueueName, name: string, data: object, id: string): Job {
  return {
    id,
    name,
    data,
    queueName: queue,
    attemptsMade: 0,
    timestamp: Date.now(),
  } as unknown as Job;
}
