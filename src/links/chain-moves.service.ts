import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { LinkMirror } from '../analytics/link-mirror';
import { Errors } from '../common/app-error';
import { JobQueue } from '../queue/job-queue';
import { QUEUES } from '../queue/queue-names';
import { MAX_CHAIN_DEPTH } from './chain-limits';
import { ChainMovesRepository, chainRows } from './chain-moves.repository';
import { LinkEntity } from './link.entity';

/**
 * A `chain-moves` job: the link whose parent changed, and its move's id in link_chain_moves (none
 * in a job queued by a version before that table: the move is recorded when it runs).
 */
export interface ChainMoveJob {
  projectId: string;
  linkId: string;
  move?: string;
}

/** Descendants given their new chain per statement, and per write to the analytics store. */
export const CHAIN_MOVE_BATCH = 1_000;

/**
 * The most links a re-parented link may have below it (docs/api.md, "Share chains"): a move is work
 * in proportion to its subtree, so a larger one is refused (400 naming `parent`).
 */
export const CHAIN_MOVE_MAX_SUBTREE = 10_000;

/**
 * A re-parented link takes its whole subtree along (docs/api.md, "Share chains"). The row trigger
 * gives the link itself its new chain in the UPDATE of its parent, and url/update mirrors it; its
 * descendants follow in a `chain-moves` job, because a subtree can hold up to
 * CHAIN_MOVE_MAX_SUBTREE links: one statement over all of them would hold their row locks and the
 * request for as long as it takes, while the job rewrites them in batches by id, each mirrored to
 * the analytics store before the next. Until it is done, statistics see the descendants under the
 * link's old place; a job run again (a retry, a worker that died) writes the same chains again.
 *
 * Moves run per project (docs/operations.md, "Moving a subtree"): each is a row of
 * link_chain_moves, and one process at a time runs a project's rows in order, skipping a move whose
 * link moved again since (the later one moves the same subtree from the link's current place). A
 * job that finds its project's moves running elsewhere ends at once: the run looks for rows again
 * before it lets go, so the job's row is taken too, and a project with many moves holds one worker.
 */
@Injectable()
export class ChainMoves {
  private readonly logger = new Logger('ChainMoves');
  /** The runs of this process, by project. */
  private readonly running = new Map<string, Promise<number | null>>();

  constructor(
    private readonly repository: ChainMovesRepository,
    private readonly mirror: LinkMirror,
    private readonly queue: JobQueue,
  ) {}

  /**
   * Takes the project's re-parent lock (until the transaction ends; docs/api.md, "Security"), then
   * refuses, before anything is written, a parent that would make the link its own ancestor, a link
   * with more than CHAIN_MOVE_MAX_SUBTREE links below it, and a parent under which its cascade would
   * be deeper than MAX_CHAIN_DEPTH: 400 naming `parent`, as the trigger's refusal reads
   * (chain-refusal.ts; the trigger stays the backstop).
   */
  async checkParent(link: LinkEntity, parentSvcId: string, manager: EntityManager): Promise<void> {
    await this.repository.lockReparents(link.projectId, manager);
    const bounds = await this.repository.findMoveBounds(
      link.projectId,
      link.id,
      parentSvcId,
      { cap: CHAIN_MOVE_MAX_SUBTREE, depth: MAX_CHAIN_DEPTH },
      manager,
    );
    if (bounds.cycle) throw Errors.invalid('parent', 'a link cannot become its own ancestor');
    if (bounds.descendants > CHAIN_MOVE_MAX_SUBTREE) {
      throw Errors.invalid(
        'parent',
        `the link has more than ${CHAIN_MOVE_MAX_SUBTREE} links below it, the most one move takes`,
      );
    }
    if (bounds.parentDepth !== null && bounds.parentDepth + 1 + bounds.below > MAX_CHAIN_DEPTH) {
      throw Errors.invalid(
        'parent',
        `the link's cascade would reach ${bounds.parentDepth + 1 + bounds.below} generations below its root, more than the ${MAX_CHAIN_DEPTH} a cascade holds`,
      );
    }
  }

  /**
   * Records, in the re-parent's transaction (under the lock checkParent took, so a project's moves
   * are numbered in the order they commit), that the link's subtree is to move; the move's id.
   */
  record(link: LinkEntity, manager: EntityManager): Promise<string> {
    return this.repository.addMove(link.projectId, link.id, manager);
  }

  /**
   * Hands a recorded move to the `chain-moves` queue, with a job id of its own (the link's and the
   * move's). While the queue's Redis is unreachable the project's moves run before the answer
   * instead: a move left undone would leave the subtree under the link's old place.
   */
  async enqueue(link: LinkEntity, move: string): Promise<void> {
    const job: ChainMoveJob = { projectId: link.projectId, linkId: link.id, move };
    try {
      await this.queue.add(QUEUES.chainMoves, 'move', job, {
        failFast: true,
        jobId: `link-${link.id}-move-${move}`,
      });
    } catch (error) {
      this.logger.warn(
        { err: error, linkId: link.id },
        'chain-moves queue unreachable: moving the subtree now',
      );
      await this.run(link.projectId, true);
    }
  }

  /**
   * A job: runs the project's recorded moves, unless they are running already (then returns 0).
   * Returns the descendants moved.
   */
  async move(job: ChainMoveJob): Promise<number> {
    if (job.move === undefined) await this.repository.addMove(job.projectId, job.linkId);
    return this.run(job.projectId, false);
  }

  /**
   * Runs the project's moves until none is left. Without `wait`, ends at once when a run of the
   * project is under way here or elsewhere (it looks for rows again before it ends); with it, waits
   * its turn.
   */
  private async run(projectId: string, wait: boolean): Promise<number> {
    let moved = 0;
    for (;;) {
      const running = this.running.get(projectId);
      if (running) {
        if (!wait) return moved;
        await running.catch(() => undefined);
        continue;
      }
      const run = this.runMoves(projectId, wait);
      this.running.set(projectId, run);
      let done: number | null;
      try {
        done = await run;
      } finally {
        this.running.delete(projectId);
      }
      if (done === null) return moved;
      moved += done;
      // A move recorded while the lock was held, whose job ended at once.
      if (!(await this.repository.hasMoves(projectId))) return moved;
    }
  }

  /** One run under the project's moves lock: null when another process holds it. */
  private async runMoves(projectId: string, wait: boolean): Promise<number | null> {
    const lock = await this.repository.lockMoves(projectId, wait);
    if (!lock) return null;
    try {
      let moved = 0;
      for (;;) {
        const next = await this.repository.findNextMove(projectId, lock.manager);
        if (!next) return moved;
        if (!next.superseded) moved += await this.moveSubtree(projectId, next.linkId, lock.manager);
        await this.repository.deleteMove(next.id, lock.manager);
      }
    } finally {
      await lock.release();
    }
  }

  /**
   * Gives every descendant of the link its chain under the link's current one, a batch at a time
   * (ChainMovesRepository.moveDescendants), and mirrors each batch's chains at a version taken
   * after the update that moved the link was mirrored. Returns the descendants moved.
   */
  private async moveSubtree(
    projectId: string,
    linkId: string,
    manager: EntityManager | undefined,
  ): Promise<number> {
    let cursor = '0';
    let moved = 0;
    for (;;) {
      const version = Date.now() * 1000;
      const { chains, last } = await this.repository.moveDescendants(
        projectId,
        linkId,
        cursor,
        CHAIN_MOVE_BATCH,
        manager,
      );
      if (last === null) break;
      await this.mirror.moveChains(chainRows(chains, version));
      moved += chains.length;
      cursor = last;
    }
    return moved;
  }
}
