import { DelayedError, Job } from 'bullmq';

/**
 * Thrown by a processor to set its job aside until `until` (ms since the epoch) or until it is
 * woken (JobQueue.wake), without counting an attempt: BullMQ has moved the job to its delayed set
 * by then (deferJob); the in-process queue moves its row (DurableQueue).
 */
export class JobDeferred extends DelayedError {
  constructor(readonly until: number) {
    super(`deferred until ${new Date(until).toISOString()}`);
  }
}

/**
 * Sets the job aside until `until` or a wake: on BullMQ the job moves to the delayed set with the
 * worker's lock `token`, then runs again at once if `stillDue` says so (a wake that came while it
 * was still running found nothing to promote); in-process (a job without a queue behind it) the
 * queue does both on the JobDeferred thrown (DurableQueue).
 */
export async function deferJob(
  job: Job,
  token: string | undefined,
  until: number,
  stillDue: () => Promise<boolean>,
): Promise<never> {
  if (token !== undefined && typeof job.moveToDelayed === 'function') {
    await job.moveToDelayed(until, token);
    if (await stillDue()) await job.promote().catch(() => undefined);
  }
  throw new JobDeferred(until);
}
