import { Injectable, OnModuleInit } from '@nestjs/common';
import { Lru } from '../common/lru';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { InvalidationBus, InvalidationKind } from '../queue/invalidation-bus';
import { RedisClient } from '../queue/redis.provider';
import { LinkFilter } from './link-filter';
import { LayerCounters, LinkLoader } from './link-loader';
import { HostDomains, LinkTarget, ProjectTarget } from './redirect-target';
import { RedirectsRepository } from './redirects.repository';

/**
 * Time to live of cached answers, per layer. Links never change their redirect_url once created;
 * a change of their controls drops them on every instance (InvalidationBus).
 */
const TTL = {
  link: { memory: 10 * 60_000, redis: 3600 },
  missingLink: { memory: 30_000, redis: 30 },
  project: { memory: 60_000, redis: 300 },
  domain: { memory: 60_000, redis: 300 },
};

type Layer = 'memory' | 'filter' | 'redis' | 'database';

/**
 * What a cached link costs beyond its strings: the Map slot, the entry, the target and controls
 * objects and the string headers, rounded up for a link without controls.
 */
const LINK_ENTRY_OVERHEAD = 320;
/** What each country of `geo` adds beyond its two strings (a property of the geo object). */
const GEO_COUNTRY_OVERHEAD = 48;

/**
 * An estimate, from above, of the bytes a cached link keeps in memory (REDIRECT_CACHE_MB):
 * 2 bytes a character, as V8 stores a string with any character past Latin-1 (a Latin-1 one takes
 * half), plus the objects around them. Bounded work: a link has at most 50 countries in `geo`
 * (docs/api.md, "Link controls"); no serialisation.
 */
export function weighLinkTarget(key: string, target: LinkTarget | null): number {
  let chars = key.length;
  let bytes = LINK_ENTRY_OVERHEAD;
  if (target !== null) {
    chars +=
      target.linkId.length +
      target.projectId.length +
      target.svcId.length +
      target.redirectUrl.length;
    const controls = target.controls;
    if (controls) {
      chars +=
        (controls.expiredUrl?.length ?? 0) +
        (controls.ios?.length ?? 0) +
        (controls.android?.length ?? 0) +
        (controls.password?.length ?? 0);
      if (controls.geo) {
        for (const code in controls.geo) {
          chars += code.length + controls.geo[code].length;
          bytes += GEO_COUNTRY_OVERHEAD;
        }
      }
    }
  }
  return bytes + 2 * chars;
}

/** What the redirect path caches: links, projects and domains. */
type RedirectKind = Exclude<InvalidationKind, 'webhooks' | 'stamps'>;

/**
 * The Redis key space of each kind. A link entry carries its controls under `controls`: entries
 * of another shape (a version before, during a rolling upgrade) are in another space and never
 * read, so that no link's controls are lost to a field read under another name.
 */
const REDIS_SPACE: Record<RedirectKind, string> = {
  link: 'link3',
  project: 'project',
  domain: 'domain',
};

/**
 * The redirect path's lookups (docs/architecture.md, "How a redirect flows"): in-process LRU →
 * for links, the filter of existing svc_ids (LinkFilter: a path of none is answered at once) →
 * Redis → PostgreSQL, with negative caching, and invalidation on every instance through the
 * InvalidationBus. A link missed in memory is read with the other misses of its event-loop turn
 * (LinkLoader). A cache hit never touches PostgreSQL. Redis failures (outage, timeout) fall
 * through to the next layer at once.
 */
