import type Redis from 'ioredis';
import { ThrottlerStorage } from '@nestjs/throttler';
import { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';

/** A window's count and when it ends (ms since the epoch). */
interface Window {
  hits: number;
  endsAt: number;
}

/**
 * Count the hit, start the window on its first hit, answer the count and the window's time left.
 * Atomic, so every API instance sees one count.
 */
const SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {hits, redis.call('PTTL', KEYS[1])}
`;

/**
 * Fixed windows: `limit` requests per window of `ttl` ms from a key's first request; over the limit
 * a key is refused until its window ends, and the next window lets it in again (docs/api.md, "Rate
 * limit"). The stock storages block for a further `blockDuration` from the request that went over,
 * so a key stayed shut out for up to two windows and Retry-After and X-RateLimit-Reset disagreed;
 * here both are the same time, the end of the window.
 *
 * Counted in Redis when there is one (the limit then holds across instances), in memory otherwise.
 */
export class FixedWindowStorage implements ThrottlerStorage {
  private readonly windows = new Map<string, Window>();
  private nextSweep = 0;

  constructor(
    private readonly redis: Redis | null,
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {}

  async increment(
    key: string,
    ttl: number,
    limit: number,
    _blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const { hits, endsAt } = this.redis
      ? await this.incrementInRedis(`${this.prefix}:throttle:${throttlerName}:${key}`, ttl)
      : this.incrementInMemory(`${throttlerName}:${key}`, ttl);
    const secondsLeft = Math.max(0, Math.ceil((endsAt - this.now()) / 1000));
    const isBlocked = hits > limit;
    return {
      totalHits: hits,
      timeToExpire: secondsLeft,
      isBlocked,
      timeToBlockExpire: isBlocked ? secondsLeft : 0,
    };
  }

  /** The windows counted in memory (none when Redis counts them). */
  get size(): number {
    return this.windows.size;
  }

  private async incrementInRedis(key: string, ttl: number): Promise<Window> {
    const [hits, msLeft] = (await this.redis!.eval(SCRIPT, 1, key, String(ttl))) as [
      number,
      number,
    ];
    return { hits, endsAt: this.now() + Math.max(0, msLeft) };
  }

  private incrementInMemory(key: string, ttl: number): Window {
    const now = this.now();
    this.sweep(now, ttl);
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { hits: 0, endsAt: now + ttl };
      this.windows.set(key, window);
    }
    window.hits += 1;
    return window;
  }

  /** Drops ended windows once per window length, so keys seen once do not stay for good. */
  private sweep(now: number, ttl: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + ttl;
    for (const [key, window] of this.windows) {
      if (window.endsAt <= now) this.windows.delete(key);
    }
  }
}
