import { Processor } from '@nestjs/bullmq';
import { QueueName } from './queue-names';

/**
 * Marks a WorkerHost as the processor of a queue. Workers never start on their own: WorkerRunner
 * starts them where ROLE runs workers, and without Redis the in-process queue calls `process`.
 */
export function JobProcessor(queue: QueueName, concurrency = 4): ClassDecorator {
  // A job whose worker died (a crash, a SIGKILL) is taken up again once its lock lapses: within
  // 10 s, checked every 5 s (BullMQ's 30 s and 30 s would hold a crashed worker's clicks up to a
  // minute). A live worker renews its locks every 5 s.
  return Processor(queue, {
    autorun: false,
    concurrency,
    lockDuration: 10_000,
    stalledInterval: 5_000,
  });
}
