import { Injectable } from '@nestjs/common';
import { anonymiseIp } from '../common/ip';
import { AppConfig } from '../config/app-config';
import { RedisClient } from '../queue/redis.provider';

/** Wrong passwords a client address may give a link per window (docs/api.md, "Passwords and proxies"). */
export const PASSWORD_ATTEMPTS = 10;
const PASSWORD_WINDOW_MS = 15 * 60_000;

/** Attempts counted in a window, and when it ends (ms since the epoch). */
interface Window {
  failures: number;
  endsAt: number;
}

/** Reads a window: {1, its count, its time left in ms}. */
const PEEK = `return {1, tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1])}`;
/**
 * Reserves an attempt in one step (so parallel guesses cannot all pass a check made before any
 * counts): counts it, starting the window on its first, unless the window is full (ARGV[2]).
 * Answers {granted (1/0), count, ms left}.
 */
const RESERVE = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local left = redis.call('PTTL', KEYS[1])
if count > tonumber(ARGV[2]) then
  redis.call('DECR', KEYS[1])
  return {0, count - 1, left}
end
return {1, count, left}
`;
/** Gives a reserved attempt back (a right password, or a check never run); the window stays. */
const RELEASE = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then count = redis.call('DECR', KEYS[1]) end
return {1, count, redis.call('PTTL', KEYS[1])}
`;

/** A window as a script or the memory answers it. */
interface Counted {
  granted: boolean;
  failures: number;
  msLeft: number;
}

/**
 * Password attempts per link and client address (IPv6 by its /48, as one site), in fixed windows
 * of PASSWORD_WINDOW_MS from the first attempt (docs/api.md, "Passwords and proxies"). An attempt
 * is reserved before its password is checked, atomically (a Lua script in Redis, a synchronous
 * step in memory): past PASSWORD_ATTEMPTS the link refuses the address (429) until the window
 * ends, right password or not. A right password gives its reservation back, and so does a check
 * that never ran, so only wrong passwords use the budget. Counted in Redis when there is one (the
 * limit then holds across instances), in memory otherwise or while Redis fails.
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

  /** The key of a link and a client address as clientKey gives it. */
  key(linkId: string, client: string): string {
    return `${linkId}:${client}`;
  }

  /** The window's attempts so far and the ms until it ends (0 without attempts). */
  async state(key: string): Promise<{ failures: number; msLeft: number }> {
    return this.run(PEEK, key, () => this.memory(key, 'peek'));
  }

  /** Reserves an attempt: granted unless the window already holds PASSWORD_ATTEMPTS. */
  async reserve(key: string): Promise<Counted> {
    return this.run(RESERVE, key, () => this.memory(key, 'reserve'));
  }

  /** Gives a reserved attempt back. */
  async release(key: string): Promise<void> {
    await this.run(RELEASE, key, () => this.memory(key, 'release'));
  }

  private async run(script: string, key: string, inMemory: () => Counted): Promise<Counted> {
    const client = this.redis.client;
    if (client && client.status === 'ready') {
      try {
        const [granted, failures, msLeft] = (await client.eval(
          script,
          1,
          `${this.prefix}:${key}`,
          String(PASSWORD_WINDOW_MS),
          String(PASSWORD_ATTEMPTS),
        )) as [number, number, number];
        return { granted: granted === 1, failures, msLeft: Math.max(0, msLeft) };
      } catch {
        // Redis failing: this instance counts on its own meanwhile.
      }
    }
    return inMemory();
  }

  private memory(key: string, step: 'peek' | 'reserve' | 'release'): Counted {
    const now = Date.now();
    this.sweep(now);
    let window = this.windows.get(key);
    if (window && window.endsAt <= now) {
      this.windows.delete(key);
      window = undefined;
    }
    let granted = true;
    if (step === 'reserve') {
      window ??= { failures: 0, endsAt: now + PASSWORD_WINDOW_MS };
      this.windows.set(key, window);
      granted = window.failures < PASSWORD_ATTEMPTS;
      if (granted) window.failures += 1;
    } else if (step === 'release' && window && window.failures > 0) {
      window.failures -= 1;
    }
    return window
      ? { granted, failures: window.failures, msLeft: window.endsAt - now }
      : { granted, failures: 0, msLeft: 0 };
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

/** A client address as the limits count it: IPv6 by its /48 (one site), '-' for none. */
export function clientKey(ip: string | null): string {
  return ip === null ? '-' : ip.includes(':') ? anonymiseIp(ip) : ip;
}
