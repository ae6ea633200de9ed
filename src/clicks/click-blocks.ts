import { ClickColumns } from './click-event';
import type { VisitorStorage } from '../common/visitor-storage';
import { BatchDescription } from '../enrichment/click-enricher';
import { ClickSink, ClicksRepository, EncodedBatch } from './clicks.repository';

/**
 * Inserts into the store start at least this far apart while clicks keep coming. Each insert makes a
 * part (and its projections' parts) that the store later merges: fewer, larger blocks cost the
 * embedded engine less CPU per click, CPU that the redirects share (docs/benchmarks.md, "Costs
 * behind the code").
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
 * A block's sink is kept for the next blocks only while it holds at most this much memory. A
 * second of redirects makes blocks of about 8 MB (470 bytes a click); blocks of long referrers and
 * user agents (up to 2,048 characters each) can be many times that, and their memory is let go
 * rather than held for good.
 */
export const MAX_KEPT_SINK_BYTES = 32 * 1024 * 1024;

/**
 * A live batch's key: its size and first and last click ids. A live batch's ids are its process's
 * sequence numbers, so two live batches with the same key are the same batch.
 */
export function batchKey(ids: readonly string[]): string {
  return `${ids.length}:${ids[0]}:${ids[ids.length - 1]}`;
}

/**
 * A batch's clicks to write: those at `indexes`, each with its link's stamp (by link id: LinkStamps),
 * its dimensions (ClickEnricher.describe of the batch's lists) and its address and user agent as
 * its project keeps them (`storage`, by index into the batch's projects: ClicksRepository.encode).
 */
export interface BlockBatch {
  columns: ClickColumns;
  indexes: readonly number[];
  stamps: ReadonlyMap<string, string>;
  described: BatchDescription;
  storage?: readonly VisitorStorage[];
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** The block filling: its sink, its batches, their rows and keys, and who waits for it. */
interface Block {
  sink: ClickSink;
  batches: EncodedBatch[];
  rows: number;
  keys: Set<string>;
  waiters: Waiter[];
}

/**
 * The block writer: click batches go into the store (ClicksRepository) as blocks, each click once
 * (docs/architecture.md, "How a click flows").
 *
 * Live batches (add) go in together. At most one insert is in flight, and inserts start at least
 * `intervalMs` apart: the batches that arrive meanwhile wait and then go in as one block, each batch
 * written into the block's sink as it arrives (no object per click, and no copy of a second's bytes
 * into new memory). A block's sink is used again once its insert has ended, so two sinks serve every
 * block: the one in flight and the one filling. A store that is idle takes a batch at once, so a
 * lone click waits for nothing; under load the store gets one large insert a second instead of one
 * per batch, and makes and merges that many fewer parts (the work that shares the cores with the
 * redirects when the store is embedded). Each batch's promise settles with its block: resolved once
 * the block is stored, rejected with the block's error (every batch of the block is then retried by
 * its job, as a resent batch).
 *
 * A batch that may overlap clicks stored by another block goes in alone (insertAlone), after
 * leaving out the clicks the store holds (unstored).
 */
export class ClickBlocks {
  private waiting: Block | null = null;
  /** The sinks of blocks stored, for the next blocks (two at most: one in flight and one filling is all there is). */
  private readonly spares: ClickSink[] = [];
  private inFlight = false;
  private lastStart = -Infinity;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly repository: ClicksRepository,
    private readonly intervalMs = COALESCE_INTERVAL_MS,
    private readonly maxRows = COALESCE_MAX_ROWS,
    private readonly maxKeptBytes = MAX_KEPT_SINK_BYTES,
  ) {}

  /**
   * The indexes of the clicks of `columns` the store does not hold yet (ClicksRepository.storedIds),
   * for a batch that may overlap stored ones.
   */
  async unstored(columns: ClickColumns): Promise<number[]> {
    const stored = await this.repository.storedIds(columns);
    const indexes: number[] = [];
    for (let i = 0; i < columns.ids.length; i++) if (!stored.has(columns.ids[i])) indexes.push(i);
    return indexes;
  }

  /** Writes a batch as a block of its own; settles when it is stored or has failed. */
  async insertAlone(batch: BlockBatch): Promise<void> {
    const sink = this.repository.newSink();
    const encoded = this.repository.encode(
      batch.columns,
      batch.indexes,
      batch.stamps,
      batch.described,
      sink,
      batch.storage,
    );
    await this.repository.insert(sink, [encoded]);
  }

  /**
   * Writes a live batch into the next block; settles when that block is stored or has failed. The
   * same batch twice in a block (the same key: batchKey) goes in once. A batch whose encoding throws
   * leaves the block as it was and is rejected with that error.
   */
  add(batch: BlockBatch): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const key = batchKey(batch.columns.ids);
      const block = (this.waiting ??= {
        sink: this.takeSink(),
        batches: [],
        rows: 0,
        keys: new Set(),
        waiters: [],
      });
      if (!block.keys.has(key)) {
        const undo = block.sink.mark();
        let encoded: EncodedBatch;
        try {
          encoded = this.repository.encode(
            batch.columns,
            batch.indexes,
            batch.stamps,
            batch.described,
            block.sink,
            batch.storage,
          );
        } catch (error) {
          undo();
          // Thrown in the executor: the batch's promise is rejected with it.
          throw error;
        }
        block.keys.add(key);
        block.batches.push(encoded);
        block.rows += encoded.rows;
      }
      block.waiters.push({ resolve, reject });
      this.schedule();
    });
  }

  private takeSink(): ClickSink {
    const sink = this.spares.pop() ?? this.repository.newSink();
    sink.clear();
    return sink;
  }

  /** Starts the waiting block now, or sets the timer for when it may start. */
  private schedule(): void {
    // A block no batch waits for (its only batch's encode threw) waits for one.
    if (!this.waiting || this.waiting.waiters.length === 0 || this.inFlight) return;
    const wait =
      this.waiting.rows >= this.maxRows ? 0 : this.lastStart + this.intervalMs - Date.now();
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
    this.repository.insert(block.sink, block.batches).then(
      () => this.finish(block, (waiter) => waiter.resolve()),
      (error: unknown) => this.finish(block, (waiter) => waiter.reject(error)),
    );
  }

  private finish(block: Block, settle: (waiter: Waiter) => void): void {
    this.inFlight = false;
    // The insert has ended: the store is done with the block's bytes.
    if (this.spares.length < 2 && block.sink.capacity <= this.maxKeptBytes)
      this.spares.push(block.sink);
    for (const waiter of block.waiters) settle(waiter);
    this.schedule();
  }
}
