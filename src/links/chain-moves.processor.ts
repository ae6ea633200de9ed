import { OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { WorkerHost, getQueueToken } from '@nestjs/bullmq';
import type { Job, Queue } from 'bullmq';
import { AppConfig } from '../config/app-config';
import { JobProcessor } from '../queue/job-processor.decorator';
import { QUEUES } from '../queue/queue-names';
import { ChainMoveJob, ChainMoves } from './chain-moves.service';

/** Moves run at once by a worker, and by all workers together (the queue's global concurrency). */
export const CHAIN_MOVE_CONCURRENCY = 2;

/**
 * Runs `chain-moves` jobs (ChainMoves.move): on BullMQ where ROLE runs workers, in-process without
 * Redis. Moves of different projects run side by side, CHAIN_MOVE_CONCURRENCY at a time; those of
 * one project one at a time, in the order they were made (ChainMoves says how): moves of nested
 * subtrees done in that order leave every chain as the parents say, while two at once could each
 * write a descendant from the other's unfinished state. A job of a project whose moves are running
 * ends at once, so one project's moves hold one worker at most (docs/operations.md, "Moving a
 * subtree").
 */
@JobProcessor(QUEUES.chainMoves, CHAIN_MOVE_CONCURRENCY)
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
    // command waiting in the client at shutdown. The setting is kept in Redis, for every worker
    // (it replaces the 1 of earlier versions).
    queue
      .waitUntilReady()
      .then(() => queue.setGlobalConcurrency(CHAIN_MOVE_CONCURRENCY))
      .catch(() => undefined);
  }

  process(job: Job<ChainMoveJob>): Promise<number> {
    return this.moves.move(job.data);
  }
}
