import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ClickBuffer, FLUSH_INTERVAL_MS } from '../../src/clicks/click-buffer';
import { ClickEvent, clickId, nextClickSequence, packClicks } from '../../src/clicks/click-event';
import { ClicksService } from '../../src/clicks/clicks.service';
import { TestApp, createTestApp } from '../support/app';
import {
  BROWSER,
  GOOGLEBOT,
  clickCounts,
  clicksOf,
  linkRow,
  spooledClicks,
  stored,
  waitForClicks,
  hourlyClicks,
  storedClicks,
} from '../support/clicks';
import { eventually } from '../support/eventually';
import { TestRedisServer, startRedisServer } from '../support/redis-server';
import { SiblingApp, startSiblingApp } from '../support/sibling-app';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';

/** Retried batches and jobs, and the click buffer at shutdown: every click stored exactly once. */

// Outages wait out the buffer's enqueue timeout and retry delays (testTimeout is not a project option).
jest.setTimeout(30_000);

describe.each([
  ['BullMQ on Redis', true],
  ['in-process jobs', false],
])('retried clicks are counted once (%s)', (_label, redis) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ redis });
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  it('ingests a batch given twice, in turn or at once, and a batch overlapping one stored, once', async () => {
    const link = await createLink(t, key);
    const row = await linkRow(t, link.svc_id);
    const service = t.app.get(ClicksService, { strict: false });
    const batch = clicksOf(row, 3, 1);

    expect(await service.ingest(batch)).toBe(4);
    expect(await service.ingest(batch)).toBe(0);
    expect(await clickCounts(t, [link.svc_id])).toEqual(
      stored({ [link.svc_id]: { clicks: 3, bots: 1 } }),
    );

    // Two workers on one batch (a stalled job run again while the first run is still writing).
    const twice = clicksOf(row, 5);
    // Both runs may find none of its clicks stored: the store skips the second block by its token.
    await Promise.all([service.ingest(twice), service.ingest(twice)]);
    expect(await clickCounts(t, [link.svc_id])).toEqual(
      stored({ [link.svc_id]: { clicks: 8, bots: 1 } }),
    );

    // A batch re-sent with new clicks added: only the new ones count.
    const more = [...twice.slice(0, 2), ...clicksOf(row, 2)];
    expect(await service.ingest(more)).toBe(2);
    expect(await clickCounts(t, [link.svc_id])).toEqual(
      stored({ [link.svc_id]: { clicks: 10, bots: 1 } }),
    );
  });

  it('stores every field of a packed job batch as it was recorded, and rolls it up per hour', async () => {
    const link = await createLink(t, key);
    const row = await linkRow(t, link.svc_id);
    const hour = Date.UTC(2026, 10, 23, 10);
    const clicks: ClickEvent[] = [
      // As the redirect records them: sequence numbers of this process, made into ids on the way in.
      {
        ...clicksOf(row, 1)[0],
        id: nextClickSequence(),
        clickedAt: hour + 1,
        referrer: 'https://r.example/a,b{c}\'d"e',
      },
      {
        ...clicksOf(row, 1)[0],
        id: nextClickSequence(),
        clickedAt: hour + 3_599_999,
        userAgent: null,
        ip: '2001:db8::',
      },
      { ...clicksOf(row, 0, 1)[0], id: nextClickSequence(), clickedAt: hour + 3_600_000, ip: null },
    ];
    // As the queue carries it: packed, through JSON.
    expect(
      await t.app
        .get(ClicksService, { strict: false })
        .ingest(JSON.parse(JSON.stringify(packClicks(clicks)))),
    ).toBe(3);
    expect(await storedClicks(t, row.linkId)).toEqual(
      clicks.map((c) => ({
        id: clickId(c),
        clicked_at: new Date(c.clickedAt),
        link_id: row.linkId,
        project_id: row.projectId,
        referrer: c.referrer,
        user_agent: c.userAgent,
        ip: c.ip,
        is_bot: c.isBot,
      })),
    );
    expect(await hourlyClicks(t, row.linkId)).toEqual([
      { hour: new Date(hour), clicks: 2, bot_clicks: 0 },
      { hour: new Date(hour + 3_600_000), clicks: 0, bot_clicks: 1 },
    ]);
  });

  it('counts a job once when it is retried after a failure that came after its commit', async () => {
    const link = await createLink(t, key);
    const service = t.app.get(ClicksService, { strict: false });
    const ingest = service.ingest.bind(service);
    const spy = jest.spyOn(service, 'ingest').mockImplementationOnce(async (clicks) => {
      await ingest(clicks);
      throw new Error('worker lost after the commit');
    });
    for (let i = 0; i < 3; i++)
      await t.http
        .get(`/${link.path}`)
        .set('Host', 'svc.test')
        .set('User-Agent', BROWSER)
        .expect(302);
    await t.http
      .get(`/${link.path}`)
      .set('Host', 'svc.test')
      .set('User-Agent', GOOGLEBOT)
      .expect(302);
    await t.settle();
    // The failed run stored the clicks, the retry (1 s later) found them stored. On a loaded
    // machine the four visits may reach the buffer in two flushes, so two jobs: the retry is the
    // later call with the failed job's clicks.
    const failed = JSON.stringify(spy.mock.calls[0][0]);
    const retry = spy.mock.calls.findIndex(
      (call, i) => i > 0 && JSON.stringify(call[0]) === failed,
    );
    expect(retry).toBeGreaterThan(0);
    await expect(spy.mock.results[retry].value).resolves.toBe(0);
    expect(await clickCounts(t, [link.svc_id])).toEqual(
      stored({ [link.svc_id]: { clicks: 3, bots: 1 } }),
    );
  });
});

