import type { Lru } from '../common/lru';
import type { RedisClient } from '../queue/redis.provider';
import type { LinkTarget } from './redirect-target';
import type { RedirectsRepository } from './redirects.repository';

/** Time to live of a link's cached answer per layer, in ms (memory) and s (Redis). */
export interface LinkTtl {
  memory: number;
  redis: number;
}

/** A layer's counters: lookups it answered, lookups it passed on. */
export interface LayerCounters {
  hit: { inc(): void };
  miss: { inc(): void };
}

/** What a LinkLoader reads from and writes to. */
export interface LinkLoaderStores {
  repository: RedirectsRepository;
  redis: RedisClient;
  /** The in-process cache, where every answer read is kept (a found link or a known miss). */
  memory: Lru<LinkTarget | null>;
  /** The Redis key of a svc_id. */
  redisKey: (svcId: string) => string;
  /** How long an answer is kept, found (a link) or not (null). */
  ttl: (value: LinkTarget | null) => LinkTtl;
  counters: { redis: LayerCounters; database: LayerCounters };
  /** Entries the memory layer let go to take an answer. */
  evictions: { value: number };
}

/** One svc_id's lookup, shared by every visit that asks while it runs. */
interface Pending {
  readonly svcId: string;
  readonly promise: Promise<LinkTarget | null>;
  resolve(value: LinkTarget | null): void;
  reject(error: unknown): void;
  /** Its link changed while it ran (InvalidationBus): what it read is answered but not kept. */
  stale: boolean;
}

/** The most svc_ids one MGET and one query take; a larger turn is cut into several. */
export const MAX_BATCH = 1000;

/**
 * The link misses of one event-loop turn, looked up together (docs/architecture.md, "How a
 * redirect flows"): one Redis MGET, then one PostgreSQL query over the svc_ids Redis did not have
 * (`= ANY`), then one pipelined write of what PostgreSQL answered, known misses included, to Redis.
 * Concurrent misses of one svc_id share one lookup. Redis failures (outage, timeout) fall through
 * to PostgreSQL at once; a PostgreSQL failure fails the lookups of its batch.
 */
export class LinkLoader {
  private readonly inFlight = new Map<string, Pending>();
  private queued: Pending[] = [];

  constructor(private readonly stores: LinkLoaderStores) {}

  load(svcId: string): Promise<LinkTarget | null> {
    const running = this.inFlight.get(svcId);
    if (running) return running.promise;
    let resolve!: (value: LinkTarget | null) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<LinkTarget | null>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const pending: Pending = { svcId, promise, resolve, reject, stale: false };
    this.inFlight.set(svcId, pending);
    // The turn's other misses join before the check phase runs the batch.
    if (this.queued.push(pending) === 1) setImmediate(() => this.flush());
    return promise;
  }

  /** Lookups in flight: the number of svc_ids being read. */
  get size(): number {
    return this.inFlight.size;
  }

  /** These links changed: their lookups in flight keep nothing, and later visits read anew. */
  forget(svcIds: readonly string[]): void {
    for (const svcId of svcIds) {
      const pending = this.inFlight.get(svcId);
      if (!pending) continue;
      pending.stale = true;
      this.inFlight.delete(svcId);
    }
  }

  /** Every lookup in flight keeps nothing (messages may have been missed). */
  forgetAll(): void {
    for (const pending of this.inFlight.values()) pending.stale = true;
    this.inFlight.clear();
  }

  private flush(): void {
    const queued = this.queued;
    this.queued = [];
    for (let i = 0; i < queued.length; i += MAX_BATCH) {
      void this.read(queued.slice(i, i + MAX_BATCH));
    }
  }

  private async read(batch: Pending[]): Promise<void> {
    const { redis, counters } = this.stores;
    let missing = batch;
    const fast = redis.fast;
    if (fast && fast.status === 'ready') {
      try {
        const cached = await fast.mget(...batch.map((p) => this.stores.redisKey(p.svcId)));
        missing = [];
        for (const [i, pending] of batch.entries()) {
          const value = parse(cached[i]);
          if (value === undefined) {
            counters.redis.miss.inc();
            missing.push(pending);
          } else {
            counters.redis.hit.inc();
            this.settle(pending, value);
          }
        }
      } catch {
        // Redis unavailable: PostgreSQL answers.
      }
    }
    if (missing.length === 0) return;
    let found: Map<string, LinkTarget>;
    try {
      found = await this.stores.repository.findLinkTargets(missing.map((p) => p.svcId));
    } catch (error) {
      for (const pending of missing) this.fail(pending, error);
      return;
    }
    const writes: [string, string, number][] = [];
    for (const pending of missing) {
      const value = found.get(pending.svcId) ?? null;
      (value === null ? counters.database.miss : counters.database.hit).inc();
      if (this.settle(pending, value)) {
        writes.push([
          this.stores.redisKey(pending.svcId),
          JSON.stringify(value),
          this.stores.ttl(value).redis,
        ]);
      }
    }
    this.write(writes);
  }

  /** Answers the lookup, kept in memory unless it went stale; whether it was kept. */
  private settle(pending: Pending, value: LinkTarget | null): boolean {
    if (this.inFlight.get(pending.svcId) === pending) this.inFlight.delete(pending.svcId);
    const keep = !pending.stale;
    if (keep) {
      this.stores.evictions.value += this.stores.memory.set(
        pending.svcId,
        value,
        this.stores.ttl(value).memory,
        Date.now(),
      );
    }
    pending.resolve(value);
    return keep;
  }

  private fail(pending: Pending, error: unknown): void {
    if (this.inFlight.get(pending.svcId) === pending) this.inFlight.delete(pending.svcId);
    pending.reject(error);
  }

  /** One pipelined write: a SET with its time to live per answer. */
  private write(writes: [string, string, number][]): void {
    const fast = this.stores.redis.fast;
    if (writes.length === 0 || !fast || fast.status !== 'ready') return;
    const pipeline = fast.pipeline();
    for (const [key, value, seconds] of writes) pipeline.set(key, value, 'EX', seconds);
    pipeline.exec().catch(() => undefined);
  }
}

/** A Redis entry's answer: a link, null (known missing), or undefined when absent or unreadable. */
function parse(cached: string | null): LinkTarget | null | undefined {
  if (cached === null) return undefined;
  try {
    return JSON.parse(cached) as LinkTarget | null;
  } catch {
    return undefined;
  }
}
