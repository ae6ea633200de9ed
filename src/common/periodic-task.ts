import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';

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

/** When a PeriodicService runs its task. */
export interface Schedule {
  everyMs: number;
  /** Also once at start. */
  atStart: boolean;
  /** What a failed run's warning says before the error's message. */
  failure: string;
}

/**
 * A service that runs its `task` as a PeriodicTask from the application's start (when `runsHere`:
 * where jobs run, for instance) to its shutdown, which waits for the run in progress; a failed run
 * is logged as a warning.
 */
export abstract class PeriodicService implements OnApplicationBootstrap, OnApplicationShutdown {
  protected abstract readonly logger: Logger;
  protected abstract readonly task: () => Promise<unknown>;
  private readonly periodic = new PeriodicTask(
    () => this.task(),
    (error) => this.logger.warn(`${this.schedule.failure}: ${error.message}`),
  );

  constructor(
    private readonly schedule: Schedule,
    private readonly runsHere: boolean,
  ) {}

  onApplicationBootstrap(): void {
    if (this.runsHere) this.periodic.start(this.schedule.everyMs, this.schedule.atStart);
  }

  onApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }
}
