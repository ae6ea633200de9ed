import { StatementSettings } from '../analytics/analytics-client';
import { StatementYield, YIELDING_SETTINGS, YIELD_PAUSE } from './statement-yield';

describe('StatementYield', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** Statements that each take `ms` of the fake clock; records when each started and with what. */
  function statements(ms: number) {
    const runs: { at: number; settings: StatementSettings }[] = [];
    const start = Date.now();
    const statement = (settings: StatementSettings): Promise<number> => {
      runs.push({ at: Date.now() - start, settings });
      return new Promise((resolve) => setTimeout(() => resolve(runs.length), ms));
    };
    return { runs, statement };
  }

  it('runs statements at once and with the engine’s own settings while the event loop is idle', async () => {
    const { runs, statement } = statements(100);
    const yielding = new StatementYield(() => false, YIELD_PAUSE);
    const answers = Promise.all([yielding.run(statement), yielding.run(statement)]);
    await jest.advanceTimersByTimeAsync(100);
    expect(await answers).toEqual([2, 2]);
    expect(runs).toEqual([
      { at: 0, settings: {} },
      { at: 0, settings: {} },
    ]);
  });

  it('while the event loop is busy, admits one statement at a time on one thread, each after a pause of twice the previous one’s time', async () => {
    const { runs, statement } = statements(100);
    const yielding = new StatementYield(() => true, YIELD_PAUSE);
    const answers = Promise.all([1, 2, 3].map(() => yielding.run(statement)));
    await jest.advanceTimersByTimeAsync(1000);
    expect(await answers).toEqual([1, 2, 3]);
    expect(YIELDING_SETTINGS).toEqual({ max_threads: 1 });
    expect(runs).toEqual([
      { at: 0, settings: YIELDING_SETTINGS },
      { at: 300, settings: YIELDING_SETTINGS },
      { at: 600, settings: YIELDING_SETTINGS },
    ]);
  });

  it('answers a statement without waiting for the pause, and admits the next after a failed one', async () => {
    const { runs, statement } = statements(50);
    const yielding = new StatementYield(() => true, YIELD_PAUSE);
    const failing = yielding.run(
      () => new Promise<number>((_, reject) => setTimeout(() => reject(new Error('refused')), 50)),
    );
    const failed = expect(failing).rejects.toThrow('refused');
    await jest.advanceTimersByTimeAsync(50);
    await failed;
    const next = yielding.run(statement);
    await jest.advanceTimersByTimeAsync(100);
    expect(runs).toEqual([{ at: 150, settings: YIELDING_SETTINGS }]);
    await jest.advanceTimersByTimeAsync(50);
    expect(await next).toBe(1);
  });

  it('refuses a statement with a 503 while the most it lets wait are waiting, and takes them again once one is admitted', async () => {
    const { runs, statement } = statements(100);
    const yielding = new StatementYield(() => true, YIELD_PAUSE, 2);
    const admitted = [1, 2, 3].map(() => yielding.run(statement));
    await expect(yielding.run(statement)).rejects.toMatchObject({
      status: 503,
      message: expect.stringContaining('2 statistics queries are waiting'),
    });
    // The first ran and paused: the second is admitted, so one more may wait.
    await jest.advanceTimersByTimeAsync(300);
    const later = yielding.run(statement);
    await jest.advanceTimersByTimeAsync(2000);
    expect(await Promise.all([...admitted, later])).toEqual([1, 2, 3, 4]);
    expect(runs.map((r) => r.at)).toEqual([0, 300, 600, 900]);
  });

  it('never starts a waiting statement whose request was closed: it leaves the queue at once, and the next takes its turn', async () => {
    const { runs, statement } = statements(100);
    const yielding = new StatementYield(() => true, YIELD_PAUSE, 2);
    const gone = new AbortController();
    const first = yielding.run(statement);
    const cancelled = yielding.run(statement, gone.signal);
    const third = yielding.run(statement);
    const refused = expect(cancelled).rejects.toMatchObject({
      name: 'StatementCancelledError',
      status: 503,
    });
    await jest.advanceTimersByTimeAsync(50);
    gone.abort();
    await refused;
    // Its place is free: one more may wait beside the third.
    const fourth = yielding.run(statement);
    await jest.advanceTimersByTimeAsync(2000);
    expect(await Promise.all([first, third, fourth])).toEqual([1, 2, 3]);
    expect(runs.map((r) => r.at)).toEqual([0, 300, 600]);
    // A statement of a request already closed is refused before it waits or runs.
    await expect(yielding.run(statement, gone.signal)).rejects.toMatchObject({ status: 503 });
    expect(runs).toHaveLength(3);
  });
});
