import { MemoryStreamTokenStore } from './stream-token-store';

describe('MemoryStreamTokenStore', () => {
  afterEach(() => jest.useRealTimers());

  it('gives a token its project once, then never again', async () => {
    const store = new MemoryStreamTokenStore();
    await store.put('h1', 'project-1', 60_000);
    await store.put('h2', 'project-2', 60_000);
    expect(await store.take('h1')).toBe('project-1');
    expect(await store.take('h1')).toBeNull();
    expect(await store.take('unknown')).toBeNull();
    expect(await store.take('h2')).toBe('project-2');
    expect(store.size).toBe(0);
  });

  it('refuses an expired token and sweeps expired ones as new ones come', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const store = new MemoryStreamTokenStore();
    await store.put('old', 'p', 1_000);
    await store.put('older-lived', 'p', 10_000);
    jest.setSystemTime(1_001_000);
    expect(await store.take('old')).toBeNull();
    await store.put('gone', 'p', 1_000);
    jest.setSystemTime(1_002_000);
    await store.put('new', 'p', 1_000);
    // `gone` expired behind a live token: it waits for that one, and is refused meanwhile.
    expect(store.size).toBe(3);
    expect(await store.take('gone')).toBeNull();
    jest.setSystemTime(1_011_000);
    await store.put('last', 'q', 1_000);
    expect(store.size).toBe(1);
    expect(await store.take('last')).toBe('q');
  });

  it('keeps at most its capacity, dropping the oldest', async () => {
    const store = new MemoryStreamTokenStore(3);
    for (const hash of ['a', 'b', 'c', 'd', 'e']) await store.put(hash, hash, 60_000);
    expect(store.size).toBe(3);
    expect(await store.take('a')).toBeNull();
    expect(await store.take('b')).toBeNull();
    expect(await store.take('e')).toBe('e');
  });
});
