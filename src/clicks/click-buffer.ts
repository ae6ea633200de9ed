import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { Enqueued, JobQueue } from '../queue/job-queue';
import { QUEUES } from '../queue/queue-names';
import { ClickBatch, ClickEvent, packClicks } from './click-event';
import { ClickSpool } from './click-spool';

/** A batch goes out after this long or at this size, whichever comes first (docs/architecture.md). */
export const FLUSH_INTERVAL_MS = 100;
export const FLUSH_SIZE = 1000;
/** Clicks kept in memory while the queue is unreachable; older ones are spilled to disk. */
const MEMORY_LIMIT = 50_000;
/** How long one hand-over to the queue may take before it counts as failed. */
const ENQUEUE_TIMEOUT_MS = 2000;
const RETRY_MS = 1000;

type FlushMode = 'full' | 'due' | 'all';

/**
 * The clicks journaled and waiting for the `clicks` queue, handed to it in batches: a job per
 * FLUSH_SIZE clicks, or once the oldest has waited FLUSH_INTERVAL_MS. While the queue (Redis) is
 * unreachable, batches wait in memory, then in the spool (ClickSpool), and go out when it is back;
 * at shutdown everything is flushed or spilled. A batch handed over twice is harmless: ingestion is
 * idempotent by click id.
 *
 * The clicks come from the journal (take), numbered by their journal position. Once the queue holds
 * a batch for good (Enqueued.stored), or the spool does, its positions are held: the journal asks
 * for them (nextHeld) and releases them.
 */
@Injectable()
export class ClickBuffer {
  private readonly logger = new Logger('ClickBuffer');
  private pending: ClickEvent[] = [];
  /** The journal position of pending[0]. */
  private head = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private failing = false;
  private spooled = false;
  private closed = false;
  private stopped = false;
  /** Journal positions [from, to) held for good since the journal last asked, as pairs. */
  private held: number[] = [];
  private wakeHeld: (() => void) | null = null;
  /** Clicks kept in memory while the queue is unreachable before the oldest are spilled (tests lower it). */
  memoryLimit = MEMORY_LIMIT;

  constructor(
    private readonly queue: JobQueue,
    private readonly spool: ClickSpool,
  ) {}

  /** Clicks waiting in this process for the queue. */
  get size(): number {
    return this.pending.length;
  }

  /** Takes journaled clicks, at journal positions [from, from + clicks.length). */
  take(clicks: ClickEvent[], from: number): void {
    if (this.pending.length === 0) this.head = from;
    for (const click of clicks) this.pending.push(click);
    if (this.pending.length >= FLUSH_SIZE && !this.failing) void this.sendBatches('full');
    else this.schedule(this.failing ? RETRY_MS : this.dueIn());
  }

  /**
   * The journal positions held for good (by the queue or the spool) since the last call, as pairs
   * [from, to); waits for some. Null once the buffer has stopped and nothing is left.
   */
  async nextHeld(): Promise<number[] | null> {
    while (this.held.length === 0) {
      if (this.stopped) return null;
      await new Promise<void>((resolve) => (this.wakeHeld = resolve));
    }
    const held = this.held;
    this.held = [];
    return held;
  }

  /** Clicks recovered from the journal of a process that died: a spool file of their own. */
  async recover(clicks: ClickEvent[]): Promise<void> {
    await this.spool.save(clicks);
  }

  /** At start: spooled clicks (of an earlier run, or just recovered) go out once the queue takes them. */
  async start(): Promise<void> {
    try {
      this.spooled = await this.spool.reclaim();
    } catch {
      this.spooled = false;
    }
    if (this.spooled) this.schedule(FLUSH_INTERVAL_MS);
  }

  /**
   * Hands every buffered click to the queue (or, failing that, keeps or spills them): a hand-over
   * already running is waited for, then whatever is left goes out.
   */
  async flush(): Promise<void> {
    do await this.sendBatches('all');
    while (this.pending.length > 0 && !this.failing);
  }

  /**
   * At shutdown: every buffered click goes to the queue (and, in-process, is written), or to the
   * spool when the queue is unreachable.
   */
  async stop(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
    if (this.pending.length > 0) {
      await this.spillOldest(this.pending.length);
      this.logger.warn('queue unreachable at shutdown: clicks spilled to disk, sent at next start');
    }
    await this.queue.drain();
    this.stopped = true;
    this.wake();
  }

  /** How long until the oldest pending click has waited FLUSH_INTERVAL_MS. */
  private dueIn(): number {
    const waited = Date.now() - this.pending[0].clickedAt;
    return Math.min(FLUSH_INTERVAL_MS, Math.max(0, FLUSH_INTERVAL_MS - waited));
  }

