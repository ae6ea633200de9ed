import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { AppConfig } from '../../config/app-config';
import { RedisClient } from '../../queue/redis.provider';
import { FixedWindowStorage } from './fixed-window.storage';

const HOUR_MS = 3600 * 1000;

/**
 * The create API's limit (CREATE_RATE_LIMIT, 8,000 requests per hour per project; docs/api.md,
 * "Tracked links"), counted in Redis when REDIS_URL is set so it holds across instances, in memory
 * otherwise.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [AppConfig, RedisClient],
      useFactory: (config: AppConfig, redis: RedisClient) => ({
        throttlers: [{ name: 'default', ttl: HOUR_MS, limit: config.createRateLimit }],
        errorMessage: `Rate limit exceeded: at most ${config.createRateLimit} create requests per hour per project`,
        storage: new FixedWindowStorage(redis.client, config.redisPrefix),
      }),
    }),
  ],
  exports: [ThrottlerModule],
})
export class RateLimitModule {}
