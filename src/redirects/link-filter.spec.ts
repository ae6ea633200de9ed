import type { AppConfig } from '../config/app-config';
import { FILTER_MIN_CAPACITY, FILTER_REFRESH_MS, LinkFilter } from './link-filter';
import type { RedirectsRepository } from './redirects.repository';

/** A repository over a sorted list of svc_ids, whose page reads can be held. */
function setup(count: number) {
  const svcIds = Array.from({ length: count }, (_, i) => `svc.test_${String(i).padStart(7, '0')}`);
  const pages: (string | null)[] = [];
  let gate: Promise<void> | null = null;
  let open: () => void = () => undefined;
  let down = false;
  const repository = {
    countLinks: () => (down ? Promise.reject(new Error('down')) : Promise.resolve(svcIds.length)),
    svcIdsAfter: async (after: string | null, limit: number) => {
      pages.push(after);
      if (gate) await gate;
      const from = after === null ? 0 : svcIds.findIndex((id) => id > after);
      return from === -1 ? [] : svcIds.slice(from, from + limit);
    },
  };
  const filter = new LinkFilter(
    { servesApi: true } as AppConfig,
    repository as unknown as RedirectsRepository,
  );
  return {
    filter,
    svcIds,
    pages,
    hold: () => {
      gate = new Promise((resolve) => (open = resolve));
    },
    open: () => {
      gate = null;
      open();
    },
    setDown: (value: boolean) => (down = value),
  };
}

const built = async (filter: LinkFilter) => {
  for (let i = 0; i < 200 && !filter.ready; i++) await new Promise((r) => setTimeout(r, 5));
  expect(filter.ready).toBe(true);
};

describe('LinkFilter', () => {
  afterEach(() => jest.useRealTimers());

  it('answers "maybe" for everything until built, then "no" for svc_ids of no link', async () => {
    const { filter, svcIds, pages, hold, open } = setup(25_000);
    hold();
    filter.onApplicationBootstrap();
    expect(filter.mightExist('svc.test_nothing')).toBe(true);
    open();
    await built(filter);
    // Read in pages of 10,000, each after the last svc_id of the one before.
    expect(pages).toEqual([null, svcIds[9_999], svcIds[19_999]]);
    expect(svcIds.every((svcId) => filter.mightExist(svcId))).toBe(true);
    let unknown = 0;
    for (let i = 0; i < 10_000; i++) if (filter.mightExist(`svc.test_x${i}`)) unknown++;
    expect(unknown).toBeLessThan(200);
    expect(filter.stats.capacity).toBe(FILTER_MIN_CAPACITY);
    await filter.onApplicationShutdown();
  });

  it('takes the links announced while it is built, and after', async () => {
    const { filter, hold, open } = setup(100);
    hold();
    filter.onApplicationBootstrap();
    await new Promise((r) => setImmediate(r));
    filter.add(['svc.test_during']);
    open();
    await built(filter);
    filter.add(['svc.test_after']);
    expect(filter.mightExist('svc.test_during')).toBe(true);
    expect(filter.mightExist('svc.test_after')).toBe(true);
    await filter.onApplicationShutdown();
  });

  it('is not trusted after messages may have been missed, until built again', async () => {
    const { filter, hold, open } = setup(100);
    filter.onApplicationBootstrap();
    await built(filter);
    hold();
    filter.forget();
    expect(filter.ready).toBe(false);
    expect(filter.mightExist('svc.test_made_elsewhere')).toBe(true);
    open();
    await built(filter);
    await filter.onApplicationShutdown();
  });

  it('grows past its capacity: built again twice as large, the full one answering meanwhile', async () => {
    const { filter, svcIds, hold, open } = setup(10);
    filter.onApplicationBootstrap();
    await built(filter);
    hold();
    // Links made since, committed (in the repository) and announced.
    const made = Array.from({ length: FILTER_MIN_CAPACITY }, (_, i) => `svc.test_new${i}`);
    svcIds.push(...made);
    svcIds.sort();
    filter.add(made);
    // A rebuild runs; the full filter still answers, with every link.
    expect(filter.ready).toBe(true);
    expect(filter.stats.capacity).toBe(FILTER_MIN_CAPACITY);
    expect(filter.mightExist('svc.test_new7')).toBe(true);
    open();
    for (let i = 0; i < 400 && filter.stats.capacity === FILTER_MIN_CAPACITY; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(filter.stats).toEqual({
      links: FILTER_MIN_CAPACITY + 10,
      capacity: 2 * (FILTER_MIN_CAPACITY + 10),
      bytes: expect.any(Number) as number,
    });
    expect(made.every((svcId) => filter.mightExist(svcId))).toBe(true);
    await filter.onApplicationShutdown();
  });

  it('tries again later when PostgreSQL is out of reach', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    const { filter, setDown } = setup(10);
    setDown(true);
    filter.onApplicationBootstrap();
    await Promise.resolve();
    await Promise.resolve();
    expect(filter.ready).toBe(false);
    setDown(false);
    jest.advanceTimersByTime(5_000);
    jest.useRealTimers();
    await built(filter);
    await filter.onApplicationShutdown();
  });

  it('is built anew every FILTER_REFRESH_MS: a link whose announcement was lost is found then', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    const { filter, svcIds, pages } = setup(10);
    filter.onApplicationBootstrap();
    for (let i = 0; i < 50 && !filter.ready; i++) await new Promise((r) => setImmediate(r));
    expect(filter.ready).toBe(true);
    // Made on another instance; its announcement never came.
    svcIds.push('svc.test_lost');
    svcIds.sort();
    expect(filter.mightExist('svc.test_lost')).toBe(false);
    pages.length = 0;
    jest.advanceTimersByTime(FILTER_REFRESH_MS - 1);
    await new Promise((r) => setImmediate(r));
    expect(pages).toEqual([]);
    jest.advanceTimersByTime(1);
    // The old filter answers while the new one is read.
    expect(filter.ready).toBe(true);
    for (let i = 0; i < 50 && !filter.mightExist('svc.test_lost'); i++) {
      await new Promise((r) => setImmediate(r));
    }
    expect(pages).toEqual([null]);
    expect(filter.mightExist('svc.test_lost')).toBe(true);
    await filter.onApplicationShutdown();
  });
});
