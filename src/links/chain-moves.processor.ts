import { OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { WorkerHost, getQueueToken } from '@nestjs/bullmq';
import type { Job, Queue } from 'bullmq';
import { AppConfig } from '../config/app-config';
import { JobProcessor } from '../queue/job-processor.decorator';
import { QUEUES } from '../queue/queue-names';
import { ChainMoveJob, ChainMoves } from './chain-moves.service';

/**
 * Runs `chain-moves` jobs (ChainMoves.move): on BullMQ where ROLE runs workers, in-process without
 * Redis. One at a time across the service (a worker's concurrency 1, and the queue's global
 * concurrency 1 for several worker processes; ChainMoves.move queues them in-process): moves of
 * nested subtrees done in the order they were made leave every chain as the parents say, while two
 * at once could each write a descendant from the other's unfinished state.
 */
@JobProcessor(QUEUES.chainMoves, 1)
export class ChainMovesProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    private readonly moves: ChainMoves,
    private readonly config: AppConfig,
    private readonly moduleRef: ModuleRef,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    if (!this.config.redisUrl || !this.config.runsWorkers) return;
    const queue = this.moduleRef.get<Queue>(getQueueToken(QUEUES.chainMoves), { strict: false });
    // Not awaited, and sent once connected: a start while Redis is down must not block, nor leave a
    // command waiting in the client at shutdown. The setting is kept in Redis, for every worker.
    queue
      .waitUntilReady()
      .then(() => queue.setGlobalConcurrency(1))
      .catch(() => undefined);
  }

  process(job: Job<ChainMoveJob>): Promise<number> {
    return this.moves.move(job.data);
  }
}
