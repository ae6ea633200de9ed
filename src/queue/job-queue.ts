import { QUEUES, QueueName } from './queue-names';

/**
 * Queues whose jobs the in-process transport (embedded mode) keeps in the database (pending_jobs)
 * until they succeed or are given up, so a restart, even after a crash, runs what was pending
 * (docs/architecture.md, "API keys, jobs, logging, shutdown"). BullMQ keeps every queue's jobs in
 * Redis anyway. Adding to one writes through the DataSource: on PGlite's one session, never from
 * inside a transaction (it would wait for the transaction, which waits for it).
 */
export const DURABLE_QUEUES: QueueName[] = [QUEUES.webhooks];

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
  /** The job first runs this many milliseconds after it is added (default: at once). */
  delayMs?: number;
}

/** One job of JobQueue.addBulk. */
export interface BulkJob<T extends object = object> {
  name: string;
  data: T;
  options?: EnqueueOptions;
}

/** What the queue answers when it has accepted a job. */
export interface Enqueued {
  /**
   * Resolves true once the job is held where a crash of this process does not lose it: in Redis as
   * soon as it is added (BullMQ); in-process, once its row is written for a durable queue
   * (DURABLE_QUEUES), otherwise only once it has run (its effects are stored). False for a job
   * given up, or one the queue already had (the same jobId). Never rejects.
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
   * Hands several jobs of one queue over at once (one round trip to Redis, one insert in-process),
   * each with its own options as add takes them; answers in the order of `jobs`.
   */
  abstract addBulk<T extends object>(queue: QueueName, jobs: BulkJob<T>[]): Promise<Enqueued[]>;

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

  /**
   * Wakes a job set aside by deferJob (a parked job of JobGroups) to run now: whether it was
   * waiting. A job running, done or unknown is left as it is.
   */
  abstract wake(queue: QueueName, jobId: string): Promise<boolean>;

  /**
   * Waits for work handed out but not finished (used at shutdown and by tests): in-process, the jobs
   * due, not those of a durable queue that wait for their time (a delay or a retry).
   */
  abstract drain(timeoutMs?: number): Promise<void>;
}

export const DEFAULT_ATTEMPTS = 5;
export const BACKOFF_MS = 1000;
