import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getQueueToken } from '@nestjs/bullmq';
import { Queue } from 'bullmq';
import { BACKOFF_MS, DEFAULT_ATTEMPTS, EnqueueOptions, JobQueue } from './job-queue';
import { QueueName } from './queue-names';

/** Jobs go to Redis; whichever process runs workers (ROLE all or worker) picks them up. */
@Injectable()
export class BullJobQueue extends JobQueue {
  constructor(private readonly moduleRef: ModuleRef) {
    super();
  }

  async add<T extends object>(queue: QueueName, name: string, data: T, options: EnqueueOptions = {}): Promise<void> {
    const target = this.moduleRef.get<Queue>(getQueueToken(queue), { strict: false });
    await target.add(name, data, {
      jobId: options.jobId,
      attempts: options.attempts ?? DEFAULT_ATTEMPTS,
      backoff: { type: 'exponential', delay: BACKOFF_MS },
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  }

  async drain(): Promise<void> {
    // Jobs live in Redis: nothing of them is held in this process.
  }
}
