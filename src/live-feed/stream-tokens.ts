import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, Errors } from '../common/app-error';
import { AppConfig } from '../config/app-config';
import { RedisClient } from '../queue/redis.provider';
import { LIVE_FEED_OPTIONS, LiveFeedOptions } from './live-feed';
import {
  MemoryStreamTokenStore,
  RedisStreamTokenStore,
  StreamTokenStore,
} from './stream-token-store';

/**
 * A stream token: `stk_` and 64 hex digits (256 random bits). Its hex digits read as an API key to
 * the log redaction, so even one logged outside a `token=` parameter is hidden (docs/operations.md,
 * "Secrets in logs").
 */
export const STREAM_TOKEN_RE = /^stk_[0-9a-f]{64}$/;

/** The answer to a token that opens nothing: never issued, expired, or its stream already opened. */
export const STREAM_TOKEN_REFUSED =
  'Invalid stream token: unknown, expired or already used; get a new one (POST /events/stream/token)';

/** A token just issued, and how long it opens a stream. */
export interface IssuedStreamToken {
  token: string;
  expiresInSeconds: number;
}

const hashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Short-lived, single-use tokens that open one stream of the live feed (docs/api.md, "Live feed"),
 * so that the api_key need not travel in the stream's URL (EventSource sends no header). Kept in
 * Redis with REDIS_URL (any instance redeems them), in memory otherwise, under their SHA-256 only.
 */
@Injectable()
export class StreamTokens {
  private readonly store: StreamTokenStore;

  constructor(
    config: AppConfig,
    redis: RedisClient,
    @Inject(LIVE_FEED_OPTIONS) private readonly options: LiveFeedOptions,
  ) {
    this.store = redis.client
      ? new RedisStreamTokenStore(redis.client, config.redisPrefix)
      : new MemoryStreamTokenStore();
  }

  /** A new token for one stream of the project; 503 when Redis does not answer. */
  async issue(projectId: string): Promise<IssuedStreamToken> {
    const token = `stk_${randomBytes(32).toString('hex')}`;
    const ttlMs = this.options.tokenTtlMs;
    await this.unlessUnavailable(this.store.put(hashOf(token), projectId, ttlMs));
    return { token, expiresInSeconds: Math.ceil(ttlMs / 1000) };
  }

  /**
   * The project a token opens, the token used up whatever happens next. 400 naming `token` when it
   * is not one (or given twice), 403 when it opens nothing, 503 when Redis does not answer.
   */
  async redeem(token: unknown): Promise<string> {
    if (typeof token !== 'string' || !STREAM_TOKEN_RE.test(token)) {
      throw Errors.invalid('token', 'must be a stream token (stk_ and 64 hex digits), given once');
    }
    const projectId = await this.unlessUnavailable(this.store.take(hashOf(token)));
    if (projectId === null) throw new AppError(403, ErrorCode.invalidKey, STREAM_TOKEN_REFUSED);
    return projectId;
  }

  private async unlessUnavailable<T>(operation: Promise<T>): Promise<T> {
    try {
      return await operation;
    } catch (error) {
      throw new AppError(
        503,
        ErrorCode.unavailable,
        `The live feed is unavailable (${(error as Error).message}); retry`,
      );
    }
  }
}
