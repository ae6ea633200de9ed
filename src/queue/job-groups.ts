import type Redis from 'ioredis';
import { AppConfig } from '../config/app-config';
import { RedisClient } from './redis.provider';

/**
 * Slots and counts of groups of jobs in a shared queue (docs/architecture.md, "Webhooks and live
 * events"): at most `cap` jobs of a group run at once; a job that finds no slot free is parked in
 * its group's line (oldest first) and woken when a slot is freed, so a group with a long backlog
 * leaves the queue to the others instead of filling every worker slot. A slot is held until
 * released or its lease ends (a crashed worker's). In Redis with REDIS_URL (one view across the
 * workers), in memory otherwise (one process runs every job).
 */
export abstract class JobGroups {
  /** Takes a slot of `group` for `holder` (a job id) until `leaseMs`, or parks it: whether it took one. */
  abstract take(group: string, cap: number, holder: string, leaseMs: number): Promise<boolean>;

  /** Frees `holder`'s slot (and drops it from the line): the longest-parked job to wake, or null. */
  abstract release(group: string, holder: string): Promise<string | null>;

  /** Whether `group` has a slot free now. */
  abstract hasRoom(group: string, cap: number): Promise<boolean>;

  /** Counts up to `n` more items of `key` while the count stays within `cap`: how many it counted. */
  abstract admit(key: string, n: number, cap: number): Promise<number>;

  /** Counts `n` items of `key` out (never below 0). */
  abstract settle(key: string, n: number): Promise<void>;
}

/** Drops lapsed leases; takes a slot or parks the holder (a job parked again keeps its place). */
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if redis.call('ZSCORE', KEYS[1], ARGV[2]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[2])
  redis.call('ZREM', KEYS[2], ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return 1
end
redis.call('ZADD', KEYS[2], 'NX', ARGV[3], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 0
`;

const RELEASE = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
local next = redis.call('ZPOPMIN', KEYS[2])
return next[1]
`;

const ADMIT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local n = math.max(0, math.min(tonumber(ARGV[1]), tonumber(ARGV[2]) - count))
if n > 0 then redis.call('INCRBY', KEYS[1], n) end
return n
`;

const SETTLE = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0') - tonumber(ARGV[1])
if count > 0 then redis.call('SET', KEYS[1], count) else redis.call('DEL', KEYS[1]) end
return 0
`;

/** JobGroups in Redis: a sorted set of holders (by lease end) and one of parked jobs per group. */
class RedisJobGroups extends JobGroups {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    super();
  }

  async take(group: string, cap: number, holder: string, leaseMs: number): Promise<boolean> {
    const now = Date.now();
    const taken = await this.redis.eval(
      TAKE,
      2,
      this.key('held', group),
      this.key('parked', group),
      cap,
      holder,
      now,
      now + leaseMs,
      leaseMs,
    );
    return taken === 1;
  }

  async release(group: string, holder: string): Promise<string | null> {
    const next = await this.redis.eval(
      RELEASE,
      2,
      this.key('held', group),
      this.key('parked', group),
      holder,
    );
    return typeof next === 'string' ? next : null;
  }

  async hasRoom(group: string, cap: number): Promise<boolean> {
    const key = this.key('held', group);
    await this.redis.zremrangebyscore(key, '-inf', Date.now());
    return (await this.redis.zcard(key)) < cap;
  }

  async admit(key: string, n: number, cap: number): Promise<number> {
    return Number(await this.redis.eval(ADMIT, 1, this.key('count', key), n, cap));
  }

  async settle(key: string, n: number): Promise<void> {
    if (n > 0) await this.redis.eval(SETTLE, 1, this.key('count', key), n);
  }

  private key(kind: string, name: string): string {
    return `${this.prefix}:groups:${kind}:${name}`;
  }
}

/** JobGroups of one process. */
class MemoryJobGroups extends JobGroups {
  private readonly held = new Map<string, Map<string, number>>();
  private readonly parked = new Map<string, Set<string>>();
  private readonly counts = new Map<string, number>();

  take(group: string, cap: number, holder: string, leaseMs: number): Promise<boolean> {
    const now = Date.now();
    const holders = this.held.get(group) ?? new Map<string, number>();
    for (const [id, until] of holders) if (until <= now) holders.delete(id);
    const line = this.parked.get(group) ?? new Set<string>();
    if (holders.has(holder) || holders.size < cap) {
      holders.set(holder, now + leaseMs);
      this.held.set(group, holders);
      line.delete(holder);
      return Promise.resolve(true);
    }
    line.add(holder);
    this.parked.set(group, line);
    return Promise.resolve(false);
  }

  release(group: string, holder: string): Promise<string | null> {
    const holders = this.held.get(group);
    holders?.delete(holder);
    if (holders?.size === 0) this.held.delete(group);
    const line = this.parked.get(group);
    line?.delete(holder);
    // A Set keeps insertion order: the first is the longest parked.
    const next = line?.values().next().value ?? null;
    if (next !== null) line!.delete(next);
    if (line?.size === 0) this.parked.delete(group);
    return Promise.resolve(next);
  }

  hasRoom(group: string, cap: number): Promise<boolean> {
    const now = Date.now();
    const live = [...(this.held.get(group)?.values() ?? [])].filter((until) => until > now);
    return Promise.resolve(live.length < cap);
  }

  admit(key: string, n: number, cap: number): Promise<number> {
    const count = this.counts.get(key) ?? 0;
    const admitted = Math.max(0, Math.min(n, cap - count));
    if (admitted > 0) this.counts.set(key, count + admitted);
    return Promise.resolve(admitted);
  }

  settle(key: string, n: number): Promise<void> {
    const count = (this.counts.get(key) ?? 0) - n;
    if (count > 0) this.counts.set(key, count);
    else this.counts.delete(key);
    return Promise.resolve();
  }
}

/** The JobGroups of the queue's transport: Redis with REDIS_URL, memory otherwise. */
export const JOB_GROUPS_PROVIDER = {
  provide: JobGroups,
  inject: [AppConfig, RedisClient],
  useFactory: (config: AppConfig, redis: RedisClient): JobGroups =>
    redis.client ? new RedisJobGroups(redis.client, config.redisPrefix) : new MemoryJobGroups(),
};

export { MemoryJobGroups };
