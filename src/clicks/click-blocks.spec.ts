import { ByteSink } from './byte-sink';
import { FLUSH_SIZE } from './click-buffer';
import { ClickColumns } from './click-event';
import { BlockBatch, COALESCE_INTERVAL_MS, COALESCE_MAX_ROWS, ClickBlocks } from './click-blocks';
import { CLICK_JOB_CONCURRENCY } from './clicks.processor';
import { ClicksRepository, EncodedBatch } from './clicks.repository';

/** The fake repository writes ids only: the batches' dimensions are not read. */
const NOTHING_DESCRIBED = { places: [], agents: [], referrers: [] };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A live batch of these click ids, a line each. */
function clicks(...ids: string[]): BlockBatch {
  return {
    columns: { ids } as ClickColumns,
    indexes: ids.map((_, i) => i),
    stamps: new Map(),
    described: NOTHING_DESCRIBED,
  };
}

/** A batch whose encoding throws after it wrote half a line. */
const BROKEN = 'broken';

/**
 * A store whose inserts take `latencyMs`, recording each block's click ids, lines, batches' rows,
 * memory and start time; `fail` makes the next insert fail. Its rows are the click ids, a line each.
 */
function store(latencyMs: number) {
  const blocks: {
    ids: string[];
    lines: string;
    rows: number[];
    memory: ArrayBufferLike;
    at: number;
  }[] = [];
  const state = { fail: false };
  const write = async (sink: ByteSink, batches: EncodedBatch[]) => {
    const bytes = sink.bytes;
    const lines = bytes.toString('utf8');
    blocks.push({
      ids: lines.split('\n').slice(0, -1),
      lines,
      rows: batches.map((b) => b.rows),
      memory: bytes.buffer,
      at: Date.now(),
    });
    const failing = state.fail;
    state.fail = false;
    await sleep(latencyMs);
    if (failing) throw new Error('store down');
  };
  const repository = {
    newSink: () => new ByteSink(),
    encode: (
      columns: ClickColumns,
      indexes: readonly number[],
      _stamps: unknown,
      _described: unknown,
      sink: ByteSink,
    ): EncodedBatch => {
      for (const i of indexes) {
        if (columns.ids[i] === BROKEN) {
          sink.write('half a li');
          throw new Error('bad batch');
        }
        sink.write(`${columns.ids[i]}\n`);
      }
      return { rows: indexes.length, token: columns.ids.join(), stamped: true };
    },
    insert: write,
  } as unknown as ClicksRepository;
  return { write: repository, blocks, state };
}

