/**
 * A task run every `everyMs` (and at once when `atStart`), never twice at a time: a run still
 * going when the next is due is not doubled. A failure goes to `onError`; `stop` clears the timer
 * and waits for the run in progress. The timer does not keep the process alive.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly task: () => Promise<unknown>,
    private readonly onError: (error: Error) => void,
  ) {}

  start(everyMs: number, atStart: boolean): void {
    const run = () => {
      this.running ??= this.task()
        .then(() => undefined)
        .catch(this.onError)
        .finally(() => (this.running = undefined));
    };
    if (atStart) run();
    this.timer = setInterval(run, everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
