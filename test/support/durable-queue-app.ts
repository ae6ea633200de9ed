import 'reflect-metadata';
import { INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { loadConfig } from '../../src/config/app-config';
import { ConfigModule } from '../../src/config/config.module';
import { DatabaseModule } from '../../src/database/database.module';
import { JobProcessor } from '../../src/queue/job-processor.decorator';
import { JobQueue } from '../../src/queue/job-queue';
import { QUEUES } from '../../src/queue/queue-names';
import { QueueModule } from '../../src/queue/queue.module';

/**
 * The embedded job queue alone, on PGlite under a DATA_DIR: the configuration, the database and the
 * in-process queue, with a `webhooks` processor of the test's own. A test of the queue's durability
 * needs no HTTP, and its processor must not meet the service's own one for the same queue.
 *
 * Run directly (`node -r ts-node/register/transpile-only durable-queue-app.ts <DATA_DIR> <delayMs>`),
 * it is the process a test kills: it adds a job `later` with that delay and a job `now`, whose run
 * never ends, and prints `started now` once it runs.
 */

/** What a test job says about itself. */
export interface TestDelivery {
  label: string;
  /** The job fails until its attempt `failUntil` (1-based). */
  failUntil?: number;
  /** Its run of this attempt (1-based) waits for `release(label)`. */
  holdAttempt?: number;
}

export interface Run {
  label: string;
  jobId: string;
  attemptsMade: number;
  /** When it started (ms). */
  at: number;
}

/** The runs of `webhooks` jobs in this process, in the order they started. */
export const runs: Run[] = [];

/** How many jobs run at once now, and at most so far. */
export const concurrency = { now: 0, max: 0 };

/** The runs held by `holdAttempt`, by label. */
const holds = new Map<string, () => void>();

/** Lets a held run go on. */
export function release(label: string): void {
  holds.get(label)?.();
  holds.delete(label);
}

const KILLED_CHILD = require.main === module;

@JobProcessor(QUEUES.webhooks, 4)
class TestDeliveries extends WorkerHost {
  async process(job: Job<TestDelivery>): Promise<void> {
    const { label, failUntil = 0, holdAttempt } = job.data;
    runs.push({ label, jobId: job.id!, attemptsMade: job.attemptsMade, at: Date.now() });
    if (holdAttempt === job.attemptsMade + 1) {
      await new Promise<void>((resolve) => holds.set(label, resolve));
    }
    if (KILLED_CHILD) {
      process.stdout.write(`started ${label}\n`);
      return new Promise(() => undefined);
    }
    concurrency.max = Math.max(concurrency.max, ++concurrency.now);
    await new Promise((resolve) => setImmediate(resolve));
    concurrency.now--;
    if (job.attemptsMade + 1 < failUntil) throw new Error(`${label} refused`);
  }
}

@Module({ providers: [TestDeliveries] })
class TestDeliveriesModule {}

@Module({})
class DurableQueueApp {}

/** Starts the queue on `dataDir` (created and migrated on first use). */
export async function openQueueApp(dataDir: string): Promise<INestApplicationContext> {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const app = await NestFactory.createApplicationContext(
    {
      module: DurableQueueApp,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        QueueModule.forRoot(config),
        TestDeliveriesModule,
      ],
    },
    { logger: false },
  );
  return app.init();
}

if (KILLED_CHILD) {
  void (async () => {
    const [dataDir, delayMs] = process.argv.slice(2);
    const queue = (await openQueueApp(dataDir)).get(JobQueue);
    await queue.add(
      QUEUES.webhooks,
      'deliver',
      { label: 'later' },
      { jobId: 'later', delayMs: Number(delayMs) },
    );
    await queue.add(QUEUES.webhooks, 'deliver', { label: 'now' }, { jobId: 'now' });
  })();
}
