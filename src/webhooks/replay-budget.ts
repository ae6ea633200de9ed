import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { AppError, ErrorCode } from '../common/app-error';
import { FixedWindowStorage } from '../rate-limit/fixed-window.storage';
import { AppConfig } from '../config/app-config';
import { RedisClient } from '../queue/redis.provider';

const HOUR_MS = 3_600_000;

/**
 * The budget of `test` and `redeliver` (docs/api.md, "Test and redeliver"): together at most
 * WEBHOOK_REPLAY_RATE_LIMIT calls per hour per webhook (a fixed window), counted in Redis when
 * there is one, so that nobody turns them into a flood at a receiver or the delivery queue.
 */
@Injectable()
export class ReplayBudget {
  private readonly storage: FixedWindowStorage;

  constructor(
    private readonly config: AppConfig,
    redis: RedisClient,
  ) {
    this.storage = new FixedWindowStorage(redis.client, config.redisPrefix);
  }

  /** Counts a call for the webhook; over the budget, 429 with Retry-After (the window's end). */
  async spend(webhookId: string, res: Response | undefined): Promise<void> {
    const limit = this.config.webhookReplayRateLimit;
    const record = await this.storage.increment(
      webhookId,
      HOUR_MS,
      limit,
      HOUR_MS,
      'webhook-replay',
    );
    if (!record.isBlocked) return;
    res?.setHeader('Retry-After', String(Math.max(1, record.timeToBlockExpire)));
    throw new AppError(
      429,
      ErrorCode.rateLimited,
      `Rate limit exceeded: at most ${limit} test and redeliver requests per hour per webhook`,
    );
  }
}
