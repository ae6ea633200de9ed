/**
 * At most `size` tasks run at once; the others wait their turn in arrival order. A waiting task
 * whose signal is aborted before its turn does not run (its caller gave up on it).
 */
export class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.active < this.size) this.active += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      signal?.throwIfAborted();
      return await task();
    } finally {
      // The slot passes straight to the next in line, or is freed.
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }

  /** Tasks waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }
}