@Injectable()
export class RedirectCache implements OnModuleInit {
  private readonly links: Lru<LinkTarget | null>;
  private readonly projects: Lru<ProjectTarget>;
  private readonly hosts: Lru<HostDomains | null>;
  private readonly loader: LinkLoader;
  private readonly prefix: string;
  /** Each layer's counters (svc_link_cache_lookups_total, svc_link_cache_misses_total), bound once. */
  private readonly layers: Record<Layer, LayerCounters>;
  /** Project and domain lookups in flight, shared by the visits that ask meanwhile. */
  private readonly inFlight: Record<'project' | 'domain', Map<string, Promise<unknown>>> = {
    project: new Map(),
    domain: new Map(),
  };
  /** Invalidations received so far, per kind: a lookup that saw one while it waited keeps nothing. */
  private readonly invalidations: Record<'project' | 'domain', number> = {
    project: 0,
    domain: 0,
  };

  constructor(
    config: AppConfig,
    private readonly repository: RedirectsRepository,
    private readonly redis: RedisClient,
    private readonly invalidation: InvalidationBus,
    private readonly filter: LinkFilter,
    metrics: MetricsService,
  ) {
    this.links = new Lru(config.redirectCacheSize, {
      max: config.redirectCacheMb * 1024 * 1024,
      weigh: weighLinkTarget,
    });
    this.projects = new Lru(Math.max(1000, Math.floor(config.redirectCacheSize / 10)));
    this.hosts = new Lru(10_000);
    this.prefix = `${config.redisPrefix}:cache`;
    const layer = (name: Layer): LayerCounters => ({
      hit: metrics.cacheLookups.child(name),
      miss: metrics.cacheMisses.child(name),
    });
    this.layers = {
      memory: layer('memory'),
      filter: layer('filter'),
      redis: layer('redis'),
      database: layer('database'),
    };
    const evictions = metrics.cacheEvictions.child('memory');
    this.loader = new LinkLoader({
      repository,
      redis,
      memory: this.links,
      redisKey: (svcId) => this.redisKey('link', svcId),
      ttl: (value) => (value === null ? TTL.missingLink : TTL.link),
      counters: { redis: this.layers.redis, database: this.layers.database },
      evictions,
    });
    metrics.gauge(
      'svc_link_cache_entries',
      'Entries of the in-process link cache',
      () => this.links.size,
    );
    metrics.gauge(
      'svc_link_cache_bytes',
      'Estimated bytes of the in-process link cache (REDIRECT_CACHE_MB bounds it)',
      () => this.links.weight,
    );
    metrics.gauge(
      'svc_link_cache_filter_links',
      'Links the filter of existing svc_ids holds (0 while it is being built: it answers nothing then)',
      () => this.filter.stats.links,
    );
    metrics.gauge(
      'svc_link_cache_filter_bytes',
      'Bytes of the filter of existing svc_ids',
      () => this.filter.stats.bytes,
    );
  }

  onModuleInit(): void {
    // Webhooks are not the redirect path's.
    this.invalidation.register<RedirectKind>({
      kinds: ['link', 'project', 'domain'],
      drop: (kind, keys) => this.invalidateLocal(kind, keys),
      dropAll: () => this.dropAll(),
    });
  }

  /**
   * Synchronous on a memory hit (the common case: no promise, no allocation of a lookup chain) and
   * on a path the filter knows no link has; otherwise the turn's batch (LinkLoader).
   */
  linkTarget(svcId: string): Promise<LinkTarget | null> | LinkTarget | null {
    const hit = this.links.get(svcId, Date.now());
    if (hit) {
      this.layers.memory.hit.inc();
      return hit.value;
    }
    this.layers.memory.miss.inc();
    if (!this.filter.mightExist(svcId)) {
      this.layers.filter.hit.inc();
      return null;
    }
    this.layers.filter.miss.inc();
    return this.loader.load(svcId);
  }

  projectTarget(projectId: string): Promise<ProjectTarget> | ProjectTarget {
    return this.lookup(this.projects, 'project', projectId, TTL.project);
  }

  hostDomains(host: string): Promise<HostDomains | null> | HostDomains | null {
    return this.lookup(this.hosts, 'domain', host, TTL.domain);
  }

