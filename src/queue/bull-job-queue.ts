import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getQueueToken } from '@nestjs/bullmq';
import { Job, JobsOptions, Queue, QueueEvents } from 'bullmq';
import {
  BACKOFF_MS,
  BulkJob,
  DEFAULT_ATTEMPTS,
  EnqueueOptions,
  Enqueued,
  JobQueue,
} from './job-queue';
import { QUEUES, QueueName } from './queue-names';
import { redisUp } from './redis.provider';

const AWAITED_QUEUES: QueueName[] = [QUEUES.unwrap];

/** A job in Redis is held for good once added: one answer serves every job. */
const IN_REDIS: Enqueued = { stored: Promise.resolve(true) };

/** BullMQ's options for a job added with `options` (add and addBulk alike). */
export function bullJobOptions(options: EnqueueOptions): JobsOptions {
  return {
    jobId: options.jobId,
    attempts: options.attempts ?? DEFAULT_ATTEMPTS,
    backoff:
      options.fixedBackoffMs !== undefined
        ? { type: 'fixed', delay: options.fixedBackoffMs }
        : { type: 'exponential', delay: BACKOFF_MS },
    delay: options.delayMs,
    removeOnComplete: options.keepCompleted === false ? true : { age: 3600, count: 1000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  };
}

/** Jobs go to Redis; whichever process runs workers (ROLE all or worker) picks them up. */
@Injectable()
export class BullJobQueue extends JobQueue implements OnModuleInit, OnApplicationShutdown {
  private readonly queueEvents = new Map<QueueName, QueueEvents>();

  constructor(private readonly moduleRef: ModuleRef) {
    super();
  }

  async add<T extends object>(
    queue: QueueName,
    name: string,
    data: T,
    options: EnqueueOptions = {},
  ): Promise<Enqueued> {
    const target = this.queue(queue);
    if (options.failFast) await reachable(target);
    await target.add(name, data, bullJobOptions(options));
    return IN_REDIS;
  }

  /** One Queue.addBulk; fails fast (EnqueueOptions.failFast) when any of the jobs asks it. */
  async addBulk<T extends object>(queue: QueueName, jobs: BulkJob<T>[]): Promise<Enqueued[]> {
    if (jobs.length === 0) return [];
    const target = this.queue(queue);
    if (jobs.some((job) => job.options?.failFast)) await reachable(target);
    await target.addBulk(
      jobs.map((job) => ({
        name: job.name,
        data: job.data,
        opts: bullJobOptions(job.options ?? {}),
      })),
    );
    return jobs.map(() => IN_REDIS);
  }

  async addAndWait<T extends object, R>(
    queue: QueueName,
    name: string,
    data: T,
    timeoutMs: number,
  ): Promise<R> {
    const target = this.queue(queue);
    const job = await target.add(name, data, {
      attempts: 1,
      removeOnComplete: { age: 60 },
      removeOnFail: { age: 3600 },
    });
    return (await job.waitUntilFinished(this.events(queue, target), timeoutMs)) as R;
  }

  /** Promotes the delayed job; false when it is not delayed (running, done, gone). */
  async wake(queue: QueueName, jobId: string): Promise<boolean> {
    const job = await Job.fromId(this.queue(queue), jobId);
    if (!job) return false;
    try {
      await job.promote();
      return true;
    } catch {
      return false;
    }
  }

  async drain(): Promise<void> {
    // Jobs live in Redis: nothing of them is held in this process.
  }

  /** Queues whose jobs requests await get their event stream at start, so no completion is missed. */
  onModuleInit(): void {
    // Not awaited: a start while Redis is down must not block (redirects answer without Redis).
    for (const queue of AWAITED_QUEUES) {
      const target = this.queue(queue);
      this.events(queue, target)
        .waitUntilReady()
        .catch(() => undefined);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(
      [...this.queueEvents.values()].map(async (events) => {
        // While Redis is down an ordinary close waits for it (redisUp).
        if (!(await redisUp(events.getBackend()))) await events.getBackend().close(true);
        await events.close();
      }),
    );
  }

  private queue(queue: QueueName): Queue {
    return this.moduleRef.get<Queue>(getQueueToken(queue), { strict: false });
  }

  /** One QueueEvents stream per queue awaited on, opened on first use. */
  private events(queue: QueueName, target: Queue): QueueEvents {
    let events = this.queueEvents.get(queue);
    if (!events) {
      events = new QueueEvents(queue, {
        connection: target.opts.connection,
        prefix: target.opts.prefix,
      });
      events.on('error', () => undefined);
      this.queueEvents.set(queue, events);
    }
    return events;
  }
}

/** Rejects while the queue's Redis connection is not ready (EnqueueOptions.failFast). */
async function reachable(target: Queue): Promise<void> {
  const { status } = await target.getBackend().client;
  if (status !== 'ready') throw new Error(`Redis is unreachable (${status})`);
}
