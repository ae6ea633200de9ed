import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, readFile, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { JobQueue } from '../queue/job-queue';
import { QUEUES } from '../queue/queue-names';
import { ClickBatch, ClickEvent, clickId, packClicks } from './click-event';
import { ClickJournal } from './click-journal';

/** A batch goes out after this long or at this size, whichever comes first (DESIGN.md). */
export const FLUSH_INTERVAL_MS = 100;
export const FLUSH_SIZE = 1000;
/** Clicks kept in memory while the queue is unreachable; older ones are spilled to disk. */
const MEMORY_LIMIT = 50_000;
/** How long one hand-over to the queue may take before it counts as failed. */
const ENQUEUE_TIMEOUT_MS = 2000;
const RETRY_MS = 1000;

/**
 * Redirects never wait for storage: each click is appended here and handed to the `clicks` queue in
 * batches. While the queue (Redis) is unreachable, batches wait in memory, then on disk under
 * DATA_DIR/spool, and go out when it is back; at shutdown everything is flushed or spilled. A batch
 * that was handed over twice is harmless: ingestion is idempotent by click id.
 *
 * A crash must not lose the clicks of redirects already answered: each event-loop turn's clicks are
 * written to the journal (DATA_DIR/journal) in one write before their redirects are answered, and
 * released from it once the queue holds them for good (ClickJournal); the next start sends what a
 * dead process left there.
 */
