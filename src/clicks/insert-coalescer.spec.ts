import { FLUSH_SIZE } from './click-buffer';
import { CLICK_JOB_CONCURRENCY } from './clicks.processor';
import { COALESCE_INTERVAL_MS, COALESCE_MAX_ROWS, EncodedBatch, InsertCoalescer, batchKey } from './insert-coalescer';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function clicks(...ids: string[]): EncodedBatch {
  return { rows: ids.length, key: batchKey(ids), token: ids.join(), bytes: Buffer.from(ids.map((id) => `${id}\n`).join('')), stamped: true };
}

/** A store whose inserts take `latencyMs`, recording each block's click ids and start time; `fail` makes the next insert fail. */
function store(latencyMs: number) {
  const blocks: { ids: string[]; lines: string; at: number }[] = [];
  const state = { fail: false };
  const write = async (block: EncodedBatch[]) => {
    const lines = block.map((b) => b.bytes.toString('utf8')).join('');
    blocks.push({ ids: lines.split('\n').slice(0, -1), lines, at: Date.now() });
    const failing = state.fail;
    state.fail = false;
    await sleep(latencyMs);
    if (failing) throw new Error('store down');
  };
  return { write, blocks, state };
}

describe('InsertCoalescer', () => {
  it('inserts a batch at once when no insert is in flight', async () => {
    const { write, blocks } = store(10);
    const coalescer = new InsertCoalescer(write, 250);
    const started = Date.now();
    await coalescer.add(clicks('a', 'b'));
    expect(blocks).toEqual([{ ids: ['a', 'b'], lines: 'a\nb\n', at: expect.any(Number) }]);
    expect(blocks[0].at - started).toBeLessThan(50);
  });

  it('puts the batches that arrive during an insert into one block, the same batch once, started the interval after the last', async () => {
    const { write, blocks } = store(30);
    const coalescer = new InsertCoalescer(write, 200);
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
    const coalescer = new InsertCoalescer(write, 10_000, 3);
    const first = coalescer.add(clicks('a'));
    const full = coalescer.add(clicks('b', 'c', 'd'));
    await Promise.all([first, full]);
    expect(blocks.map((b) => b.ids)).toEqual([['a'], ['b', 'c', 'd']]);
    expect(blocks[1].at - blocks[0].at).toBeLessThan(1000);
  });

  it('rejects every batch of a failed block with its error and goes on with the next', async () => {
    const { write, blocks, state } = store(20);
    const coalescer = new InsertCoalescer(write, 50);
    await coalescer.add(clicks('a'));
    state.fail = true;
    // 'a' started less than 50 ms before: 'b' and 'c' wait, go in as one block and fail together.
    const failed = [coalescer.add(clicks('b')), coalescer.add(clicks('c'))];
    await expect(failed[0]).rejects.toThrow('store down');
    await expect(failed[1]).rejects.toThrow('store down');
    await coalescer.add(clicks('d'));
    expect(blocks.map((b) => b.ids)).toEqual([['a'], ['b', 'c'], ['d']]);
  });

  it('takes a backlog as fast as the store does, not a block per interval (the worker\'s jobs of full batches)', async () => {
    // As the clicks worker does: CLICK_JOB_CONCURRENCY jobs at once, each a full batch that waits
    // for its block before the next job starts; three windows' worth of jobs.
    const { write, blocks } = store(40);
    const coalescer = new InsertCoalescer(write);
    const jobs = 3 * CLICK_JOB_CONCURRENCY;
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CLICK_JOB_CONCURRENCY }, async () => {
        while (next < jobs) {
          const job = next++;
          await coalescer.add(clicks(...Array.from({ length: FLUSH_SIZE }, (_, i) => `${job}:${i}`)));
        }
      }),
    );
    expect(blocks.flatMap((b) => b.ids)).toHaveLength(jobs * FLUSH_SIZE);
    // Blocks start once COALESCE_MAX_ROWS clicks wait, which the worker's jobs reach while a block
    // is in flight: every block but the backlog's tail (fewer clicks, so it waits for the interval)
    // starts at once. A threshold above what the jobs hold at once would start a block per interval.
    const beforeTail = blocks.slice(0, -1);
    expect(beforeTail.length).toBeGreaterThanOrEqual(3);
    for (const block of beforeTail) expect(block.at - started).toBeLessThan(COALESCE_INTERVAL_MS / 2);
    expect(COALESCE_MAX_ROWS).toBeLessThan(CLICK_JOB_CONCURRENCY * FLUSH_SIZE);
  });
});
