import { HorizonReaders } from '../../src/privacy/horizon-readers';
import { RetentionService, RetentionStage } from '../../src/privacy/retention.service';
import { TestApp, createTestApp } from '../support/app';
import { retentionFixture } from '../support/retention';

/**
 * Retention's horizon (docs/architecture.md, "Retention"): while a step runs, every statistic
 * answers exactly as before it at each of its stages (rollups stored, horizon moved, raw clicks
 * deleted, raw conversions deleted, records deleted), and after a stop at any of them; late
 * events below the horizon are swept, counted once; url/list's click counts keep the retired
 * clicks.
 */
jest.setTimeout(300_000);

describe('retention horizon', () => {
  let t: TestApp;
  let retention: RetentionService;
  const now = new Date();
  const DAYS = 30;

  beforeAll(async () => {
    t = await createTestApp({ redis: false });
    retention = t.app.get(RetentionService, { strict: false });
    retention.firstChunkWaitMs = 0;
  });
  afterEach(() => {
    retention.pause = undefined;
  });
  afterAll(() => t.close());

  const { cutoff, daysAgo, clicks, rawBefore, retiredSum, fixture, answers, get, period } =
    retentionFixture(() => t, now, DAYS);

  const runToEnd = async () => {
    while ((await retention.run(2, now)) > 0);
  };
  const expectSame = (
    stage: string,
    after: Record<string, unknown>,
    before: Record<string, unknown>,
  ) => {
    for (const name of Object.keys(before))
      expect([stage, name, after[name]]).toEqual([stage, name, before[name]]);
  };

  /** The statistics read at each pause: range, totals, intervals, a click dimension, with_chain. */
  const paused = async (key: string) => {
    const withKey = (params: Record<string, string>) => ({ key, ...period, ...params });
    return {
      range: await get(
        '/stats/range.json',
        withKey({ group_by: 'channel', with_conversions: 'true' }),
      ),
      totals: await get('/stats/totals.json', withKey({ group_by: 'campaign' })),
      intervals: await get('/stats/range/intervals.json', withKey({ interval: 'day' })),
      country: await get('/stats/range.json', withKey({ group_by: 'country' })),
      chain: await get('/stats/range.json', withKey({ group_by: 'channel', with_chain: 'true' })),
    };
  };

  it('answers every statistic as before at each stage of every step', async () => {
    const { key, projectId, ids } = await fixture({ retention_days: DAYS });
    const before = await answers(key, ids);
    const beforePaused = await paused(key);
    const seen: RetentionStage[] = [];
    retention.pause = async (stage) => {
      seen.push(stage);
      expectSame(stage, await paused(key), beforePaused);
    };
    await runToEnd();
    retention.pause = undefined;
    // Every stage of a step paused, at least once per chunk.
    for (const stage of ['rollup', 'horizon', 'clicks', 'conversions', 'records'] as const)
      expect(seen).toContain(stage);
    expect(seen.filter((stage) => stage === 'horizon').length).toBeGreaterThan(1);
    expect(await rawBefore('clicks', projectId)).toBe(0);
    expectSame('end', await answers(key, ids), before);
  }, 600_000);

  it("waits before a project's first raw rows go (a request that found no rollups has ended), not before the next", async () => {
    const { projectId } = await fixture({ retention_days: DAYS });
    const horizons: RetentionStage[] = [];
    const waited: { raw: number; horizons: number }[] = [];
    retention.pause = async (stage) => {
      if (stage === 'horizon') horizons.push(stage);
    };
    const wait = jest.spyOn(retention, 'waitForFirstReaders').mockImplementation(async () => {
      waited.push({ raw: await rawBefore('clicks', projectId), horizons: horizons.length });
    });
    try {
      await runToEnd();
    } finally {
      wait.mockRestore();
    }
    // Several chunks; one wait, after the first horizon moved and before any raw row went.
    expect(horizons.length).toBeGreaterThan(1);
    expect(waited).toHaveLength(1);
    expect(waited[0].horizons).toBe(1);
    expect(waited[0].raw).toBeGreaterThan(0);
    expect(await rawBefore('clicks', projectId)).toBe(0);
  });

  it.each(['rollup', 'horizon', 'clicks'] as const)(
    'resumes a step stopped after %s (a crash there), every answer as before then and after',
    async (stopAfter) => {
      const { key, projectId, ids } = await fixture({ retention_days: DAYS });
      const before = await answers(key, ids);
      const rawClicks = await rawBefore('clicks', projectId);
      const rawConversions = await rawBefore('conversions', projectId);
      expect(await retention.step(projectId, cutoff, stopAfter)).toBe(true);
      expectSame(stopAfter, await answers(key, ids), before);
      await runToEnd();
      expect(await rawBefore('clicks', projectId)).toBe(0);
      expect(await retiredSum('clicks_retired', projectId)).toBe(rawClicks);
      expect(await retiredSum('conversions_retired', projectId)).toBe(rawConversions);
      expectSame('resumed', await answers(key, ids), before);
    },
  );

  it('sweeps a late click below the horizon: hidden until the next run, then counted once', async () => {
    const { key, projectId, ids } = await fixture({ retention_days: DAYS });
    await runToEnd();
    const totals = async () =>
      ((await get('/stats/totals.json', { key, ...period })).totals as { clicks: number }).clicks;
    const range = async () =>
      await get('/stats/range.json', { key, ...period, group_by: 'country' });
    const before = await totals();
    const byCountry = await range();
    const retired = await retiredSum('clicks_retired', projectId);
    // A click stored late (a replayed journal), older than the horizon: left out until swept.
    await clicks(ids.A, daysAgo(90, 9), 1, 0, 'GB');
    expect(await totals()).toEqual(before);
    // A sweep stopped after its rollups: counted once already, its raw row left out.
    expect(await retention.sweep(projectId, 'rollup')).toBe(true);
    const counted = await totals();
    expect(counted).toBe(before + 1);
    expect(await rawBefore('clicks', projectId)).toBe(1);
    // The next run finishes it (its rollup skipped as sent before), and finds nothing more.
    await runToEnd();
    expect(await rawBefore('clicks', projectId)).toBe(0);
    expect(await retiredSum('clicks_retired', projectId)).toBe(retired + 1);
    expect(await totals()).toEqual(counted);
    expect(await range()).not.toEqual(byCountry);
    expect(await retention.run(2, now)).toBe(0);
    expect(await totals()).toEqual(counted);
    // Another late click: swept by a whole run.
    await clicks(ids.B, daysAgo(120, 9), 1, 0, 'FR');
    await runToEnd();
    expect(await totals()).toBe(before + 2);
    expect(await rawBefore('clicks', projectId)).toBe(0);
  });

  it("keeps url/list's click counts (every order) as before retention", async () => {
    const { key } = await fixture({ retention_days: DAYS });
    const list = async (params: Record<string, string>) =>
      (
        (await get('/url/list.json', { key, ...params })) as {
          links: { svc_id: string; clicks: number }[];
        }
      ).links.map((link) => [link.svc_id, link.clicks]);
    const orders: Record<string, string>[] = [
      {},
      { sort_type: 'clicks' },
      { sort_type: 'clicks', sort_order: 'asc' },
      { sort_type: 'clicks', channel: 'email' },
      { search: 'example' },
    ];
    const before = await Promise.all(orders.map(list));
    expect(before[0].some(([, n]) => Number(n) > 0)).toBe(true);
    retention.pause = async (stage) => {
      expect([stage, await Promise.all(orders.map(list))]).toEqual([stage, before]);
    };
    await runToEnd();
    retention.pause = undefined;
    expect(await Promise.all(orders.map(list))).toEqual(before);
  });

  // The embedded engine runs one statement at a time, so this holds there by that alone; the
  // polling itself is unit-tested (horizon-readers.spec.ts).
  it('settles: returns once the statements reading horizons that ran then have ended', async () => {
    const readers = t.app.get(HorizonReaders, { strict: false });
    const started = Date.now();
    const slow = t.analytics.query(
      `SELECT sleep(2) + (SELECT count() FROM ${t.analytics.database}.retired_horizons) AS n`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await readers.settle();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    await slow;
    // With none running, at once.
    const idle = Date.now();
    await readers.settle();
    expect(Date.now() - idle).toBeLessThan(1_000);
  });
});
