import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config';

/** The shared Redis connection (commands, not blocking reads); null without REDIS_URL. */
@Injectable()
export class RedisClient implements OnApplicationShutdown {
  readonly client: Redis | null;

  constructor(config: AppConfig) {
    this.client = config.redisUrl
      ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false })
      : null;
    this.client?.on('error', () => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client?.quit().catch(() => this.client?.disconnect());
  }
}