  /**
   * One hand-over run at a time. `full` sends full batches only; `due` (the interval elapsed) sends
   * the oldest batch however small, then full ones; `all` sends everything. Under load, clicks that
   * arrive while a batch is on its way wait for the next full batch or their interval rather than
   * going out as a small job each round trip (each job costs the queue and the database the same
   * whatever its size).
   */
  private sendBatches(mode: FlushMode): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = this.flushAll(mode).finally(() => {
      this.flushing = null;
      if (this.pending.length > 0 && !this.closed) {
        if (this.failing) this.schedule(RETRY_MS);
        else if (this.pending.length >= FLUSH_SIZE) void this.sendBatches('full');
        else {
          // The interval counts from the oldest click left waiting.
          if (this.timer) clearTimeout(this.timer);
          this.timer = null;
          this.schedule(this.dueIn());
        }
      }
    });
    return this.flushing;
  }

  private schedule(delay: number): void {
    if (this.timer || (this.closed && this.pending.length === 0)) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.sendBatches('due');
    }, delay);
    this.timer.unref();
  }

  private async flushAll(mode: FlushMode): Promise<void> {
    // A batch under FLUSH_SIZE goes out only as the first of a `due` run, in an `all` run, or at shutdown.
    let small = mode !== 'full';
    while (this.pending.length > 0) {
      if (this.pending.length < FLUSH_SIZE && !small && !this.closed) break;
      small = mode === 'all';
      const batch = this.pending.slice(0, FLUSH_SIZE);
      const from = this.head;
      const enqueued = await this.send(batch);
      if (!enqueued) {
        this.failing = true;
        if (this.pending.length > this.memoryLimit)
          await this.spillOldest(this.pending.length - this.memoryLimit);
        return;
      }
      this.pending.splice(0, batch.length);
      this.head += batch.length;
      void enqueued.stored.then((stored) => {
        if (stored) this.hold(from, from + batch.length);
      });
    }
    if (this.failing || this.spooled) await this.drainSpool();
    this.failing = false;
  }

  /** Hands a batch to the queue; null when it could not (the queue is unreachable or too slow). */
  private async send(clicks: ClickEvent[]): Promise<Enqueued | null> {
    let timer: NodeJS.Timeout | undefined;
    try {
      // A hand-over that timed out is made again: should the first still arrive, its answer is not
      // the one awaited.
      return await Promise.race([
        this.queue.add<ClickBatch>(QUEUES.clicks, 'ingest', packClicks(clicks), {
          jobId: randomUUID(),
          // Outlives database outages: a steady retry for days rather than giving up.
          attempts: 500_000,
          fixedBackoffMs: 1000,
          failFast: true,
          // Batches are large and frequent: a finished one is dropped from Redis at once.
          keepCompleted: false,
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('enqueue timed out')), ENQUEUE_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      if (!this.failing) this.logger.warn(`clicks wait in the buffer: ${(error as Error).message}`);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Moves the n oldest clicks to the spool, which holds them instead of the journal. */
  private async spillOldest(n: number): Promise<void> {
    const from = this.head;
    const clicks = this.pending.splice(0, n);
    this.head += n;
    if (clicks.length === 0) return;
    await this.spool.spill(clicks);
    this.spooled = true;
    this.hold(from, from + n);
  }

  /** Sends spooled clicks (from this run or an earlier one) once the queue answers again. */
  private async drainSpool(): Promise<void> {
    let files: string[];
    try {
      files = await this.spool.files();
    } catch {
      this.spooled = false;
      return;
    }
    for (const name of files) {
      const claimed = await this.spool.claim(name);
      if (!claimed) continue;
      const clicks = await this.spool.read(claimed);
      const stored: Promise<boolean>[] = [];
      for (let i = 0; i < clicks.length; i += FLUSH_SIZE) {
        const enqueued = await this.send(clicks.slice(i, i + FLUSH_SIZE));
        if (!enqueued) {
          await this.spool.unclaim(claimed, name);
          return;
        }
        stored.push(enqueued.stored);
      }
      // The file goes once the queue holds all of it for good (in-process: once its jobs have run);
      // a process that dies before that leaves the claimed file, sent again at the next start.
      void Promise.all(stored).then(async (all) => {
        if (all.every(Boolean)) await this.spool.remove(claimed);
      });
    }
    this.spooled = false;
  }

  /** Journal positions [from, to) are held for good now: the journal may release them. */
  private hold(from: number, to: number): void {
    this.held.push(from, to);
    this.wake();
  }

  private wake(): void {
    const wake = this.wakeHeld;
    this.wakeHeld = null;
    wake?.();
  }
}