describe('shutdown flushes the click buffer', () => {
  let t: TestApp;
  let key: string;
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-clicks-'));
    dirs.push(dir);
    return dir;
  };
  beforeAll(async () => {
    // Owns the database and the Redis prefix; runs no workers, so the instances under test do.
    t = await createTestApp({ env: { ROLE: 'api' } });
    key = (await createProject(t)).api_key;
  });
  afterAll(async () => {
    await t.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** Visits in parallel and closes the app at once; returns how many clicks were still buffered. */
  const visitAndClose = async (instance: SiblingApp, paths: string[]): Promise<number> => {
    const started = Date.now();
    await Promise.all(
      paths.map((p) =>
        instance.http.get(`/${p}`).set('Host', 'svc.test').set('User-Agent', BROWSER).expect(302),
      ),
    );
    const buffered = instance.app.get(ClickBuffer, { strict: false }).size;
    // The buffer's own timer cannot have sent anything yet: the clicks are flushed by close().
    if (Date.now() - started < FLUSH_INTERVAL_MS) expect(buffered).toBe(paths.length);
    await instance.app.close();
    return buffered;
  };

  it('BullMQ: clicks buffered at close reach the queue and another instance stores them', async () => {
    const [a, b] = [await createLink(t, key), await createLink(t, key)];
    const instance = await startSiblingApp(t, dataDir());
    await visitAndClose(instance, [a.path, a.path, a.path, b.path, b.path]);
    const worker = await startSiblingApp(t, dataDir(), { ROLE: 'worker' });
    try {
      const expected = { [a.svc_id]: { clicks: 3, bots: 0 }, [b.svc_id]: { clicks: 2, bots: 0 } };
      await waitForClicks(t, expected);
      await t.settle();
      expect(await clickCounts(t, [a.svc_id, b.svc_id])).toEqual(stored(expected));
    } finally {
      await worker.app.close();
    }
  });

  it('in-process jobs: close() returns once the buffered clicks are written', async () => {
    const [a, b] = [await createLink(t, key), await createLink(t, key)];
    const instance = await startSiblingApp(t, dataDir(), { REDIS_URL: '' });
    await visitAndClose(instance, [a.path, b.path, a.path, a.path]);
    expect(await clickCounts(t, [a.svc_id, b.svc_id])).toEqual(
      stored({ [a.svc_id]: { clicks: 3, bots: 0 }, [b.svc_id]: { clicks: 1, bots: 0 } }),
    );
  });

  it('sends again the spool file a run claimed and died sending (it might have sent part of it)', async () => {
    const link = await createLink(t, key);
    const row = await linkRow(t, link.svc_id);
    const clicks = clicksOf(row, 4);
    const dir = dataDir();
    const deadPid = 2 ** 22 + 1; // above pid_max: no process has it
    mkdirSync(path.join(dir, 'spool'));
    writeFileSync(
      path.join(dir, 'spool', `clicks-${deadPid}.ndjson.${deadPid}.sending`),
      // The second half as earlier versions spooled clicks: the time as an ISO 8601 string.
      clicks
        .map((c, i) =>
          JSON.stringify(i < 2 ? c : { ...c, clickedAt: new Date(c.clickedAt).toISOString() }),
        )
        .join('\n') + '\n',
    );
    // Half of it had gone out before the crash.
    await t.app.get(ClicksService, { strict: false }).ingest(clicks.slice(0, 2));
    const next = await startSiblingApp(t, dir, { REDIS_URL: '' });
    try {
      const expected = { [link.svc_id]: { clicks: 4, bots: 0 } };
      expect(await waitForClicks(t, expected, 5000)).toEqual(stored(expected));
      await eventually('an empty spool', () => spooledClicks(dir).files.length === 0, 5000);
    } finally {
      await next.app.close();
    }
  });

  describe('with Redis down at shutdown', () => {
    let redis: TestRedisServer;
    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(() => redis.kill());

    it('spills the clicks to DATA_DIR/spool, and the next start on that DATA_DIR sends them once', async () => {
      const [a, b] = [await createLink(t, key), await createLink(t, key)];
      const dir = dataDir();
      const first = await startSiblingApp(t, dir, { REDIS_URL: redis.url });
      // a is cached and counted before the outage; b is first seen during it.
      await first.http
        .get(`/${a.path}`)
        .set('Host', 'svc.test')
        .set('User-Agent', BROWSER)
        .expect(302);
      expect(await waitForClicks(t, { [a.svc_id]: { clicks: 1, bots: 0 } })).toEqual(
        stored({ [a.svc_id]: { clicks: 1, bots: 0 } }),
      );
      await redis.kill();

      const closeStarted = Date.now();
      const buffered = await visitAndClose(first, [a.path, a.path, b.path, b.path, b.path]);
      const closeMs = Date.now() - closeStarted;
      expect(buffered).toBe(5);
      const spool = spooledClicks(dir);
      expect(spool.files).toEqual([expect.stringMatching(/^clicks-\d+\.ndjson$/)]);
      expect(new Set(spool.clicks.map((c) => c.id)).size).toBe(5);
      expect(closeMs).toBeLessThan(10_000);

      await redis.start();
      const next = await startSiblingApp(t, dir, { REDIS_URL: redis.url });
      try {
        const expected = { [a.svc_id]: { clicks: 3, bots: 0 }, [b.svc_id]: { clicks: 3, bots: 0 } };
        await waitForClicks(t, expected);
        await redis.waitForQueues(t.config.redisPrefix);
        expect(spooledClicks(dir)).toEqual({ files: [], clicks: [] });
        expect(await clickCounts(t, [a.svc_id, b.svc_id])).toEqual(stored(expected));
      } finally {
        await next.app.close();
      }
    });
  });
});
