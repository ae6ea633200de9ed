import { Injectable } from '@nestjs/common';
import { anonymiseIp } from '../common/ip';
import { AppConfig } from '../config/app-config';
import { RedisClient } from '../queue/redis.provider';

/** Wrong passwords a client address may give a link per window (docs/api.md, "Link controls"). */
export const PASSWORD_ATTEMPTS = 10;
export const PASSWORD_WINDOW_MS = 15 * 60_000;

/** Failures counted in a window, and when it ends (ms since the epoch). */
interface Window {
  failures: number;
  endsAt: number;
}

/** Reads a window: its failures and its time left in ms. */
const PEEK = `return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1])}`;
/** Counts a failure, starting the window on its first, as FixedWindowStorage counts requests. */
const FAIL = `
local failures = redis.call('INCR', KEYS[1])
if failures == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {failures, redis.call('PTTL', KEYS[1])}
`;

/**
 * Wrong passwords per link and client address (IPv6 by its /48, as one site), in fixed windows
 * of PASSWORD_WINDOW_MS from the first failure: over PASSWORD_ATTEMPTS the link refuses the address
 * (429) until the window ends, right password or not. Counted in Redis when there is one (the limit
 * then holds across instances), in memory otherwise or while Redis fails. Only failures count: a
 * right password costs nothing, and peeking (`state`) does not count.
 */
@Injectable()
export class PasswordAttempts {
  private readonly windows = new Map<string, Window>();
  private readonly prefix: string;
  private nextSweep = 0;

  constructor(
    config: AppConfig,
    private readonly redis: RedisClient,
  ) {
    this.prefix = `${config.redisPrefix}:password`;
  }

  /** The key of a link and a client address. */
  key(linkId: string, ip: string | null): string {
    const client = ip === null ? '-' : ip.includes(':') ? anonymiseIp(ip) : ip;
    return `${linkId}:${client}`;
  }

  /** The window's failures so far and the ms until it ends (0 without failures). */
  async state(key: string): Promise<{ failures: number; msLeft: number }> {
    return this.run(PEEK, key, () => this.memory(key, false));
  }

  /** Counts a failure; answers the window as it is then. */
  async fail(key: string): Promise<{ failures: number; msLeft: number }> {
    return this.run(FAIL, key, () => this.memory(key, true));
  }

  private async run(
    script: string,
    key: string,
    inMemory: () => { failures: number; msLeft: number },
  ): Promise<{ failures: number; msLeft: number }> {
    const client = this.redis.client;
    if (client && client.status === 'ready') {
      try {
        const [failures, msLeft] = (await client.eval(
          script,
          1,
          `${this.prefix}:${key}`,
          String(PASSWORD_WINDOW_MS),
        )) as [number, number];
        return { failures, msLeft: Math.max(0, msLeft) };
      } catch {
        // Redis failing: this instance counts on its own meanwhile.
      }
    }
    return inMemory();
  }

  private memory(key: string, fail: boolean): { failures: number; msLeft: number } {
    const now = Date.now();
    this.sweep(now);
    let window = this.windows.get(key);
    if (window && window.endsAt <= now) {
      this.windows.delete(key);
      window = undefined;
    }
    if (fail) {
      window ??= { failures: 0, endsAt: now + PASSWORD_WINDOW_MS };
      window.failures += 1;
      this.windows.set(key, window);
    }
    return window
      ? { failures: window.failures, msLeft: window.endsAt - now }
      : { failures: 0, msLeft: 0 };
  }

  /** Drops ended windows once per window length. */
  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + PASSWORD_WINDOW_MS;
    for (const [key, window] of this.windows) {
      if (window.endsAt <= now) this.windows.delete(key);
    }
  }
}
