import { performance } from 'node:perf_hooks';
import { StatementCancelledError, StatementSettings } from '../analytics/analytics-client';
import { AppError, ErrorCode } from '../common/app-error';

/**
 * Statements of statistics that may wait for their turn while they yield: a dashboard's requests
 * for a few users. More wait seconds each; they are refused with a 503 (Retry-After) instead of
 * holding their requests.
 */
export const MAX_WAITING_STATEMENTS = 16;

/** What a statement of statistics may take while it yields: one thread of the engine. */
export const YIELDING_SETTINGS: StatementSettings = { max_threads: 1 };

/**
 * How long a statement that yielded leaves the engine to the redirects before the next one may
 * start, as a multiple of its own time: while the event loop is busy, statistics take at most a
 * third of one core. Pacing works in any process; a lower thread priority would need CAP_SYS_NICE.
 */
export const YIELD_PAUSE = 2;

/**
 * Statistics yield to redirects. The embedded engine runs statements in this process, on as many
 * threads as there are cores, and so takes the cores the redirects' event loop needs: while the
 * event loop is busy (`busy()`), statements are admitted one at a time, each runs with
 * YIELDING_SETTINGS, and the next is admitted `pause` times the statement's own time after it
 * ended; otherwise a statement runs at once, with all the threads it can use. A waiting statement
 * whose request was closed (`signal`) leaves the queue and never starts.
 */
export class StatementYield {
  private admitted = false;
  private readonly waiting: (() => boolean)[] = [];

  constructor(
    private readonly busy: () => boolean,
    private readonly pause: number,
    /** Statements that may wait for their turn; one more is refused (503) rather than queued. */
    private readonly maxWaiting = MAX_WAITING_STATEMENTS,
  ) {}

  async run<T>(
    statement: (settings: StatementSettings) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    if (signal?.aborted) throw new StatementCancelledError();
    if (!this.busy()) return statement({});
    if (this.admitted) {
      if (this.waiting.length >= this.maxWaiting) {
        throw new AppError(
          503,
          ErrorCode.unavailable,
          `Statistics are temporarily unavailable: ${this.waiting.length} statistics queries are waiting while redirects keep the server busy; retry shortly`,
        );
      }
      await this.turn(signal);
    }
    this.admitted = true;
    const started = process.hrtime.bigint();
    try {
      return await statement(YIELDING_SETTINGS);
    } finally {
      const rest = (Number(process.hrtime.bigint() - started) / 1e6) * this.pause;
      if (rest > 0) setTimeout(() => this.admitNext(), rest);
      else this.admitNext();
    }
  }

  /** Waits for this statement's turn; rejects when `signal` aborts first. */
  private turn(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const admit = (): boolean => {
        if (signal?.aborted) return false;
        signal?.removeEventListener('abort', leave);
        resolve();
        return true;
      };
      const leave = () => {
        const at = this.waiting.indexOf(admit);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new StatementCancelledError());
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.waiting.push(admit);
    });
  }

  private admitNext(): void {
    for (let next = this.waiting.shift(); next; next = this.waiting.shift()) if (next()) return;
    this.admitted = false;
  }
}

/** The event loop's utilization (0–1) over the last sampled second. */
export class EventLoopLoad {
  private last = performance.eventLoopUtilization();
  private utilization = 0;
  private readonly timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    this.utilization = performance.eventLoopUtilization(now, this.last).utilization;
    this.last = now;
  }, 1000).unref();

  get current(): number {
    return this.utilization;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
