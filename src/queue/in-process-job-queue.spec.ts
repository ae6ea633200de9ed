import { Logger } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { InProcessJobQueue } from './in-process-job-queue';
import { JobProcessor } from './job-processor.decorator';
import { PendingJob, PendingJobs } from './pending-jobs';
import { QUEUES } from './queue-names';

/** pending_jobs in memory, as PendingJobs answers (the SQL is covered by queue-durable.e2e-spec). */
class MemoryPendingJobs {
  readonly rows = new Map<string, PendingJob>();
  /** The `limit` of every page read. */
  readonly pages: number[] = [];

  async insert(jobs: PendingJob[]): Promise<Set<string>> {
    const written = new Set<string>();
    for (const job of jobs) {
      if (this.rows.has(job.id)) continue;
      this.rows.set(job.id, { ...job });
      written.add(job.id);
    }
    return written;
  }

  async next(_queue: string, skip: string[], limit: number): Promise<PendingJob[]> {
    this.pages.push(limit);
    return [...this.rows.values()]
      .filter((row) => !skip.includes(row.id))
      .sort((a, b) => a.runAt.getTime() - b.runAt.getTime() || a.id.localeCompare(b.id))
      .slice(0, limit)
      .map((row) => ({ ...row }));
  }

  async retry(_queue: string, id: string, attemptsMade: number, runAt: Date): Promise<void> {
    Object.assign(this.rows.get(id)!, { attemptsMade, runAt });
  }

  async remove(_queue: string, id: string): Promise<void> {
    this.rows.delete(id);
  }
}

/** Records the jobs it runs; fails those whose data says so, until their attempt `failUntil`. */
abstract class Recorder extends WorkerHost {
  readonly runs: { id: string; n: number; attemptsMade: number }[] = [];
  running = 0;
  maxRunning = 0;

  async process(job: Job<{ n: number; failUntil?: number; holdMs?: number }>): Promise<void> {
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    await new Promise((resolve) =>
      job.data.holdMs ? setTimeout(resolve, job.data.holdMs) : setImmediate(resolve),
    );
    this.running--;
    this.runs.push({ id: job.id!, n: job.data.n, attemptsMade: job.attemptsMade });
    if (job.attemptsMade + 1 < (job.data.failUntil ?? 0)) throw new Error('refused');
  }
}

@JobProcessor(QUEUES.webhooks, 3)
class Webhooks extends Recorder {}

@JobProcessor(QUEUES.mail)
class Mail extends Recorder {}

function setup() {
  const webhooks = new Webhooks();
  const mail = new Mail();
  const discovery = {
    getProviders: () => [{ instance: webhooks }, { instance: mail }],
  } as unknown as DiscoveryService;
  const pending = new MemoryPendingJobs();
  const queue = new InProcessJobQueue(discovery, pending as unknown as PendingJobs);
  return { queue, pending, webhooks, mail };
}

