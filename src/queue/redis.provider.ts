import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { RedisQueueBackend } from 'bullmq';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config';

/**
 * Redis connections; both null without REDIS_URL.
 * - `client`: ordinary commands (rate limits, health), queued while reconnecting.
 * - `fast`: the redirect hot path's cache reads and writes: no offline queue and a short command
 *   timeout, so a Redis outage costs a redirect a few milliseconds, never a hang.
 */
@Injectable()
export class RedisClient implements OnApplicationShutdown {
  readonly client: Redis | null;
  readonly fast: Redis | null;

  constructor(config: AppConfig) {
    this.client = config.redisUrl
      ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true })
      : null;
    this.fast = config.redisUrl
      ? new Redis(config.redisUrl, {
          maxRetriesPerRequest: 0,
          enableOfflineQueue: false,
          commandTimeout: 50,
          retryStrategy: (times) => Math.min(times * 100, 1000),
        })
      : null;
    this.client?.on('error', () => undefined);
    this.fast?.on('error', () => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([closeRedis(this.client), closeRedis(this.fast)]);
  }
}

/** QUIT, or a hard disconnect when Redis does not answer. */
export async function closeRedis(redis: Redis | null): Promise<void> {
  if (!redis) return;
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

/**
 * Whether the Redis connections of a BullMQ worker, queue or event stream are up (one still being
 * made counts as down). While they are down, commands wait in the client for Redis to come back,
 * and so would an ordinary close: callers then close at once (`close(true)`).
 */
export async function redisUp(backend: RedisQueueBackend): Promise<boolean> {
  const clients = [backend.client, backend.blockingClient].filter((client) => client !== undefined);
  let timer: NodeJS.Timeout | undefined;
  const statuses = await Promise.race([
    Promise.all(clients).then((resolved) => resolved.map((client) => client.status)),
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), 100);
    }),
  ]);
  clearTimeout(timer);
  return statuses !== null && statuses.every((status) => status === 'ready');
}
