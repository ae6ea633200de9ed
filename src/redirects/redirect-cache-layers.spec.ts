import type { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import type { InvalidationBus, LocalCache } from '../queue/invalidation-bus';
import type { RedisClient } from '../queue/redis.provider';
import { LinkFilter } from './link-filter';
import { RedirectCache } from './redirect-cache';
import type { LinkTarget } from './redirect-target';
import type { RedirectsRepository } from './redirects.repository';

const target = (svcId: string): LinkTarget => ({
  linkId: '1',
  projectId: 'p',
  svcId,
  redirectUrl: 'https://example.com/',
});

/** The cache without Redis, on a repository of `links` that records each link query. */
async function setup(links: string[]) {
  const queries: string[][] = [];
  const repository = {
    findLinkTargets: (svcIds: readonly string[]) => {
      queries.push([...svcIds]);
      return Promise.resolve(
        new Map(svcIds.filter((id) => links.includes(id)).map((id) => [id, target(id)])),
      );
    },
    countLinks: () => Promise.resolve(links.length),
    svcIdsAfter: (after: string | null) => Promise.resolve(after === null ? [...links] : []),
  } as unknown as RedirectsRepository;
  let bus!: LocalCache<'link' | 'project' | 'domain'>;
  const invalidation = {
    register: (cache: typeof bus) => (bus = cache),
  } as unknown as InvalidationBus;
  const filter = new LinkFilter({ servesApi: true } as AppConfig, repository);
  const metrics = new MetricsService();
  const cache = new RedirectCache(
    { redirectCacheSize: 1000, redirectCacheMb: 1, redisPrefix: 't' } as AppConfig,
    repository,
    { fast: null } as RedisClient,
    invalidation,
    filter,
    metrics,
  );
  cache.onModuleInit();
  filter.onApplicationBootstrap();
  while (!filter.ready) await new Promise((resolve) => setImmediate(resolve));
  const counted = async (name: string): Promise<Record<string, number>> => {
    const { values } = await metrics.registry.getSingleMetric(name)!.get();
    return Object.fromEntries(values.map((v) => [String(v.labels.layer), v.value]));
  };
  return { cache, filter, queries, bus, counted };
}

describe('RedirectCache: memory, the filter, the batch', () => {
  it('answers a path of no link at once from the filter, asking no store', async () => {
    const { cache, queries, counted } = await setup(['svc.test_a']);
    expect(cache.linkTarget('svc.test_zzz')).toBeNull();
    expect(queries).toEqual([]);
    expect(await counted('svc_link_cache_lookups_total')).toMatchObject({ filter: 1 });
  });

  it('reads a link the filter has, then answers it from memory without a promise', async () => {
    const { cache, queries, counted } = await setup(['svc.test_a']);
    const first = cache.linkTarget('svc.test_a');
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toEqual(target('svc.test_a'));
    expect(cache.linkTarget('svc.test_a')).toEqual(target('svc.test_a'));
    expect(queries).toEqual([['svc.test_a']]);
    expect(await counted('svc_link_cache_lookups_total')).toMatchObject({
      memory: 1,
      database: 1,
    });
    expect(await counted('svc_link_cache_misses_total')).toMatchObject({ memory: 1, filter: 1 });
  });

  it('a link announced as created passes the filter and forgets the miss kept in memory', async () => {
    const links = ['svc.test_a'];
    const { cache, filter, queries, bus } = await setup(links);
    // A miss kept in memory (as after a false positive of the filter).
    filter.add(['svc.test_new']);
    expect(await cache.linkTarget('svc.test_new')).toBeNull();
    expect(cache.linkTarget('svc.test_new')).toBeNull();
    links.push('svc.test_new', 'svc.test_other');
    bus.drop('link', ['svc.test_new', 'svc.test_other']);
    expect(await cache.linkTarget('svc.test_new')).toEqual(target('svc.test_new'));
    expect(await cache.linkTarget('svc.test_other')).toEqual(target('svc.test_other'));
    expect(queries).toEqual([['svc.test_new'], ['svc.test_new'], ['svc.test_other']]);
  });

  it('after missed messages (dropAll), looks unknown paths up until the filter is built again', async () => {
    const { cache, filter, queries, bus } = await setup(['svc.test_a']);
    bus.dropAll();
    expect(filter.ready).toBe(false);
    expect(await cache.linkTarget('svc.test_zzz')).toBeNull();
    expect(queries).toEqual([['svc.test_zzz']]);
    while (!filter.ready) await new Promise((resolve) => setImmediate(resolve));
    expect(cache.linkTarget('svc.test_yyy')).toBeNull();
    expect(queries).toHaveLength(1);
  });
});