@Injectable()
export class ClickBuffer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ClickBuffer');
  private pending: ClickEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private failing = false;
  private spooled = false;
  private closed = false;
  private readonly journal: ClickJournal;
  /** The journal position of pending[0]. */
  private taken = 0;
  /** Clicks at the end of `pending` not yet in the journal, and the redirects waiting for that. */
  private unjournaled = 0;
  private answers: (() => void)[] = [];
  private turnEnding = false;
  /** Clicks kept in memory while the queue is unreachable before the oldest are spilled (tests lower it). */
  memoryLimit = MEMORY_LIMIT;

  constructor(
    private readonly config: AppConfig,
    private readonly queue: JobQueue,
  ) {
    this.journal = new ClickJournal(path.join(config.dataDir, 'journal'));
  }

  get size(): number {
    return this.pending.length;
  }

  get spoolDir(): string {
    return path.join(this.config.dataDir, 'spool');
  }

  /** Clicks in the journal not yet held by the queue or the spool. */
  get journaled(): number {
    return this.journal.unreleased;
  }

  /**
   * Takes a click; `answer` (its redirect's response) runs once the click is in the journal: at the
   * end of this event-loop turn, after one write of the turn's clicks.
   */
  push(click: ClickEvent, answer?: () => void): void {
    this.pending.push(click);
    this.unjournaled++;
    if (answer) this.answers.push(answer);
    if (!this.turnEnding) {
      this.turnEnding = true;
      setImmediate(this.endTurn);
    }
    if (this.pending.length >= FLUSH_SIZE && !this.failing) void this.sendBatches('full');
    else this.schedule(this.failing ? RETRY_MS : FLUSH_INTERVAL_MS);
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
          this.schedule(Math.max(0, FLUSH_INTERVAL_MS - (Date.now() - this.pending[0].clickedAt)));
        }
      }
    });
    return this.flushing;
  }

  /** The turn's clicks go to the journal in one write; then their redirects are answered. */
  private readonly endTurn = (): void => {
    this.turnEnding = false;
    this.writeJournal();
    const answers = this.answers;
    this.answers = [];
    for (const answer of answers) {
      try {
        answer();
      } catch (error) {
        this.logger.error({ err: error }, 'answer after the click journal failed');
      }
    }
  };

  /** Writes the clicks not yet in the journal: always done before any click leaves `pending`. */
  private writeJournal(): void {
    if (this.unjournaled === 0) return;
    this.journal.append(this.pending.slice(this.pending.length - this.unjournaled));
    this.unjournaled = 0;
  }

  /**
   * What a process that died left in its journal, and clicks spilled by an earlier run, go out once
   * this one is up (the journal is taken over before the server listens).
   */
  async onApplicationBootstrap(): Promise<void> {
    try {
      const recovered = await this.journal.takeOver((clicks) => this.spoolRecovered(clicks));
      if (recovered > 0) this.logger.warn(`${recovered} clicks recovered from the journal of a process that died`);
    } catch (error) {
      this.logger.error({ err: error }, 'click journal recovery failed');
    }
    try {
      // A file claimed by a run that died while sending it goes out again (ingestion is idempotent).
      for (const name of (await readdir(this.spoolDir)).filter(isOrphanedClaim)) {
        await rename(path.join(this.spoolDir, name), path.join(this.spoolDir, name.replace(/\.sending$/, '.ndjson')));
      }
      this.spooled = (await readdir(this.spoolDir)).some((f) => f.endsWith('.ndjson'));
    } catch {
      this.spooled = false;
    }
    if (this.spooled) this.schedule(FLUSH_INTERVAL_MS);
  }

  /**
   * Before any connection closes: every buffered click goes to the queue (and, in-process, is
   * written), or to the spool when the queue is unreachable.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
    if (this.pending.length > 0) {
      await this.spillOldest(this.pending.length);
      this.logger.warn('queue unreachable at shutdown: clicks spilled to disk, sent at next start');
    }
    await this.queue.drain();
    this.journal.close();
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
      this.writeJournal();
      const batch = this.pending.slice(0, FLUSH_SIZE);
      const from = this.taken;
      if (!(await this.send(batch, () => this.journal.release(from, from + batch.length)))) {
        this.failing = true;
        if (this.pending.length > this.memoryLimit) await this.spillOldest(this.pending.length - this.memoryLimit);
        return;
      }
      this.pending.splice(0, batch.length);
      this.taken += batch.length;
    }
    if (this.failing || this.spooled) await this.drainSpool();
    this.failing = false;
  }

  /** Hands a batch to the queue; `stored` runs once the queue holds it for good (EnqueueOptions.onStored). */
  private async send(clicks: ClickEvent[], stored?: () => void): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    // A hand-over that timed out is made again: should the first still arrive, it is not the one reported.
    let gaveUp = false;
    try {
      await Promise.race([
        this.queue.add<ClickBatch>(QUEUES.clicks, 'ingest', packClicks(clicks), {
          jobId: randomUUID(),
          // Outlives database outages: a steady retry for days rather than giving up.
          attempts: 500_000,
          fixedBackoffMs: 1000,
          failFast: true,
          // Batches are large and frequent: a finished one is dropped from Redis at once.
          keepCompleted: false,
          onStored: stored && (() => gaveUp || stored()),
        }),
        new Promise((_, reject) => {
          timer = setTimeout(() => {
            gaveUp = true;
            reject(new Error('enqueue timed out'));
          }, ENQUEUE_TIMEOUT_MS);
        }),
      ]);
      return true;
    } catch (error) {
      if (!this.failing) this.logger.warn(`clicks wait in the buffer: ${(error as Error).message}`);
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Moves the n oldest clicks to the spool, which holds them instead of the journal. */
  private async spillOldest(n: number): Promise<void> {
    this.writeJournal();
    const from = this.taken;
    const clicks = this.pending.splice(0, n);
    this.taken += n;
    await this.spill(clicks);
    this.journal.release(from, from + n);
  }

  /**
   * Clicks recovered from a dead process's journal, as a spool file of their own: written whole under
   * another name first, so that a drain never reads half of it.
   */
  private async spoolRecovered(clicks: ClickEvent[]): Promise<void> {
    await mkdir(this.spoolDir, { recursive: true });
    const file = path.join(this.spoolDir, `journal-${this.journal.instance}-${randomUUID()}`);
    await writeFile(`${file}.tmp`, clicks.map((c) => JSON.stringify({ ...c, id: clickId(c) })).join('\n') + '\n', 'utf8');
    await rename(`${file}.tmp`, `${file}.ndjson`);
  }

  /** Appends clicks to a spool file (one JSON line per click). */
  private async spill(clicks: ClickEvent[]): Promise<void> {
    if (clicks.length === 0) return;
    await mkdir(this.spoolDir, { recursive: true });
    const file = path.join(this.spoolDir, `clicks-${process.pid}.ndjson`);
    // Ids in full: the next process makes other ids from the same sequence numbers.
    await appendFile(file, clicks.map((c) => JSON.stringify({ ...c, id: clickId(c) })).join('\n') + '\n', 'utf8');
    this.spooled = true;
  }

  /** Sends spooled clicks (from this run or an earlier one) once the queue answers again. */
  private async drainSpool(): Promise<void> {
    let files: string[];
    try {
      files = (await readdir(this.spoolDir)).filter((f) => f.endsWith('.ndjson'));
    } catch {
      this.spooled = false;
      return;
    }
    for (const name of files) {
      // Claimed by renaming, so two processes never send one file.
      const claimed = path.join(this.spoolDir, `${name}.${process.pid}.sending`);
      try {
        await rename(path.join(this.spoolDir, name), claimed);
      } catch {
        continue;
      }
      const clicks = (await readFile(claimed, 'utf8'))
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => fromSpool(JSON.parse(line) as SpooledClick));
      // The file goes once the queue holds all of it for good (in-process: once its jobs have run);
      // a process that dies before that leaves the claimed file, sent again at the next start.
      let unstored = 0;
      let sent = false;
      const remove = () => unlink(claimed).catch(() => undefined);
      const stored = () => {
        if (--unstored === 0 && sent) void remove();
      };
      for (let i = 0; i < clicks.length; i += FLUSH_SIZE) {
        unstored++;
        if (!(await this.send(clicks.slice(i, i + FLUSH_SIZE), stored))) {
          await rename(claimed, path.join(this.spoolDir, name)).catch(() => undefined);
          return;
        }
      }
      sent = true;
      if (unstored === 0) await remove();
    }
    this.spooled = false;
  }
}

type FlushMode = 'full' | 'due' | 'all';

/** A spooled click: files of earlier versions hold its time as an ISO 8601 string. */
type SpooledClick = ClickEvent | (Omit<ClickEvent, 'clickedAt'> & { clickedAt: string });

function fromSpool(click: SpooledClick): ClickEvent {
  return typeof click.clickedAt === 'string' ? { ...click, clickedAt: Date.parse(click.clickedAt) } : (click as ClickEvent);
}

/** `<file>.<pid>.sending` of a process that is gone, or of an earlier run with this pid (containers). */
function isOrphanedClaim(name: string): boolean {
  const pid = /\.(\d+)\.sending$/.exec(name)?.[1];
  if (pid === undefined) return false;
  if (Number(pid) === process.pid) return true;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
