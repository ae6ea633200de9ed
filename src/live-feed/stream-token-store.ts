import type Redis from 'ioredis';
import { withTimeout } from './redis-feed-backend';

/**
 * Where stream tokens wait for their one stream (docs/api.md, "Live feed"): each under the SHA-256
 * of the token, never the token itself, with the project it opens and an expiry.
 */
export interface StreamTokenStore {
  /** Keeps `hash` for `projectId` during `ttlMs`. */
  put(hash: string, projectId: string, ttlMs: number): Promise<void>;
  /** The project of `hash`, removed in the same step (one stream per token); null if none. */
  take(hash: string): Promise<string | null>;
}

/** The longest a token command may take before it counts as failed, in ms. */
const COMMAND_TIMEOUT_MS = 1_000;

/**
 * Tokens in Redis, so that one taken on an instance opens a stream on any other: a key with a TTL
 * each, read and deleted in one MULTI, so that two streams racing for a token cannot both get it.
 */
export class RedisStreamTokenStore implements StreamTokenStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async put(hash: string, projectId: string, ttlMs: number): Promise<void> {
    await withTimeout(this.redis.set(this.key(hash), projectId, 'PX', ttlMs), COMMAND_TIMEOUT_MS);
  }

  async take(hash: string): Promise<string | null> {
    const key = this.key(hash);
    const replies = await withTimeout(
      this.redis.multi().get(key).del(key).exec(),
      COMMAND_TIMEOUT_MS,
    );
    const [error, projectId] = replies?.[0] ?? [new Error('no answer from Redis'), null];
    if (error) throw error;
    return typeof projectId === 'string' ? projectId : null;
  }

  private key(hash: string): string {
    return `${this.prefix}:events:token:${hash}`;
  }
}

/** At most this many tokens are kept in memory: past it, the oldest go first. */
export const MEMORY_TOKEN_CAPACITY = 100_000;

/**
 * Tokens of a single process (no REDIS_URL: one instance). Map order is insertion order, so the
 * tokens that expire first are swept from the front as new ones come; past the capacity the
 * oldest is dropped, which bounds the memory whatever the callers do.
 */
export class MemoryStreamTokenStore implements StreamTokenStore {
  private readonly tokens = new Map<string, { projectId: string; expires: number }>();

  constructor(private readonly capacity = MEMORY_TOKEN_CAPACITY) {}

  get size(): number {
    return this.tokens.size;
  }

  async put(hash: string, projectId: string, ttlMs: number): Promise<void> {
    const now = Date.now();
    for (const [oldest, { expires }] of this.tokens) {
      if (expires > now && this.tokens.size < this.capacity) break;
      this.tokens.delete(oldest);
    }
    this.tokens.set(hash, { projectId, expires: now + ttlMs });
  }

  async take(hash: string): Promise<string | null> {
    const token = this.tokens.get(hash);
    if (!token) return null;
    this.tokens.delete(hash);
    return token.expires > Date.now() ? token.projectId : null;
  }
}
