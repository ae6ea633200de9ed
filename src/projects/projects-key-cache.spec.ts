import { AppConfig } from '../config/app-config';
import { InvalidationBus } from '../queue/invalidation-bus';
import { ProjectEntity } from './project.entity';
import { ProjectsRepository } from './projects.repository';
import { ProjectLookupsService } from './project-lookups.service';

const KEY = 'a'.repeat(64);
const PUBLISHABLE = `pk_${'a'.repeat(32)}`;
const ROTATED = `pk_${'b'.repeat(32)}`;

/** A ProjectLookupsService on a repository that counts its key lookups, and a bus without Redis. */
function setup() {
  const bus = new InvalidationBus({ redisPrefix: 'test' } as AppConfig);
  let version = 1;
  let publishable = PUBLISHABLE;
  const lookups: string[] = [];
  let hold = false;
  let release: () => void = () => undefined;
  const repository = {
    findLiveByApiKey: async (apiKey: string) => {
      lookups.push(apiKey);
      const read = { id: 'p1', apiKey, name: `v${version}` } as unknown as ProjectEntity;
      if (!hold) return apiKey === KEY ? read : null;
      // A slow lookup: answers what it read once the test lets it.
      hold = false;
      await new Promise<void>((resolve) => (release = resolve));
      return read;
    },
    findLiveByPublishableKey: (key: string) => {
      lookups.push(key);
      const read = { id: 'p1', apiKey: KEY, name: `v${version}` } as unknown as ProjectEntity;
      return Promise.resolve(key === publishable ? read : null);
    },
  } as unknown as ProjectsRepository;
  const service = new ProjectLookupsService(repository, null!, bus, null!);
  service.onModuleInit();
  return {
    service,
    bus,
    lookups,
    change: () => version++,
    rotate: () => (publishable = ROTATED),
    holdNextLookup: () => (hold = true),
    release: () => release(),
  };
}

describe('ProjectLookupsService: projects by API key', () => {
  it('reads a key from PostgreSQL once, then from memory, until a project changes', async () => {
    const t = setup();
    expect((await t.service.findActiveByApiKey(KEY))?.name).toBe('v1');
    expect((await t.service.findActiveByApiKey(KEY))?.name).toBe('v1');
    expect(t.lookups).toHaveLength(1);

    t.change();
    await t.bus.changed('project', ['p1']);
    expect((await t.service.findActiveByApiKey(KEY))?.name).toBe('v2');
    expect(t.lookups).toHaveLength(2);

    // Links and domains changing leave projects cached.
    await t.bus.changed('link', ['x']);
    await t.bus.changed('domain', ['example.com']);
    await t.service.findActiveByApiKey(KEY);
    expect(t.lookups).toHaveLength(2);
  });

  it('does not keep unknown or malformed keys', async () => {
    const t = setup();
    const unknown = 'b'.repeat(64);
    expect(await t.service.findActiveByApiKey(unknown)).toBeNull();
    expect(await t.service.findActiveByApiKey(unknown)).toBeNull();
    expect(t.lookups).toEqual([unknown, unknown]);
    expect(await t.service.findActiveByApiKey('not-a-key')).toBeNull();
    expect(t.lookups).toHaveLength(2);
  });

  it('does not keep what a lookup read before a change it raced', async () => {
    const t = setup();
    t.holdNextLookup();
    const racing = t.service.findActiveByApiKey(KEY);
    await new Promise((r) => setImmediate(r));
    t.change();
    await t.bus.changed('project', ['p1']);
    t.release();
    expect((await racing)?.name).toBe('v1');
    // The stale answer was not cached: the next lookup reads again.
    const next = await t.service.findActiveByApiKey(KEY);
    expect(next?.name).toBe('v2');
    expect(t.lookups).toHaveLength(2);
  });

  it('finds a publishable key by its own column, cached alike; a rotation drops the old one', async () => {
    const t = setup();
    expect(await t.service.findActiveByKey(PUBLISHABLE)).toStrictEqual({
      project: expect.objectContaining({ name: 'v1' }),
      kind: 'publishable',
    });
    expect((await t.service.findActiveByKey(KEY))?.kind).toBe('secret');
    await t.service.findActiveByKey(PUBLISHABLE);
    expect(t.lookups).toEqual([PUBLISHABLE, KEY]);
    // Never taken for an API key, whatever its project.
    expect(await t.service.findActiveByApiKey(PUBLISHABLE)).toBeNull();
    expect(t.lookups).toHaveLength(2);

    t.rotate();
    await t.bus.changed('project', ['p1']);
    expect(await t.service.findActiveByKey(PUBLISHABLE)).toBeNull();
    expect((await t.service.findActiveByKey(ROTATED))?.kind).toBe('publishable');
    expect(t.lookups).toEqual([PUBLISHABLE, KEY, PUBLISHABLE, ROTATED]);
    // Neither format (an upper-case or short pk_) is looked up.
    expect(await t.service.findActiveByKey(`pk_${'A'.repeat(32)}`)).toBeNull();
    expect(await t.service.findActiveByKey('pk_abc')).toBeNull();
    expect(t.lookups).toHaveLength(4);
  });
});
