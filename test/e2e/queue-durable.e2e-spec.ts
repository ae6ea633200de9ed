import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { JobQueue } from '../../src/queue/job-queue';
import { QUEUES } from '../../src/queue/queue-names';
import { eventually } from '../support/eventually';
import {
  Run,
  TestDelivery,
  concurrency,
  openQueueApp,
  release,
  runs,
} from '../support/durable-queue-app';

jest.setTimeout(60_000);

interface Row {
  id: string;
  attempts_made: number;
  run_at: Date;
}

/**
 * The durable `webhooks` queue of the embedded service (PGlite, in-process jobs): its jobs are rows
 * of pending_jobs until they succeed or are given up, so a restart on the same DATA_DIR, after a
 * close or a SIGKILL, runs what was pending. One DATA_DIR for the whole file, as one service's.
 */
describe('embedded (PGlite, in-process jobs): the durable webhooks queue', () => {
  let dataDir: string;
  let app: INestApplicationContext | null = null;

  const open = async () => {
    app = await openQueueApp(dataDir);
    return app.get(JobQueue);
  };
  const close = async () => {
    await app?.close();
    app = null;
  };
  const add = (queue: JobQueue, data: TestDelivery, options = {}) =>
    queue.add(QUEUES.webhooks, 'deliver', data, options);
  const rows = () =>
    app!
      .get(DataSource)
      .query<Row[]>(`SELECT id, attempts_made, run_at FROM pending_jobs ORDER BY id`);
  const runsOf = (label: string): Run[] => runs.filter((run) => run.label === label);

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-queue-durable-'));
  });

  afterAll(async () => {
    await close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps a delayed job in pending_jobs across a restart, runs it once at its time, and adds its id once', async () => {
    let queue = await open();
    const before = Date.now();
    const enqueued = await add(queue, { label: 'late' }, { jobId: 'late', delayMs: 2000 });
    expect(await enqueued.stored).toBe(true);
    const [row] = await rows();
    expect(row).toEqual({ id: 'late', attempts_made: 0, run_at: expect.any(Date) });
    expect(row.run_at.getTime()).toBeGreaterThanOrEqual(before + 2000);
    expect(row.run_at.getTime()).toBeLessThanOrEqual(Date.now() + 2000);
    expect(await (await add(queue, { label: 'late again' }, { jobId: 'late' })).stored).toBe(false);
    await close();
    expect(runs).toEqual([]);

    queue = await open();
    expect(await (await add(queue, { label: 'late again' }, { jobId: 'late' })).stored).toBe(false);
    await eventually('the delayed job', async () => (await rows()).length === 0);
    expect(runsOf('late')).toEqual([
      { label: 'late', jobId: 'late', attemptsMade: 0, at: expect.any(Number) },
    ]);
    expect(runsOf('late')[0].at).toBeGreaterThanOrEqual(row.run_at.getTime());
    expect(runsOf('late again')).toEqual([]);
    await close();
  });

  it('retries a failing job with its attempts and next run in its row, and gives one up after its attempts', async () => {
    const queue = await open();
    // Its second attempt is held while the test reads the retry its first failure recorded.
    await add(
      queue,
      { label: 'flaky', failUntil: 3, holdAttempt: 2 },
      { jobId: 'flaky', fixedBackoffMs: 500 },
    );
    await add(
      queue,
      { label: 'doomed', failUntil: 9 },
      { jobId: 'doomed', attempts: 2, fixedBackoffMs: 200 },
    );
    await eventually('the second attempt running', () => runsOf('flaky').length === 2);
    const retry = (await rows()).find((r) => r.id === 'flaky' && r.attempts_made === 1);
    release('flaky');
    const firstRun = runsOf('flaky')[0].at;
    expect(retry!.run_at.getTime() - firstRun).toBeGreaterThanOrEqual(500);
    expect(retry!.run_at.getTime() - firstRun).toBeLessThan(1500);
    await eventually('the retries', async () => (await rows()).length === 0);
    expect(runsOf('flaky').map((r) => r.attemptsMade)).toEqual([0, 1, 2]);
    expect(runsOf('doomed').map((r) => r.attemptsMade)).toEqual([0, 1]);
    await close();
  });

  it('runs a burst added in one addBulk from the table in pages, 4 at a time, each once', async () => {
    const queue = await open();
    const jobs = Array.from({ length: 3000 }, (_, n) => ({
      name: 'deliver',
      data: { label: `burst ${n}` },
      options: { jobId: `burst-${String(n).padStart(4, '0')}` },
    }));
    const started = Date.now();
    const enqueued = await queue.addBulk(QUEUES.webhooks, jobs);
    expect(new Set(await Promise.all(enqueued.map((e) => e.stored)))).toEqual(new Set([true]));
    // About 4 s on an idle machine; the bound leaves room for a CI machine three times slower and busy.
    await eventually('the burst', async () => (await rows()).length === 0, 90_000);
    process.stdout.write(`3,000 jobs through pending_jobs in ${Date.now() - started} ms\n`);
    const burst = runs.filter((run) => run.label.startsWith('burst '));
    expect(burst.map((run) => run.jobId)).toEqual(jobs.map((job) => job.options.jobId));
    expect(concurrency.max).toBe(4);
    await close();
  }, 120_000);

  it('leaves the jobs of a process killed with SIGKILL, the running one too, to the next start', async () => {
    // Started after the file's own app closed: PGlite serves one process at a time.
    const child = spawn(
      process.execPath,
      [
        '-r',
        'ts-node/register',
        path.join(__dirname, '../support/durable-queue-app.ts'),
        dataDir,
        '1000',
      ],
      {
        cwd: path.resolve(__dirname, '../..'),
        env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await eventually('the child running a job', () => output.includes('started now'), 40_000);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    expect(output).toBe('started now\n');

    await open();
    await eventually(
      'the jobs left by the killed process',
      async () => (await rows()).length === 0,
    );
    expect(runsOf('now')).toEqual([
      { label: 'now', jobId: 'now', attemptsMade: 0, at: expect.any(Number) },
    ]);
    expect(runsOf('later')).toEqual([
      { label: 'later', jobId: 'later', attemptsMade: 0, at: expect.any(Number) },
    ]);
  });
});
