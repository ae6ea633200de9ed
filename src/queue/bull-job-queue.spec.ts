import { ModuleRef } from '@nestjs/core';
import { JobsOptions, Queue } from 'bullmq';
import { BullJobQueue, bullJobOptions } from './bull-job-queue';
import { QUEUES } from './queue-names';

const DEFAULTS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

describe('bullJobOptions', () => {
  it('gives the defaults without options', () => {
    expect(bullJobOptions({})).toStrictEqual({
      ...DEFAULTS,
      jobId: undefined,
      delay: undefined,
    });
  });

  it('maps every option', () => {
    expect(
      bullJobOptions({
        jobId: 'j1',
        attempts: 7,
        fixedBackoffMs: 250,
        keepCompleted: false,
        delayMs: 5000,
        failFast: true,
      }),
    ).toStrictEqual({
      jobId: 'j1',
      attempts: 7,
      backoff: { type: 'fixed', delay: 250 },
      delay: 5000,
      removeOnComplete: true,
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  });
});

describe('BullJobQueue', () => {
  const queueWith = (status: string) => {
    const calls: { add: unknown[][]; addBulk: unknown[][] } = { add: [], addBulk: [] };
    const target = {
      add: async (...args: unknown[]) => calls.add.push(args),
      addBulk: async (...args: unknown[]) => calls.addBulk.push(args),
      getBackend: () => ({ client: Promise.resolve({ status }) }),
    } as unknown as Queue;
    const moduleRef = { get: () => target } as unknown as ModuleRef;
    return { queue: new BullJobQueue(moduleRef), calls };
  };

  it('adds one job with its options mapped, and several in one addBulk the same way', async () => {
    const { queue, calls } = queueWith('ready');
    const added = await queue.add(QUEUES.webhooks, 'deliver', { n: 1 }, { delayMs: 300 });
    expect(await added.stored).toBe(true);
    const bulk = await queue.addBulk(QUEUES.webhooks, [
      { name: 'deliver', data: { n: 2 }, options: { jobId: 'a', delayMs: 300 } },
      { name: 'ping', data: { n: 3 } },
    ]);
    expect(await Promise.all(bulk.map((e) => e.stored))).toEqual([true, true]);
    expect(calls.add).toEqual([['deliver', { n: 1 }, { ...DEFAULTS, delay: 300 }]]);
    expect(calls.addBulk).toEqual([
      [
        [
          { name: 'deliver', data: { n: 2 }, opts: { ...DEFAULTS, jobId: 'a', delay: 300 } },
          { name: 'ping', data: { n: 3 }, opts: DEFAULTS },
        ],
      ],
    ]);
  });

  it('adds nothing for no jobs', async () => {
    const { queue, calls } = queueWith('ready');
    expect(await queue.addBulk(QUEUES.webhooks, [])).toEqual([]);
    expect(calls.addBulk).toEqual([]);
  });

  it('refuses a bulk at once while Redis is unreachable when one of its jobs fails fast', async () => {
    const { queue, calls } = queueWith('reconnecting');
    await expect(
      queue.addBulk(QUEUES.clicks, [
        { name: 'batch', data: {} },
        { name: 'batch', data: {}, options: { failFast: true } },
      ]),
    ).rejects.toThrow('Redis is unreachable (reconnecting)');
    await queue.addBulk(QUEUES.clicks, [{ name: 'batch', data: {} }]);
    expect(calls.addBulk).toHaveLength(1);
  });
});
