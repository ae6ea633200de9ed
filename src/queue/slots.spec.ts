import { Slots } from './slots';

/** A task that runs until released, recording when it starts. */
function gate(started: number[], id: number) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return {
    task: async () => {
      started.push(id);
      await done;
      return id;
    },
    release: () => release(),
  };
}

describe('Slots', () => {
  it('runs at most `size` tasks at once, the others in arrival order as slots free', async () => {
    const slots = new Slots(2);
    const started: number[] = [];
    const gates = [0, 1, 2, 3].map((id) => gate(started, id));
    const runs = gates.map((g) => slots.run(g.task));
    await new Promise(setImmediate);
    expect(started).toEqual([0, 1]);
    expect(slots.queued).toBe(2);
    gates[1].release();
    await new Promise(setImmediate);
    expect(started).toEqual([0, 1, 2]);
    gates[0].release();
    gates[2].release();
    gates[3].release();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(slots.queued).toBe(0);
  });

  it('skips a waiting task whose signal was aborted before its turn, and frees its slot', async () => {
    const slots = new Slots(1);
    const started: number[] = [];
    const first = gate(started, 0);
    const running = slots.run(first.task);
    const abort = new AbortController();
    const skipped = slots.run(gate(started, 1).task, abort.signal);
    abort.abort(new Error('gave up'));
    first.release();
    await expect(skipped).rejects.toThrow('gave up');
    await running;
    expect(started).toEqual([0]);
    const third = gate(started, 2);
    const after = slots.run(third.task);
    await new Promise(setImmediate);
    expect(started).toEqual([0, 2]);
    third.release();
    expect(await after).toBe(2);
  });

  it('frees the slot of a task that throws', async () => {
    const slots = new Slots(1);
    await expect(slots.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await slots.run(() => Promise.resolve(7))).toBe(7);
  });
});
