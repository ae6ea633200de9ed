import Redis from 'ioredis';
import { eventually } from './eventually';

/** BullMQ's keys of jobs not done yet: waiting, active, delayed, prioritized or paused. */
const BUSY_STATES = ['wait', 'active', 'delayed', 'prioritized', 'paused'];

/** How many jobs under the prefix are not done yet, over every queue. */
async function busyJobs(redis: Redis, prefix: string): Promise<number> {
  let busy = 0;
  for (const state of BUSY_STATES) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(
        cursor,
        'MATCH',
        `${prefix}:bull:*:${state}`,
        'COUNT',
        1000,
      );
      cursor = next;
      for (const key of keys) {
        const type = await redis.type(key);
        busy +=
          type === 'list' ? await redis.llen(key) : type === 'zset' ? await redis.zcard(key) : 0;
      }
    } while (cursor !== '0');
  }
  return busy;
}

/** Waits until no BullMQ job under the prefix (on the Redis at `url`) is waiting, delayed or active. */
export async function waitForBullQueues(
  url: string,
  prefix: string,
  deadlineMs: number,
): Promise<void> {
  const redis = new Redis(url);
  redis.on('error', () => undefined);
  try {
    await eventually(
      `the BullMQ queues under ${prefix} drained`,
      async () => {
        const busy = await busyJobs(redis, prefix);
        if (busy > 0) throw new Error(`${busy} jobs still busy`);
      },
      deadlineMs,
    );
  } finally {
    redis.disconnect();
  }
}