  /**
   * Synchronous on a memory hit (no promise, no closure), otherwise Redis, then the database; what
   * a lower layer answers is kept in the upper ones. Concurrent misses of one key share its lookup.
   */
  private lookup<T>(
    lru: Lru<T>,
    kind: 'project' | 'domain',
    key: string,
    ttl: { memory: number; redis: number },
  ): Promise<T> | T {
    const hit = lru.get(key, Date.now());
    if (hit) {
      this.layers.memory.hit.inc();
      return hit.value;
    }
    this.layers.memory.miss.inc();
    const inFlight = this.inFlight[kind];
    const running = inFlight.get(key) as Promise<T> | undefined;
    if (running) return running;
    const lookup = this.lookupSlow(lru, kind, key, ttl).finally(() => {
      if (inFlight.get(key) === lookup) inFlight.delete(key);
    });
    inFlight.set(key, lookup);
    return lookup;
  }

  private async lookupSlow<T>(
    lru: Lru<T>,
    kind: 'project' | 'domain',
    key: string,
    ttl: { memory: number; redis: number },
  ): Promise<T> {
    const redisKey = this.redisKey(kind, key);
    const fast = this.redis.fast;
    // An entry read before a change and kept after the change's invalidation arrived would outlive
    // it (a project destroyed would redirect until the TTL): what was read across one is not kept.
    const invalidations = this.invalidations[kind];
    if (fast && fast.status === 'ready') {
      try {
        const cached = await fast.get(redisKey);
        if (cached !== null) {
          const value = JSON.parse(cached) as T;
          if (invalidations === this.invalidations[kind])
            lru.set(key, value, ttl.memory, Date.now());
          this.layers.redis.hit.inc();
          return value;
        }
        this.layers.redis.miss.inc();
      } catch {
        // Redis unavailable: the database answers.
      }
    }
    const value = (await (kind === 'project'
      ? this.repository.findProjectTarget(key)
      : this.repository.findHostDomains(key))) as T;
    this.layers.database.hit.inc();
    if (invalidations !== this.invalidations[kind]) return value;
    lru.set(key, value, ttl.memory, Date.now());
    if (fast && fast.status === 'ready') {
      fast.set(redisKey, JSON.stringify(value), 'EX', ttl.redis).catch(() => undefined);
    }
    return value;
  }

  private redisKey(kind: RedirectKind, key: string): string {
    return `${this.prefix}:${REDIS_SPACE[kind]}:${key}`;
  }

  /**
   * Drops entries here; the instance that published also drops them from Redis. A link announced
   * exists (created, or its controls changed): the filter has it from now on.
   */
  private invalidateLocal(kind: RedirectKind, keys: readonly string[]): void {
    let cacheKeys: readonly string[] = keys;
    if (kind === 'link') {
      this.filter.add(keys);
      this.loader.forget(keys);
      for (const key of keys) this.links.delete(key);
    } else {
      this.invalidations[kind] += 1;
      const lru = kind === 'project' ? this.projects : this.hosts;
      // A domain is cached under its host: `host_segment` domains belong to `host`.
      if (kind === 'domain') cacheKeys = [...new Set(keys.map((k) => k.replace(/_.*$/, '')))];
      for (const key of cacheKeys) {
        lru.delete(key);
        this.inFlight[kind].delete(key);
      }
    }
    const fast = this.redis.fast;
    if (fast && fast.status === 'ready') {
      fast.del(...cacheKeys.map((key) => this.redisKey(kind, key))).catch(() => undefined);
    }
  }

  /**
   * Drops every entry here (messages may have been missed); Redis entries expire by their TTL. The
   * filter may lack links created meanwhile: it answers again once built anew.
   */
  private dropAll(): void {
    this.invalidations.project += 1;
    this.invalidations.domain += 1;
    this.loader.forgetAll();
    this.inFlight.project.clear();
    this.inFlight.domain.clear();
    this.links.clear();
    this.projects.clear();
    this.hosts.clear();
    this.filter.forget();
  }
}
