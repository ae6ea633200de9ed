import { clickIdOf } from '../clicks/click-event';
import type { InvalidationBus, LocalCache } from '../queue/invalidation-bus';
import { COUNT_REFRESH_MS, ClickCounts } from './click-counts';
import type { ClickCountsRepository, CountRequest } from './click-counts.repository';
import type { LinkTarget } from './redirect-target';

const LINK: LinkTarget = {
  linkId: '42',
  projectId: '00000000-0000-4000-8000-000000000001',
  svcId: 'svc.test_abc',
  redirectUrl: 'https://example.com/',
};

/**
 * ClickCounts over a repository that answers `answers` in turn and keeps what it was asked: what
 * the repository's query counts is test/e2e/click-counts.e2e-spec.ts's, on the engine.
 */
function setup(answers: (() => Promise<number>)[]) {
  const queries: CountRequest[] = [];
  const repository = {
    countedClicks: (request: CountRequest) => {
      queries.push(request);
      return answers.shift()!();
    },
  } as unknown as ClickCountsRepository;
  let cache: LocalCache | null = null;
  const bus = { register: (c: LocalCache) => (cache = c) } as unknown as InvalidationBus;
  const counts = new ClickCounts(repository, bus);
  counts.onModuleInit();
  return { counts, queries, invalidate: (keys: string[]) => cache!.drop('link', keys) };
}

const rows = (clicks: number) => () => Promise.resolve(clicks);

describe('ClickCounts', () => {
  afterEach(() => jest.useRealTimers());

  it('reads the stored count once first (waited for), then adds this process’s own at once', async () => {
    const { counts, queries } = setup([rows(7)]);
    const first = counts.count(LINK, 10);
    expect(first).toBeInstanceOf(Promise);
    await first;
    expect(counts.count(LINK, 10)).toBe(7);
    counts.counted(LINK.svcId);
    counts.counted(LINK.svcId);
    expect(counts.count(LINK, 10)).toBe(9);
    // The read leaves out this process's clicks since it began counting: they are its own.
    expect(queries).toEqual([
      {
        since: expect.any(Number) as number,
        node: clickIdOf(Date.now(), 0).slice(-12),
        projectId: LINK.projectId,
        linkId: LINK.linkId,
      },
    ]);
  });

  it('reads again at most every COUNT_REFRESH_MS while below the limit, never counting down', async () => {
    const now = Date.now();
    jest.useFakeTimers({ now, doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
    const { counts, queries } = setup([rows(2), rows(5), rows(4)]);
    await counts.count(LINK, 10);
    jest.setSystemTime(now + COUNT_REFRESH_MS - 1);
    expect(counts.count(LINK, 10)).toBe(2);
    expect(queries).toHaveLength(1);
    jest.setSystemTime(now + COUNT_REFRESH_MS + 1);
    expect(counts.count(LINK, 10)).toBe(2);
    await Promise.resolve();
    await Promise.resolve();
    expect(counts.count(LINK, 10)).toBe(5);
    expect(queries).toHaveLength(2);
    jest.setSystemTime(now + 3 * COUNT_REFRESH_MS);
    void counts.count(LINK, 10);
    await Promise.resolve();
    await Promise.resolve();
    expect(counts.count(LINK, 10)).toBe(5);
    // At the limit the link has expired: no more reads.
    jest.setSystemTime(now + 5 * COUNT_REFRESH_MS);
    expect(counts.count(LINK, 5)).toBe(5);
    expect(queries).toHaveLength(3);
  });

  it('without the store: its own clicks once the first read fails or keeps it waiting 2 s', async () => {
    const failing = setup([() => Promise.reject(new Error('store down'))]);
    await failing.counts.count(LINK, 3);
    failing.counts.counted(LINK.svcId);
    expect(failing.counts.count(LINK, 3)).toBe(1);
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
    const slow = setup([() => new Promise(() => undefined)]);
    const waiting = slow.counts.count(LINK, 3);
    jest.advanceTimersByTime(2000);
    await waiting;
    expect(slow.counts.count(LINK, 3)).toBe(0);
  });

  it('forgets a link whose controls changed: it counts afresh from the store', async () => {
    const { counts, queries, invalidate } = setup([rows(1), rows(3)]);
    await counts.count(LINK, 10);
    counts.counted(LINK.svcId);
    invalidate([LINK.svcId]);
    await counts.count(LINK, 10);
    expect(counts.count(LINK, 10)).toBe(3);
    expect(queries).toHaveLength(2);
    expect(queries[1].since).toBeGreaterThanOrEqual(queries[0].since);
  });
});
