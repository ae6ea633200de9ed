import { ClickBuffer } from '../../src/clicks/click-buffer';
import { ClicksService } from '../../src/clicks/clicks.service';
import { JobQueue } from '../../src/queue/job-queue';
import { TestApp, createTestApp } from '../support/app';
import {
  BROWSER,
  GOOGLEBOT,
  clickCounts,
  spooledClicks,
  stored,
  waitForClicks,
} from '../support/clicks';
import { eventually } from '../support/eventually';
import { TEST_DATABASE_URL, databaseUrl } from '../support/env';
import { TestRedisServer, startRedisServer } from '../support/redis-server';
import { TcpProxy, startTcpProxy } from '../support/tcp-proxy';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';

/**
 * Outages (docs/api.md, "Outages and logs"): Redis on a server of the test's own that it kills and starts again; PostgreSQL
 * behind a TCP proxy the test cuts. The shared services are never stopped.
 */

// Outages wait out retry delays (testTimeout is not a project option).
jest.setTimeout(30_000);

/**
 * A redirect during an outage answers without waiting for the store: well under any client timeout
 * and under the 5 s connection timeout a wait would take, with room for a busy machine.
 */
const QUICK_MS = 1_500;

async function visit(t: TestApp, path: string, ua = BROWSER, method: 'get' | 'head' = 'get') {
  const started = Date.now();
  const res = await t.http[method](`/${path}`).set('Host', 'svc.test').set('User-Agent', ua);
  return {
    status: res.status,
    location: res.headers.location as string | undefined,
    ms: Date.now() - started,
  };
}

describe('Redis outage', () => {
  let redis: TestRedisServer;
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    redis = await startRedisServer();
    t = await createTestApp({ env: { REDIS_URL: redis.url } });
    key = (await createProject(t)).api_key;
  });
  afterAll(async () => {
    await t?.close();
    await redis?.kill();
  });

  it('redirects from memory and PostgreSQL, buffers then spills clicks, and sends each once when Redis is back', async () => {
    const [warm, cold, late] = [
      await createLink(t, key, { url: 'https://example.com/warm' }),
      await createLink(t, key, { url: 'https://example.com/cold' }),
      await createLink(t, key, { url: 'https://example.com/late' }),
    ];
    expect((await visit(t, warm.path)).status).toBe(302);
    expect(await waitForClicks(t, { [warm.svc_id]: { clicks: 1, bots: 0 } })).toEqual(
      stored({ [warm.svc_id]: { clicks: 1, bots: 0 } }),
    );

    const buffer = t.app.get(ClickBuffer, { strict: false });
    const enqueue = jest.spyOn(t.app.get(JobQueue), 'add');
    await redis.kill();
    // Cached in memory (warm), first seen now (cold: PostgreSQL answers), unknown (404).
    const answers = [
      await visit(t, warm.path),
      await visit(t, warm.path),
      await visit(t, warm.path, GOOGLEBOT),
      await visit(t, warm.path, BROWSER, 'head'),
      await visit(t, cold.path),
      await visit(t, cold.path),
    ];
    expect(answers.map((a) => [a.status, a.location])).toEqual([
      [302, 'https://example.com/warm'],
      [302, 'https://example.com/warm'],
      [302, 'https://example.com/warm'],
      [302, 'https://example.com/warm'],
      [302, 'https://example.com/cold'],
      [302, 'https://example.com/cold'],
    ]);
    expect((await visit(t, 'no-such-link')).status).toBe(404);
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(QUICK_MS);

    // The clicks wait in the buffer (HEAD is not one) once a hand-over to the queue failed.
    await eventually(
      'a failed hand-over',
      () => enqueue.mock.results.some((r) => r.type === 'return'),
      5000,
    );
    await expect(enqueue.mock.results[0].value).rejects.toThrow('Redis is unreachable');
    expect(buffer.size).toBe(5);
    const metrics = await t.http.get('/metrics').expect(200);
    expect(/^svc_click_buffer_size (\S+)$/m.exec(metrics.text)?.[1]).toBe('5');
    // Unknown while Redis is down, at once (not a hung scrape).
    expect(Number(/^svc_click_queue_depth (\S+)$/m.exec(metrics.text)?.[1])).toBeNaN();

    // Past the in-memory bound, the oldest clicks go to DATA_DIR/spool at the next hand-over.
    buffer.memoryLimit = 2;
    for (let i = 0; i < 3; i++) expect((await visit(t, late.path)).status).toBe(302);
    await eventually(
      'the spill to disk',
      () => spooledClicks(t.config.dataDir).clicks.length > 0,
      5000,
    );
    expect(buffer.size).toBe(2);
    expect(spooledClicks(t.config.dataDir).clicks).toHaveLength(6);

    await redis.start();
    const expected = {
      [warm.svc_id]: { clicks: 3, bots: 1 },
      [cold.svc_id]: { clicks: 2, bots: 0 },
      [late.svc_id]: { clicks: 3, bots: 0 },
    };
    expect(await waitForClicks(t, expected)).toEqual(stored(expected));
    // Nothing left anywhere that could still arrive and count twice.
    await eventually(
      'an empty buffer and spool',
      () => buffer.size === 0 && spooledClicks(t.config.dataDir).files.length === 0,
    );
    await redis.waitForQueues(t.config.redisPrefix);
    expect(await clickCounts(t, Object.keys(expected))).toEqual(stored(expected));
    // Redirects use Redis again.
    expect((await visit(t, cold.path)).status).toBe(302);
  });
});