describe('ClickBlocks: live batches', () => {
  it('inserts a batch at once when no insert is in flight', async () => {
    const { write, blocks } = store(10);
    const coalescer = new ClickBlocks(write, 2_000);
    const started = Date.now();
    await coalescer.add(clicks('a', 'b'));
    expect(blocks).toEqual([
      {
        ids: ['a', 'b'],
        lines: 'a\nb\n',
        rows: [2],
        memory: expect.anything(),
        at: expect.any(Number),
      },
    ]);
    // At once, not after the interval.
    expect(blocks[0].at - started).toBeLessThan(1_000);
  });

  it('puts the batches that arrive during an insert into one block, the same batch once, started the interval after the last', async () => {
    const { write, blocks } = store(30);
    const coalescer = new ClickBlocks(write, 200);
    const settled: string[] = [];
    const first = coalescer.add(clicks('a')).then(() => settled.push('first'));
    const second = coalescer.add(clicks('b', 'c')).then(() => settled.push('second'));
    const again = coalescer.add(clicks('b', 'c')).then(() => settled.push('again'));
    const third = coalescer.add(clicks('d')).then(() => settled.push('third'));
    await first;
    // The first block is stored; the others wait for their block.
    expect(settled).toEqual(['first']);
    await Promise.all([second, again, third]);
    expect(blocks.map((b) => b.ids)).toEqual([['a'], ['b', 'c', 'd']]);
    expect(blocks[1].lines).toBe('b\nc\nd\n');
    expect(blocks[1].at - blocks[0].at).toBeGreaterThanOrEqual(195);
    expect(settled).toEqual(['first', 'second', 'again', 'third']);
  });

  it('starts a waiting block of maxRows clicks as soon as the insert in flight ends', async () => {
    const { write, blocks } = store(20);
    const coalescer = new ClickBlocks(write, 10_000, 3);
    const first = coalescer.add(clicks('a'));
    const full = coalescer.add(clicks('b', 'c', 'd'));
    await Promise.all([first, full]);
    expect(blocks.map((b) => b.ids)).toEqual([['a'], ['b', 'c', 'd']]);
    expect(blocks[1].at - blocks[0].at).toBeLessThan(1000);
  });

  it('rejects every batch of a failed block with its error and goes on with the next', async () => {
    const { write, blocks, state } = store(20);
    // An interval well above a loaded machine's pauses, so that 'b' and 'c' are sure to wait.
    const coalescer = new ClickBlocks(write, 500);
    await coalescer.add(clicks('a'));
    state.fail = true;
    // 'a' started less than 500 ms before: 'b' and 'c' wait, go in as one block and fail together.
    const failed = [coalescer.add(clicks('b')), coalescer.add(clicks('c'))];
    await expect(failed[0]).rejects.toThrow('store down');
    await expect(failed[1]).rejects.toThrow('store down');
    await coalescer.add(clicks('d'));
    expect(blocks.map((b) => b.ids)).toEqual([['a'], ['b', 'c'], ['d']]);
  });

  it("takes a backlog as fast as the store does, not a block per interval (the worker's jobs of full batches)", async () => {
    // As the clicks worker does: CLICK_JOB_CONCURRENCY jobs at once, each a full batch that waits
    // for its block before the next job starts; three windows' worth of jobs.
    const { write, blocks } = store(40);
    const coalescer = new ClickBlocks(write);
    const jobs = 3 * CLICK_JOB_CONCURRENCY;
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CLICK_JOB_CONCURRENCY }, async () => {
        while (next < jobs) {
          const job = next++;
          await coalescer.add(
            clicks(...Array.from({ length: FLUSH_SIZE }, (_, i) => `${job}:${i}`)),
          );
        }
      }),
    );
    expect(blocks.flatMap((b) => b.ids)).toHaveLength(jobs * FLUSH_SIZE);
    // Blocks start once COALESCE_MAX_ROWS clicks wait, which the worker's jobs reach while a block
    // is in flight: every block but the backlog's tail (fewer clicks, so it waits for the interval)
    // starts at once. A threshold above what the jobs hold at once would start a block per interval:
    // the n-th no sooner than n intervals in. (The margin below that is for a loaded machine.)
    const beforeTail = blocks.slice(0, -1);
    expect(beforeTail.length).toBeGreaterThanOrEqual(3);
    for (const [i, block] of beforeTail.entries())
      expect(block.at - started).toBeLessThan((i + 1) * COALESCE_INTERVAL_MS * 0.9);
    expect(COALESCE_MAX_ROWS).toBeLessThan(CLICK_JOB_CONCURRENCY * FLUSH_SIZE);
  });

  it('writes every block into one of two sinks kept from block to block (one in flight, one filling), each block holding only its own lines', async () => {
    const { write, blocks } = store(20);
    const coalescer = new ClickBlocks(write, 0);
    for (let round = 0; round < 4; round++) {
      // The first batch goes in at once; the others fill the next block while it is in flight.
      await Promise.all([
        coalescer.add(clicks(`${round}a`)),
        coalescer.add(clicks(`${round}b`, `${round}c`)),
      ]);
    }
    expect(blocks.map((b) => b.lines)).toEqual([
      '0a\n',
      '0b\n0c\n',
      '1a\n',
      '1b\n1c\n',
      '2a\n',
      '2b\n2c\n',
      '3a\n',
      '3b\n3c\n',
    ]);
    expect(blocks.map((b) => b.rows)).toEqual([[1], [2], [1], [2], [1], [2], [1], [2]]);
    expect(new Set(blocks.map((b) => b.memory)).size).toBe(2);
  });

  it('lets go of a sink that grew past maxKeptBytes instead of keeping it for the next blocks', async () => {
    const { write, blocks } = store(5);
    const kept = (1 << 20) + 1;
    const coalescer = new ClickBlocks(write, 0, COALESCE_MAX_ROWS, kept);
    await coalescer.add(clicks('a'));
    await coalescer.add(clicks('b'));
    // A block of 2 MB grows its sink past the limit: the block after it starts in new memory.
    await coalescer.add(clicks('x'.repeat(2 << 20)));
    await coalescer.add(clicks('c'));
    await coalescer.add(clicks('d'));
    const memory = blocks.map((b) => b.memory);
    expect(memory[1]).toBe(memory[0]);
    expect(memory[3]).not.toBe(memory[2]);
    expect(memory[4]).toBe(memory[3]);
    expect(blocks.map((b) => b.rows)).toEqual([[1], [1], [1], [1], [1]]);
  });

  it('rejects a batch whose encode throws and leaves its block as it was', async () => {
    const { write, blocks } = store(20);
    const coalescer = new ClickBlocks(write, 50);
    const broken = clicks(BROKEN);
    await coalescer.add(clicks('a'));
    // 'a' started less than 50 ms before: the three wait for one block.
    const [b, bad, c] = [
      coalescer.add(clicks('b')),
      coalescer.add(broken),
      coalescer.add(clicks('c')),
    ];
    await expect(bad).rejects.toThrow('bad batch');
    await Promise.all([b, c]);
    // A block of the broken batch alone inserts nothing; the next batch goes in as it should.
    await expect(coalescer.add(broken)).rejects.toThrow('bad batch');
    await coalescer.add(clicks('d'));
    expect(blocks.map((block) => block.lines)).toEqual(['a\n', 'b\nc\n', 'd\n']);
  });
});
