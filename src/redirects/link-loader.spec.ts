import { Lru } from '../common/lru';
import type { RedisClient } from '../queue/redis.provider';
import { LinkLoader, MAX_BATCH } from './link-loader';
import type { LinkTarget } from './redirect-target';
import type { RedirectsRepository } from './redirects.repository';

const target = (svcId: string): LinkTarget => ({
  linkId: '1',
  projectId: 'p',
  svcId,
  redirectUrl: `https://example.com/${svcId}`,
});

/** Hand-written fakes: a Redis that keeps strings and counts its round trips, a repository that counts its queries. */
function setup(
  links: string[],
  options: { redisUp?: boolean; cached?: Record<string, string> } = {},
) {
  const store = new Map<string, string>(Object.entries(options.cached ?? {}));
  const calls = { mget: 0, pipelines: 0, queries: [] as string[][] };
  let release: () => void = () => undefined;
  let held: Promise<void> | null = null;
  const fast = {
    status: options.redisUp === false ? 'end' : 'ready',
    mget: (...keys: string[]) => {
      calls.mget++;
      return Promise.resolve(keys.map((key) => store.get(key) ?? null));
    },
    pipeline: () => {
      calls.pipelines++;
      const sets: [string, string][] = [];
      const pipeline = {
        set: (key: string, value: string) => {
          sets.push([key, value]);
          return pipeline;
        },
        exec: () => {
          for (const [key, value] of sets) store.set(key, value);
          return Promise.resolve([]);
        },
      };
      return pipeline;
    },
  };
  const repository = {
    findLinkTargets: async (svcIds: readonly string[]) => {
      calls.queries.push([...svcIds]);
      if (held) await held;
      return new Map(svcIds.filter((id) => links.includes(id)).map((id) => [id, target(id)]));
    },
  };
  const counter = () => ({
    n: 0,
    inc() {
      this.n++;
    },
  });
  const counters = {
    redis: { hit: counter(), miss: counter() },
    database: { hit: counter(), miss: counter() },
  };
  const memory = new Lru<LinkTarget | null>(100_000);
  const loader = new LinkLoader({
    repository: repository as unknown as RedirectsRepository,
    redis: { fast } as unknown as RedisClient,
    memory,
    redisKey: (svcId) => `c:link3:${svcId}`,
    ttl: (value) =>
      value === null ? { memory: 30_000, redis: 30 } : { memory: 600_000, redis: 3600 },
    counters,
    evictions: { value: 0 },
  });
  const hold = () => {
    held = new Promise((resolve) => (release = resolve));
  };
  return { loader, calls, store, memory, counters, hold, release: () => release() };
}

describe('LinkLoader', () => {
  it("looks up a turn's misses together: one MGET, one query, one pipelined write, known misses included", async () => {
    const links = Array.from({ length: 50 }, (_, i) => `svc.test_L${i}`);
    const { loader, calls, store, memory, counters } = setup(links);
    const asked = [...links, 'svc.test_gone1', 'svc.test_gone2'];
    const answers = await Promise.all(asked.map((svcId) => loader.load(svcId)));
    expect(answers).toEqual([...links.map(target), null, null]);
    expect(calls.mget).toBe(1);
    expect(calls.queries).toEqual([asked]);
    expect(calls.pipelines).toBe(1);
    expect(store.get('c:link3:svc.test_L7')).toBe(JSON.stringify(target('svc.test_L7')));
    expect(store.get('c:link3:svc.test_gone1')).toBe('null');
    expect(memory.get('svc.test_L7', Date.now())?.value).toEqual(target('svc.test_L7'));
    expect(memory.get('svc.test_gone2', Date.now())?.value).toBeNull();
    expect([counters.redis.miss.n, counters.database.hit.n, counters.database.miss.n]).toEqual([
      52, 50, 2,
    ]);
    expect(loader.size).toBe(0);
  });

  it('shares one lookup between concurrent misses of a key', async () => {
    const { loader, calls } = setup(['svc.test_a']);
    const first = loader.load('svc.test_a');
    const again = loader.load('svc.test_a');
    expect(again).toBe(first);
    await Promise.all([first, again, loader.load('svc.test_b')]);
    expect(calls.queries).toEqual([['svc.test_a', 'svc.test_b']]);
  });

  it('answers from Redis what it has, and asks PostgreSQL only the rest', async () => {
    const { loader, calls, counters } = setup(['svc.test_a', 'svc.test_b'], {
      cached: {
        'c:link3:svc.test_a': JSON.stringify(target('svc.test_a')),
        'c:link3:svc.test_x': 'null',
      },
    });
    const answers = await Promise.all(
      ['svc.test_a', 'svc.test_b', 'svc.test_x'].map((svcId) => loader.load(svcId)),
    );
    expect(answers).toEqual([target('svc.test_a'), target('svc.test_b'), null]);
    expect(calls.queries).toEqual([['svc.test_b']]);
    expect([counters.redis.hit.n, counters.redis.miss.n]).toEqual([2, 1]);
  });

  it('skips Redis while it is down, and cuts a large turn into batches', async () => {
    const links = Array.from({ length: MAX_BATCH + 5 }, (_, i) => `svc.test_L${i}`);
    const { loader, calls } = setup(links, { redisUp: false });
    await Promise.all(links.map((svcId) => loader.load(svcId)));
    expect(calls.mget).toBe(0);
    expect(calls.pipelines).toBe(0);
    expect(calls.queries.map((q) => q.length)).toEqual([MAX_BATCH, 5]);
  });

  it('keeps nothing of a lookup whose link changed while it ran, and reads it anew after', async () => {
    const { loader, calls, memory, store, hold, release } = setup(['svc.test_a']);
    hold();
    const stale = loader.load('svc.test_a');
    await new Promise((resolve) => setImmediate(resolve));
    loader.forget(['svc.test_a']);
    const fresh = loader.load('svc.test_a');
    expect(fresh).not.toBe(stale);
    release();
    await stale;
    expect(memory.has('svc.test_a')).toBe(false);
    expect(store.has('c:link3:svc.test_a')).toBe(false);
    expect(await fresh).toEqual(target('svc.test_a'));
    expect(memory.has('svc.test_a')).toBe(true);
    expect(calls.queries).toEqual([['svc.test_a'], ['svc.test_a']]);
  });

  it('fails the lookups of a batch PostgreSQL could not answer, and tries again at the next miss', async () => {
    const { loader } = setup(['svc.test_a']);
    const repository = (
      loader as unknown as { stores: { repository: { findLinkTargets: unknown } } }
    ).stores.repository;
    const real = repository.findLinkTargets;
    repository.findLinkTargets = () => Promise.reject(new Error('connection refused'));
    await expect(loader.load('svc.test_a')).rejects.toThrow('connection refused');
    repository.findLinkTargets = real;
    expect(loader.size).toBe(0);
    await expect(loader.load('svc.test_a')).resolves.toEqual(target('svc.test_a'));
  });
});
