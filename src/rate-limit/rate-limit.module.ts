import { Module } from '@nestjs/common';
import { ThrottlerModule, type ThrottlerModuleOptions } from '@nestjs/throttler';
import { AppConfig } from '../config/app-config';
import { RedisClient } from '../queue/redis.provider';
import { FixedWindowStorage } from './fixed-window.storage';
import { READ_THROTTLER_OPTIONS } from './project-throttler.guard';

const HOUR_MS = 3600 * 1000;

/**
 * The per-project budgets (docs/api.md, "Limits"): the create API's (CREATE_RATE_LIMIT, 8,000
 * requests per hour; ProjectThrottlerGuard) and the reads' (READ_RATE_LIMIT, 3,600 requests per
 * hour over url/list, statistics and the live feed; ReadThrottlerGuard), counted in Redis when REDIS_URL is set
 * so they hold across instances, in memory otherwise. A module that applies either guard imports
 * this one and ProjectsModule.
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
  providers: [
    {
      provide: READ_THROTTLER_OPTIONS,
      inject: [AppConfig],
      useFactory: (config: AppConfig): ThrottlerModuleOptions => ({
        throttlers: [{ name: 'default', ttl: HOUR_MS, limit: config.readRateLimit }],
        errorMessage: `Rate limit exceeded: at most ${config.readRateLimit} list, statistics and live-feed requests per hour per project`,
      }),
    },
  ],
  exports: [ThrottlerModule, READ_THROTTLER_OPTIONS],
})
export class RateLimitModule {}
