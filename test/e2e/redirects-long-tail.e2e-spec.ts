import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { RedisClient } from '../../src/queue/redis.provider';
import { LinkFilter } from '../../src/redirects/link-filter';
import { RedirectCache } from '../../src/redirects/redirect-cache';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { TestApp, createTestApp } from '../support/app';
import { BROWSER } from '../support/clicks';
import { eventually } from '../support/eventually';
import { SiblingApp, startSiblingApp } from '../support/sibling-app';

/** The link lookup of a turn's misses (RedirectsRepository.findLinkTargets). */
const BATCH_QUERY = /FROM links WHERE svc_id = ANY/;

/** PostgreSQL queries and Redis writes (round trips: MGET, GET, a pipeline's one write) of an instance. */
function wrapClients(app: SiblingApp['app']) {
  const dataSource = app.get(DataSource);
  const fast = app.get(RedisClient, { strict: false }).fast!;
  const queries = jest.spyOn(dataSource, 'query');
  const writes = jest.spyOn(fast.stream, 'write');
  const mget = jest.spyOn(fast, 'mget');
  const pipeline = jest.spyOn(fast, 'pipeline');
  return {
    /** The svc_ids of each link lookup PostgreSQL was asked. */
    linkQueries: () =>
      queries.mock.calls
        .filter(([sql]) => BATCH_QUERY.test(sql))
        .map(([, parameters]) => (parameters as [string[]])[0]),
    /** Every query naming the links table by svc_id, batched or not. */
    anyLinkLookup: () => queries.mock.calls.filter(([sql]) => /FROM links WHERE svc_id/.test(sql)),
    redisWrites: () => writes.mock.calls.length,
    mgets: () => mget.mock.calls.length,
    pipelines: () => pipeline.mock.calls.length,
    restore: () => [queries, writes, mget, pipeline].forEach((spy) => spy.mockRestore()),
  };
}

/** `connections` keep-alive loops of GET requests for `ms`: the answers' statuses, counted. */
async function load(
  port: number,
  paths: () => string,
  connections: number,
  ms: number,
): Promise<Map<number, number>> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const statuses = new Map<number, number>();
  const end = Date.now() + ms;
  const one = () =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          port,
          host: '127.0.0.1',
          path: `/${paths()}`,
          agent,
          headers: { Host: 'svc.test', 'User-Agent': BROWSER },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end();
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < end) {
        const status = await one();
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  agent.destroy();
  return statuses;
}

/**
 * Redirects beyond one hot link (docs/architecture.md, "How a redirect flows"): misses read in
 * batches, unknown paths answered by the filter of existing links, on two instances of one
 * deployment.
 */
