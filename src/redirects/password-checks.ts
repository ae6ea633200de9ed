/** Password checks (scrypt, about 50 ms and 16 MiB each) running at once: libuv's thread pool runs 4. */
export const CHECKS_AT_ONCE = 4;
/** Checks of one client address running or queued to run at once; more wait behind them. */
export const ADDRESS_ACTIVE = 2;
/** Checks of one client address waiting behind its active ones; more are refused (429). */
export const ADDRESS_WAITING = 10;
/** Checks of one project's links not yet running; more are refused (503) for that project only. */
export const PROJECT_PENDING = 64;

/** How a check was admitted, or why it was not. */
export type Admission =
  { kind: 'queued'; done: Promise<Outcome> } | { kind: 'address-busy' } | { kind: 'project-busy' };

/** A check's outcome: its answer, or `gone` when its visitor left before its turn. */
export type Outcome = { kind: 'checked'; right: boolean } | { kind: 'gone' };

interface Job {
  address: string;
  project: string;
  check: () => Promise<boolean>;
  /** Whether the visitor still waits (a closed connection's check is not run). */
  alive: () => boolean;
  settle: (outcome: Outcome) => void;
  fail: (error: unknown) => void;
}

interface AddressState {
  /** Checks running or in their project's queue. */
  active: number;
  waiting: Job[];
}

/**
 * The fair queue of password checks (docs/api.md, "Passwords and proxies"): at most CHECKS_AT_ONCE
 * run at once; the next is taken from each project with checks ready in turn, so a burst at one
 * project's links delays another project's visitors by one check at most and never refuses them.
 * A client address has at most ADDRESS_ACTIVE checks running or ready (the rest wait in its own
 * line, at most ADDRESS_WAITING), so one address cannot fill a project's queue either.
 */
export class PasswordChecks {
  private running = 0;
  private readonly addresses = new Map<string, AddressState>();
  /** Each project's checks ready to run, in turn order (a project served goes to the back). */
  private readonly ready = new Map<string, Job[]>();
  /** Each project's checks not yet running (ready or waiting behind their address). */
  private readonly pending = new Map<string, number>();

  /** Admits a check of `address` (a client address, or a /48 for IPv6) at a link of `project`. */
  submit(
    address: string,
    project: string,
    check: () => Promise<boolean>,
    alive: () => boolean = () => true,
  ): Admission {
    const pending = this.pending.get(project) ?? 0;
    if (pending >= PROJECT_PENDING) return { kind: 'project-busy' };
    let state = this.addresses.get(address);
    if (state && state.active >= ADDRESS_ACTIVE && state.waiting.length >= ADDRESS_WAITING) {
      return { kind: 'address-busy' };
    }
    let settle!: (outcome: Outcome) => void;
    let fail!: (error: unknown) => void;
    const done = new Promise<Outcome>((resolve, reject) => {
      settle = resolve;
      fail = reject;
    });
    const job: Job = { address, project, check, alive, settle, fail };
    this.pending.set(project, pending + 1);
    if (!state) {
      state = { active: 0, waiting: [] };
      this.addresses.set(address, state);
    }
    if (state.active < ADDRESS_ACTIVE) {
      state.active += 1;
      this.makeReady(job);
      this.dispatch();
    } else {
      state.waiting.push(job);
    }
    return { kind: 'queued', done };
  }

  /** Checks running now, and not yet running (for tests and metrics). */
  get load(): { running: number; pending: number } {
    let pending = 0;
    for (const count of this.pending.values()) pending += count;
    return { running: this.running, pending };
  }

  private makeReady(job: Job): void {
    const queue = this.ready.get(job.project);
    if (queue) queue.push(job);
    else this.ready.set(job.project, [job]);
  }

  private dispatch(): void {
    while (this.running < CHECKS_AT_ONCE) {
      const next = this.ready.entries().next();
      if (next.done) return;
      const [project, queue] = next.value;
      const job = queue.shift()!;
      // The project goes to the back of the turn order, with its remaining checks.
      this.ready.delete(project);
      if (queue.length > 0) this.ready.set(project, queue);
      const left = this.pending.get(project)! - 1;
      if (left === 0) this.pending.delete(project);
      else this.pending.set(project, left);
      if (!job.alive()) {
        job.settle({ kind: 'gone' });
        this.finish(job);
        continue;
      }
      this.running += 1;
      let started: Promise<boolean>;
      try {
        started = job.check();
      } catch (error) {
        // A check that throws at once fails as one that rejects.
        started = Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      started.then(
        (right) => job.settle({ kind: 'checked', right }),
        (error: unknown) => job.fail(error),
      );
      void started
        .catch(() => undefined)
        .then(() => {
          this.running -= 1;
          this.finish(job);
          this.dispatch();
        });
    }
  }

  /** Frees the job's place at its address; the address's next waiting check becomes ready. */
  private finish(job: Job): void {
    const state = this.addresses.get(job.address)!;
    state.active -= 1;
    const next = state.waiting.shift();
    if (next) {
      state.active += 1;
      this.makeReady(next);
    } else if (state.active === 0) {
      this.addresses.delete(job.address);
    }
  }
}
