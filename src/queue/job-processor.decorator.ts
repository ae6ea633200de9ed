import { Processor } from '@nestjs/bullmq';
import { QueueName } from './queue-names';

/**
 * Marks a WorkerHost as the processor of a queue. Workers never start on their own: WorkerRunner
 * starts them where ROLE runs workers, and without Redis the in-process queue calls `process`.
 */
export function JobProcessor(queue: QueueName, concurrency = 4): ClassDecorator {
  return Processor(queue, { autorun: false, concurrency });
}
