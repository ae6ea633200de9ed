import { PeriodicTask } from './periodic-task';

describe('PeriodicTask', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs at start when asked, then every period, never two runs at once', async () => {
    let runs = 0;
    let finish: () => void = () => undefined;
    const task = new PeriodicTask(
      () => {
        runs++;
        return new Promise<void>((resolve) => (finish = resolve));
      },
      () => undefined,
    );
    task.start(1000, true);
    expect(runs).toBe(1);
    // Due twice while the first run goes on: not started again.
    await jest.advanceTimersByTimeAsync(2500);
    expect(runs).toBe(1);
    finish();
    await jest.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(2);
    finish();
    await task.stop();
    await jest.advanceTimersByTimeAsync(5000);
    expect(runs).toBe(2);
  });

  it('hands a failure to onError and goes on; stop waits for the run in progress', async () => {
    const errors: string[] = [];
    let calls = 0;
    let finished = false;
    const task = new PeriodicTask(
      async () => {
        calls++;
        if (calls === 1) throw new Error('boom');
        await new Promise((resolve) => setTimeout(resolve, 500));
        finished = true;
      },
      (error) => errors.push(error.message),
    );
    task.start(1000, false);
    expect(calls).toBe(0);
    await jest.advanceTimersByTimeAsync(1000);
    expect(errors).toEqual(['boom']);
    await jest.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(2);
    const stopped = task.stop();
    await jest.advanceTimersByTimeAsync(500);
    await stopped;
    expect(finished).toBe(true);
  });
});
