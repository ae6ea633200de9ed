/**
 * A batch of clicks on its way into the store: its rows, encoded (TabSeparated lines as UTF-8
 * bytes: a block is its batches' bytes end to end, copied once), and what identifies its clicks.
 */
export interface EncodedBatch {
  /** How many clicks (lines). */
  rows: number;
  /** The same batch again has the same key (batchKey). */
  key: string;
  /** The deduplication token of its click ids (ClicksRepository's batchToken). */
  token: string;
  bytes: Buffer;
  /** Every click carries its link's stamp (none is UNSTAMPED: a link the mirror lacked). */
  stamped: boolean;
}

/**
 * Inserts into the store start at least this far apart while clicks keep coming. Each insert makes a
 * part (and its projections' parts) that the store later merges: at 20,000 redirects a second, a
 * block a second costs the embedded engine about a quarter less CPU per click than a block every
 * 250 ms (bench:redirect, "service CPU per redirect"), CPU that the redirects share.
 */
export const COALESCE_INTERVAL_MS = 1000;
/**
 * A waiting block this large starts as soon as no insert is in flight, whatever the interval: three
 * quarters of the clicks the worker holds at once (CLICK_JOB_CONCURRENCY jobs of up to FLUSH_SIZE), so a
 * backlog goes in as fast as the store takes it rather than a block per interval, while the
 * redirects' own clicks (about 20,000 a second on two cores) still go in about once a second.
 */
export const COALESCE_MAX_ROWS = 24_000;

/**
 * A live batch's key: its size and first and last click ids. A live batch's ids are its process's
 * sequence numbers, so two live batches with the same key are the same batch.
 */
export function batchKey(ids: readonly string[]): string {
  return `${ids.length}:${ids[0]}:${ids[ids.length - 1]}`;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Live click batches go into the store together. At most one insert is in flight, and inserts
 * start at least `intervalMs` apart: the batches that arrive meanwhile wait and then go in as one
 * block, its batches' bytes end to end (no object per click). A store that is idle takes a batch
 * at once, so a lone click waits for nothing; under load the store gets one large insert a second
 * instead of one per batch, and makes and merges that many fewer parts (the work that shares the
 * cores with the redirects when the store is embedded).
 *
 * Each batch's promise settles with its block: resolved once the block is stored, rejected with the
 * block's error (every batch of the block is then retried by its job, as a resent batch).
 */
export class InsertCoalescer {
  private waiting: { batches: EncodedBatch[]; rows: number; keys: Set<string>; waiters: Waiter[] } | null = null;
  private inFlight = false;
  private lastStart = -Infinity;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly write: (batches: EncodedBatch[]) => Promise<void>,
    private readonly intervalMs = COALESCE_INTERVAL_MS,
    private readonly maxRows = COALESCE_MAX_ROWS,
  ) {}

  /**
   * Adds a batch to the next block; settles when that block is stored or has failed. The same
   * batch twice in a block (the same key: batchKey) goes in once.
   */
  add(batch: EncodedBatch): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const block = (this.waiting ??= { batches: [], rows: 0, keys: new Set(), waiters: [] });
      if (!block.keys.has(batch.key)) {
        block.keys.add(batch.key);
        block.batches.push(batch);
        block.rows += batch.rows;
      }
      block.waiters.push({ resolve, reject });
      this.schedule();
    });
  }

  /** Starts the waiting block now, or sets the timer for when it may start. */
  private schedule(): void {
    if (!this.waiting || this.inFlight) return;
    const wait = this.waiting.rows >= this.maxRows ? 0 : this.lastStart + this.intervalMs - Date.now();
    if (wait <= 0) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.start();
    } else {
      this.timer ??= setTimeout(() => {
        this.timer = null;
        this.schedule();
      }, wait);
    }
  }

  private start(): void {
    const block = this.waiting!;
    this.waiting = null;
    this.inFlight = true;
    this.lastStart = Date.now();
    this.write(block.batches).then(
      () => this.finish(block.waiters, (waiter) => waiter.resolve()),
      (error: unknown) => this.finish(block.waiters, (waiter) => waiter.reject(error)),
    );
  }

  private finish(waiters: Waiter[], settle: (waiter: Waiter) => void): void {
    this.inFlight = false;
    for (const waiter of waiters) settle(waiter);
    this.schedule();
  }
}