describe('redirects: the long tail', () => {
  let t: TestApp;
  let key: string;
  let sibling: SiblingApp;
  let dataDir: string;
  beforeAll(async () => {
    t = await createTestApp({ redis: true });
    key = (await createProject(t)).api_key;
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-sibling-'));
    // The sibling answers floods of unknown paths unbraked (docs/operations.md, "Floods of unknown
    // paths"), so that its flood measures the filter; `t` keeps the brake's defaults.
    sibling = await startSiblingApp(t, dataDir, {
      NOT_FOUND_RATE_LIMIT: '0',
      NOT_FOUND_INSTANCE_LIMIT: '0',
    });
    const filters = [t.app, sibling.app].map((app) => app.get(LinkFilter, { strict: false }));
    await eventually('both filters built', () => filters.every((filter) => filter.ready), 10_000);
  });
  afterAll(async () => {
    await sibling?.app.close();
    await t?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("reads a turn's misses with one PostgreSQL query and one Redis round trip, and writes them back in one", async () => {
    const links = [];
    for (let i = 0; i < 12; i++) links.push(await createLink(t, key, { path: `tail-${i}` }));
    const svcIds = links.map((link) => link.svc_id);
    const cache = t.app.get(RedirectCache, { strict: false });
    const clients = wrapClients(t.app);
    try {
      // One turn's misses: every link, one of them asked three times, and two paths of no link.
      const asked = [...svcIds, svcIds[3], svcIds[3], 'svc.test_no-such-1', 'svc.test_no-such-2'];
      const answers = await Promise.all(asked.map(async (svcId) => cache.linkTarget(svcId)));
      expect(answers.map((answer) => answer?.svcId ?? null)).toEqual([
        ...svcIds,
        svcIds[3],
        svcIds[3],
        null,
        null,
      ]);
      // The filter answered the unknown paths; the links were read together, each once.
      expect(clients.linkQueries()).toEqual([svcIds]);
      expect(clients.anyLinkLookup()).toHaveLength(1);
      expect(clients.mgets()).toBe(1);
      await eventually('the write to Redis', () => clients.pipelines() === 1, 2000);
      // One MGET, one pipelined write: two round trips for twelve links.
      await eventually('both round trips written', () => clients.redisWrites() === 2, 2000);
      const redis = t.app.get(RedisClient, { strict: false }).fast!;
      const stored = await redis.mget(
        ...svcIds.map((svcId) => `${t.config.redisPrefix}:cache:link3:${svcId}`),
      );
      expect(stored.map((value) => (JSON.parse(value!) as { svcId: string }).svcId)).toEqual(
        svcIds,
      );
    } finally {
      clients.restore();
    }

    // Another instance has nothing in memory: Redis answers all of them in one MGET, PostgreSQL none.
    const there = wrapClients(sibling.app);
    try {
      const siblingCache = sibling.app.get(RedirectCache, { strict: false });
      const answers = await Promise.all(
        svcIds.map(async (svcId) => siblingCache.linkTarget(svcId)),
      );
      expect(answers.map((answer) => answer?.svcId)).toEqual(svcIds);
      expect([there.mgets(), there.linkQueries().length, there.pipelines()]).toEqual([1, 0, 0]);
    } finally {
      there.restore();
    }
  });

  it('a link made on one instance redirects on another that had its path as unknown, without waiting for a time to live', async () => {
    const visit = (pathName: string) =>
      sibling.http.get(`/${pathName}`).set('Host', 'svc.test').set('User-Agent', BROWSER);
    // `early-a`: the filter answers there. `early-b`: as if the filter could not rule it out (a
    // false positive), so PostgreSQL answered and the miss is cached in memory and Redis (30 s).
    sibling.app.get(LinkFilter, { strict: false }).add(['svc.test_early-b']);
    await visit('early-a').expect(404);
    await visit('early-b').expect(404);
    const redis = t.app.get(RedisClient, { strict: false }).fast!;
    await eventually(
      'the miss kept in Redis',
      async () =>
        (await redis.get(`${t.config.redisPrefix}:cache:link3:svc.test_early-b`)) === 'null',
      2000,
    );

    await createLink(t, key, { path: 'early-a', url: 'https://example.com/a' });
    await createLink(t, key, { path: 'early-b', url: 'https://example.com/b' });
    // The announcement reaches the other instance within moments, far below the 30 s.
    await eventually(
      'both links redirecting on the other instance',
      async () => {
        expect((await visit('early-a')).headers.location).toBe('https://example.com/a');
        expect((await visit('early-b')).headers.location).toBe('https://example.com/b');
      },
      3000,
    );
  });

  it('a flood of unknown paths costs PostgreSQL (nearly) nothing and leaves known links answering', async () => {
    const link = await createLink(t, key, { path: 'flood-known' });
    const { port } = sibling.app.getHttpServer().address() as AddressInfo;
    let n = 0;
    const unknown = () => `nope-${n++}-${Math.random().toString(36).slice(2)}`;
    // Warm: the link in memory.
    await load(port, () => link.path, 2, 200);
    const clients = wrapClients(sibling.app);
    try {
      // Alone, then beside the flood, twice: the best of the two ratios, so that load from other
      // test files during one measurement does not decide it.
      const ratios: number[] = [];
      let floodRequests = 0;
      for (let round = 0; round < 2; round++) {
        const alone = await load(port, () => link.path, 4, 1500);
        const [beside, flood] = await Promise.all([
          load(port, () => link.path, 4, 1500),
          load(port, unknown, 4, 1500),
        ]);
        expect([...alone.keys(), ...beside.keys()]).toEqual([302, 302]);
        expect([...flood.keys()]).toEqual([404]);
        ratios.push(beside.get(302)! / alone.get(302)!);
        floodRequests += flood.get(404)!;
      }
      // Only the filter's false positives (about 1%) reach Redis and PostgreSQL.
      const lookedUp = clients.linkQueries().flat().length;
      expect(lookedUp).toBeLessThan(Math.max(5, floodRequests * 0.05));
      expect(clients.anyLinkLookup()).toHaveLength(clients.linkQueries().length);
      // Loose: the flood takes its share of one event loop, shared with this test's client too;
      // bench:longtail measures the ratio tightly.
      expect(Math.max(...ratios)).toBeGreaterThan(0.3);
      expect(floodRequests).toBeGreaterThan(100);
    } finally {
      clients.restore();
    }
    await t.settle();
  });

  it('with the brake on not-found answers (the defaults: 50 a second per address, then 1 s), a known link keeps more of its rate beside a flood than without', async () => {
    const link = await createLink(t, key, { path: 'flood-braked' });
    const server = t.app.getHttpServer();
    if (!server.listening) {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    }
    const ports = {
      braked: (server.address() as AddressInfo).port,
      unbraked: (sibling.app.getHttpServer().address() as AddressInfo).port,
    };
    let n = 0;
    const unknown = () => `braked-nope-${n++}-${Math.random().toString(36).slice(2)}`;
    for (const port of Object.values(ports)) await load(port, () => link.path, 2, 200);
    // Both instances serve from this process's one event loop: measured in turns, so that a
    // change of the machine's load falls on both alike.
    const beside = { braked: 0, unbraked: 0 };
    const flood = { braked: 0, unbraked: 0 };
    for (let round = 0; round < 3; round++) {
      for (const kind of ['braked', 'unbraked'] as const) {
        const [known, unknowns] = await Promise.all([
          load(ports[kind], () => link.path, 4, 700),
          load(ports[kind], unknown, 4, 700),
        ]);
        expect([...known.keys(), ...unknowns.keys()]).toEqual([302, 404]);
        beside[kind] += known.get(302)!;
        flood[kind] += unknowns.get(404)!;
      }
    }
    // Braked, each round's flood (more than a second after the last) starts a window: its first 50
    // answers at once, then each of its four connections waits a second, past the round's end.
    expect(flood.braked).toBeLessThanOrEqual(3 * (50 + 4));
    expect(flood.unbraked).toBeGreaterThan(flood.braked);
    expect(beside.braked).toBeGreaterThan(beside.unbraked);
    await t.settle();
  });
});
