import { QueueName } from './queue-names';

export interface EnqueueOptions {
  /** Deduplicates: a job with the same id is accepted once. */
  jobId?: string;
  /** Tries before the job is given up (default 5). */
  attempts?: number;
  /**
   * Delay before retry n: exponential (BACKOFF_MS·2^(n-1), the default) or a fixed delay in ms —
   * for jobs that must outlive an outage (clicks: many attempts, a steady pace).
   */
  fixedBackoffMs?: number;
  /**
   * Rejects at once while the queue's Redis is unreachable, for callers that keep the job and try
   * again (the click buffer). Otherwise the job waits in the client for Redis to come back, which
   * would also send it after the caller gave up and keep the connection from closing at shutdown.
   */
  failFast?: boolean;
  /** Whether a finished job stays in Redis for a while (default: an hour, at most 1,000). Large, frequent jobs say false. */
  keepCompleted?: boolean;
}

/** What the queue answers when it has accepted a job. */
export interface Enqueued {
  /**
   * Resolves true once the job is held where a crash of this process does not lose it: in Redis as
   * soon as it is added (BullMQ); in-process, only once it has run (its effects are stored). False
   * for a job given up, or one the queue already had (the same jobId). Never rejects.
   */
  stored: Promise<boolean>;
}

/** The delay before retry `attempt` (1-based). */
export function retryDelay(attempt: number, options: EnqueueOptions): number {
  return options.fixedBackoffMs ?? BACKOFF_MS * 2 ** (attempt - 1);
}

/** The one way the code hands work to processors, on BullMQ or in-process. */
export abstract class JobQueue {
  /** Hands a job over; resolves once the queue has accepted it (Enqueued.stored: once it holds it for good). */
  abstract add<T extends object>(
    queue: QueueName,
    name: string,
    data: T,
    options?: EnqueueOptions,
  ): Promise<Enqueued>;

  /**
   * Runs a job and waits for its result (a request that needs a worker's answer, like unwrap);
   * rejects when it fails or takes longer than timeoutMs. Not retried: the caller decides.
   */
  abstract addAndWait<T extends object, R>(
    queue: QueueName,
    name: string,
    data: T,
    timeoutMs: number,
  ): Promise<R>;

  /** Waits for work handed out but not finished (used at shutdown and by tests). */
  abstract drain(timeoutMs?: number): Promise<void>;
}

export const DEFAULT_ATTEMPTS = 5;
export const BACKOFF_MS = 1000;