describe('InProcessJobQueue, a queue in memory (mail)', () => {
  afterEach(() => jest.useRealTimers());

  it('runs a job after its delay, and holds it in memory only', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const { queue, pending, mail } = setup();
    const enqueued = await queue.add(QUEUES.mail, 'send', { n: 1 }, { delayMs: 5000 });
    await jest.advanceTimersByTimeAsync(4999);
    expect(mail.runs).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(await enqueued.stored).toBe(true);
    expect(mail.runs).toEqual([{ id: expect.any(String), n: 1, attemptsMade: 0 }]);
    expect(pending.rows.size).toBe(0);
  });

  it('runs each job of a bulk once, a job id seen before not again', async () => {
    const { queue, mail } = setup();
    await queue.add(QUEUES.mail, 'send', { n: 0 }, { jobId: 'm0' });
    const bulk = await queue.addBulk(QUEUES.mail, [
      { name: 'send', data: { n: 1 }, options: { jobId: 'm1' } },
      { name: 'send', data: { n: 0 }, options: { jobId: 'm0' } },
      { name: 'send', data: { n: 2 } },
    ]);
    expect(await Promise.all(bulk.map((e) => e.stored))).toEqual([true, false, true]);
    expect(mail.runs.map((r) => r.n).sort()).toEqual([0, 1, 2]);
  });

  it('runs a burst at the processor’s concurrency, added or awaited (a crawl per retweet)', async () => {
    const { queue, mail } = setup();
    const jobs = Array.from({ length: 20 }, (_, n) => ({ name: 'send', data: { n } }));
    const added = await queue.addBulk(QUEUES.mail, jobs);
    const awaited = jobs.map((job) => queue.addAndWait(QUEUES.mail, 'send', job.data, 10_000));
    await Promise.all([...added.map((e) => e.stored), ...awaited]);
    expect(mail.runs).toHaveLength(40);
    // @JobProcessor's default concurrency, as a BullMQ worker runs it.
    expect(mail.maxRunning).toBe(4);
  });

  it('does not run an awaited job whose caller gave up before its turn', async () => {
    const { queue, mail } = setup();
    const busy = Array.from({ length: 4 }, (_, n) =>
      queue.addAndWait(QUEUES.mail, 'send', { n, holdMs: 50 }, 10_000),
    );
    const late = queue.addAndWait(QUEUES.mail, 'send', { n: 99 }, 0);
    await expect(late).rejects.toThrow('job mail/send timed out after 0 ms');
    await Promise.all(busy);
    await queue.drain();
    expect(mail.runs.map((r) => r.n).sort()).toEqual([0, 1, 2, 3]);
  });
});

