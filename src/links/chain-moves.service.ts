import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { LinkMirror } from '../analytics/link-mirror';
import { Errors } from '../common/app-error';
import { MAX_CHAIN_DEPTH } from '../database/migrations/1764020000000-link-chains';
import { JobQueue } from '../queue/job-queue';
import { QUEUES } from '../queue/queue-names';
import { ChainMovesRepository, chainRows } from './chain-moves.repository';
import { LinkEntity } from './link.entity';

/** A `chain-moves` job: the link whose parent changed. */
export interface ChainMoveJob {
  projectId: string;
  linkId: string;
}

/** Descendants given their new chain per statement, and per write to the analytics store. */
export const CHAIN_MOVE_BATCH = 1_000;

/**
 * A re-parented link takes its whole subtree along (docs/api.md, "Share chains"). The row trigger
 * gives the link itself its new chain in the UPDATE of its parent, and url/update mirrors it; its
 * descendants follow in a `chain-moves` job, because a subtree can hold 10,000 links and more: one
 * statement over all of them would hold their row locks and the request for as long as it takes,
 * while the job rewrites them in batches by id, each mirrored to the analytics store before the
 * next. Until it is done, statistics see the descendants under the link's old place; a job run
 * again (a retry, a worker that died) writes the same chains again.
 */
@Injectable()
export class ChainMoves {
  private readonly logger = new Logger('ChainMoves');
  /** The move running in this process, if any: the next one waits for it. */
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly repository: ChainMovesRepository,
    private readonly mirror: LinkMirror,
    private readonly queue: JobQueue,
  ) {}

  /**
   * Refuses, before anything is written, a parent that would make the link its own ancestor or
   * its cascade deeper than MAX_CHAIN_DEPTH: 400 naming `parent`, as the trigger's refusal reads
   * (database-errors.ts; the trigger stays the backstop for a race between two re-parents).
   */
  async checkParent(link: LinkEntity, parentSvcId: string, manager: EntityManager): Promise<void> {
    const bounds = await this.repository.findMoveBounds(
      link.projectId,
      link.id,
      parentSvcId,
      manager,
    );
    if (bounds.cycle) throw Errors.invalid('parent', 'a link cannot become its own ancestor');
    if (bounds.parentDepth !== null && bounds.parentDepth + 1 + bounds.below > MAX_CHAIN_DEPTH) {
      throw Errors.invalid(
        'parent',
        `the link's cascade would reach ${bounds.parentDepth + 1 + bounds.below} generations below its root, more than the ${MAX_CHAIN_DEPTH} a cascade holds`,
      );
    }
  }

  /**
   * Hands the move of a re-parented link's subtree to the `chain-moves` queue. While the queue's
   * Redis is unreachable the move runs before the answer instead: a move left undone would leave the
   * subtree under the link's old place for good.
   */
  async enqueue(link: LinkEntity): Promise<void> {
    const job: ChainMoveJob = { projectId: link.projectId, linkId: link.id };
    try {
      await this.queue.add(QUEUES.chainMoves, 'move', job, { failFast: true });
    } catch (error) {
      this.logger.warn(
        { err: error, linkId: link.id },
        'chain-moves queue unreachable: moving the subtree now',
      );
      await this.move(job);
    }
  }

  /**
   * Gives every descendant of the job's link its chain under the link's current one, a batch at a
   * time (ChainMovesRepository.moveDescendants), and mirrors each batch's chains at a version taken
   * after the update that moved the link was mirrored. Returns the descendants moved.
   */
  move(job: ChainMoveJob): Promise<number> {
    // One move at a time in this process, in the order they came (ChainMovesProcessor says why):
    // the in-process queue runs jobs as they arrive.
    const run = this.running.then(() => this.moveNow(job));
    this.running = run.catch(() => undefined);
    return run;
  }

  private async moveNow({ projectId, linkId }: ChainMoveJob): Promise<number> {
    let cursor = '0';
    let moved = 0;
    for (;;) {
      const version = Date.now() * 1000;
      const { chains, last } = await this.repository.moveDescendants(
        projectId,
        linkId,
        cursor,
        CHAIN_MOVE_BATCH,
      );
      if (last === null) break;
      await this.mirror.mirrorChains(chainRows(chains, version));
      moved += chains.length;
      cursor = last;
    }
    return moved;
  }
}