describe.each([
  ['BullMQ on Redis', true],
  ['in-process jobs', false],
])('PostgreSQL outage (%s)', (_label, useRedis) => {
  let proxy: TcpProxy;
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    const server = new URL(TEST_DATABASE_URL);
    proxy = await startTcpProxy(Number(server.port || 5432), server.hostname);
    t = await createTestApp({
      redis: useRedis,
      databaseUrl: (name) => {
        const url = new URL(databaseUrl(name));
        url.host = `127.0.0.1:${proxy.port}`;
        return url.toString();
      },
    });
    key = (await createProject(t)).api_key;
  });
  afterAll(async () => {
    await proxy?.restore();
    await t?.close();
    await proxy?.close();
  });

  it('keeps redirecting cached links, answers 503 for the others, and counts each click once (clicks do not need PostgreSQL)', async () => {
    const [a, b, uncached] = [
      await createLink(t, key, { url: 'https://example.com/a' }),
      await createLink(t, key, { url: 'https://example.com/b' }),
      await createLink(t, key, { url: 'https://example.com/uncached' }),
    ];
    expect((await visit(t, a.path)).status).toBe(302);
    expect((await visit(t, b.path)).status).toBe(302);
    await t.settle();
    expect(await clickCounts(t, [a.svc_id, b.svc_id])).toEqual(
      stored({ [a.svc_id]: { clicks: 1, bots: 0 }, [b.svc_id]: { clicks: 1, bots: 0 } }),
    );

    const ingest = jest.spyOn(t.app.get(ClicksService, { strict: false }), 'ingest');
    await proxy.cut();
    const cached = [
      await visit(t, a.path),
      await visit(t, a.path),
      await visit(t, b.path),
      await visit(t, a.path, GOOGLEBOT),
    ];
    expect(cached.map((r) => [r.status, r.location])).toEqual([
      [302, 'https://example.com/a'],
      [302, 'https://example.com/a'],
      [302, 'https://example.com/b'],
      [302, 'https://example.com/a'],
    ]);
    // A link not cached needs PostgreSQL; a path of no link does not: the filter of existing links
    // answers it (docs/architecture.md, "How a redirect flows").
    const unavailable = [await visit(t, uncached.path), await visit(t, 'no-such-link')];
    expect(unavailable.map((r) => r.status)).toEqual([503, 404]);
    expect(Math.max(...[...cached, ...unavailable].map((r) => r.ms))).toBeLessThan(QUICK_MS);
    // A host not seen before cannot be looked up, yet liveness still answers (Express, not a 503).
    await t.http.get('/health').set('Host', 'api.internal.test:8080').expect(200, { status: 'ok' });

    // The clicks left the buffer and are counted: their job writes to the analytics store only.
    const expected = {
      [a.svc_id]: { clicks: 3, bots: 1 },
      [b.svc_id]: { clicks: 2, bots: 0 },
    };
    expect(await waitForClicks(t, expected)).toEqual(stored(expected));
    // However the buffer cut them into jobs (one, unless the visits took over its 100 ms), every
    // job succeeded and together they stored the 4 clicks.
    const storedByJob = await Promise.all(
      ingest.mock.results.map((r) => r.value as Promise<number>),
    );
    expect(storedByJob.reduce((sum, n) => sum + n, 0)).toBe(4);
    expect(t.app.get(ClickBuffer, { strict: false }).size).toBe(0);
    ingest.mockRestore();

    await proxy.restore();
    // The pool reconnected: links not cached are found again, and counted.
    expect((await visit(t, uncached.path)).status).toBe(302);
    await t.settle();
    expect(await clickCounts(t, [...Object.keys(expected), uncached.svc_id])).toEqual(
      stored({ ...expected, [uncached.svc_id]: { clicks: 1, bots: 0 } }),
    );
  });
});