describe('InProcessJobQueue, a durable queue (webhooks)', () => {
  afterEach(() => jest.useRealTimers());

  it('writes the job before add resolves, runs it from the start, then deletes it', async () => {
    const { queue, pending, webhooks } = setup();
    const before = Date.now();
    const enqueued = await queue.add(
      QUEUES.webhooks,
      'deliver',
      { n: 1 },
      { jobId: 'w1', attempts: 3, fixedBackoffMs: 100, delayMs: 0 },
    );
    expect(await enqueued.stored).toBe(true);
    const row = pending.rows.get('w1')!;
    expect(row).toEqual({
      queue: 'webhooks',
      id: 'w1',
      name: 'deliver',
      data: { n: 1 },
      attempts: 3,
      attemptsMade: 0,
      fixedBackoffMs: 100,
      runAt: row.createdAt,
      createdAt: expect.any(Date),
    });
    expect(row.createdAt.getTime()).toBeGreaterThanOrEqual(before);
    await queue.drain();
    expect(webhooks.runs).toEqual([]);

    queue.onApplicationBootstrap();
    await queue.drain();
    expect(webhooks.runs).toEqual([{ id: 'w1', n: 1, attemptsMade: 0 }]);
    expect(pending.rows.size).toBe(0);
  });

  it('adds a job id already in the table once, within a bulk and across instances', async () => {
    const first = setup();
    await first.queue.addBulk(QUEUES.webhooks, [
      { name: 'deliver', data: { n: 1 }, options: { jobId: 'a', delayMs: 60_000 } },
      { name: 'deliver', data: { n: 2 }, options: { jobId: 'a' } },
    ]);
    const again = new InProcessJobQueue(
      { getProviders: () => [{ instance: first.webhooks }] } as unknown as DiscoveryService,
      first.pending as unknown as PendingJobs,
    );
    const [enqueued] = await again.addBulk(QUEUES.webhooks, [
      { name: 'deliver', data: { n: 3 }, options: { jobId: 'a' } },
    ]);
    expect(await enqueued.stored).toBe(false);
    expect([...first.pending.rows.values()].map((r) => r.data)).toEqual([{ n: 1 }]);
  });

  it('runs a delayed job at its time, not before; drain does not wait for it', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const { queue, pending, webhooks } = setup();
    queue.onApplicationBootstrap();
    await queue.add(QUEUES.webhooks, 'deliver', { n: 1 }, { delayMs: 10_000 });
    await queue.add(QUEUES.webhooks, 'deliver', { n: 2 }, { delayMs: 3000 });
    await queue.drain();
    expect(webhooks.runs).toEqual([]);
    await jest.advanceTimersByTimeAsync(2999);
    expect(webhooks.runs).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    await queue.drain();
    expect(webhooks.runs.map((r) => r.n)).toEqual([2]);
    await jest.advanceTimersByTimeAsync(7000);
    await queue.drain();
    expect(webhooks.runs.map((r) => r.n)).toEqual([2, 1]);
    expect(pending.rows.size).toBe(0);
  });

  it('records a failed attempt and its retry time in the row, and deletes a job given up', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { queue, pending, webhooks } = setup();
    queue.onApplicationBootstrap();
    const options = { attempts: 3, fixedBackoffMs: 1000 };
    await queue.add(QUEUES.webhooks, 'deliver', { n: 1, failUntil: 2 }, { ...options, jobId: 'r' });
    await queue.add(QUEUES.webhooks, 'deliver', { n: 2, failUntil: 9 }, { ...options, jobId: 'g' });
    await queue.drain();
    const failedAt = Date.now();
    expect(pending.rows.get('r')).toMatchObject({
      attemptsMade: 1,
      runAt: new Date(failedAt + 1000),
    });
    expect(pending.rows.get('g')).toMatchObject({ attemptsMade: 1 });
    await jest.advanceTimersByTimeAsync(1000);
    await queue.drain();
    expect(pending.rows.has('r')).toBe(false);
    expect(pending.rows.get('g')).toMatchObject({ attemptsMade: 2 });
    await jest.advanceTimersByTimeAsync(1000);
    await queue.drain();
    expect(pending.rows.size).toBe(0);
    expect(webhooks.runs.map((r) => `${r.id}:${r.attemptsMade}`).sort()).toEqual([
      'g:0',
      'g:1',
      'g:2',
      'r:0',
      'r:1',
    ]);
    expect(error.mock.calls).toEqual([
      [
        { err: new Error('refused'), queue: 'webhooks', jobId: 'g' },
        'job webhooks/deliver failed after 3 attempts',
      ],
    ]);
    error.mockRestore();
  });

  it('runs a burst at the processor’s concurrency, in run_at order, reading the table in pages', async () => {
    const { queue, pending, webhooks } = setup();
    const jobs = Array.from({ length: 2000 }, (_, n) => ({
      name: 'deliver',
      data: { n },
      options: { jobId: String(n).padStart(4, '0') },
    }));
    await queue.addBulk(QUEUES.webhooks, jobs);
    queue.onApplicationBootstrap();
    await queue.drain();
    expect(webhooks.runs.map((r) => r.n)).toEqual(jobs.map((j) => j.data.n));
    expect(webhooks.maxRunning).toBe(3);
    expect(Math.max(...pending.pages)).toBe(256);
    expect(pending.rows.size).toBe(0);
  });

  it('at shutdown finishes the running jobs and leaves the others in the table', async () => {
    const { queue, pending, webhooks } = setup();
    queue.onApplicationBootstrap();
    await queue.addBulk(
      QUEUES.webhooks,
      Array.from({ length: 10 }, (_, n) => ({ name: 'deliver', data: { n } })),
    );
    await queue.add(QUEUES.webhooks, 'deliver', { n: 10 }, { delayMs: 60_000 });
    while (webhooks.running === 0) await new Promise((resolve) => setImmediate(resolve));
    await queue.beforeApplicationShutdown();
    expect(webhooks.running).toBe(0);
    expect(webhooks.runs.length).toBeLessThan(10);
    expect(pending.rows.size).toBe(11 - webhooks.runs.length);
  });
});
