import { Lru } from './lru';

describe('Lru', () => {
  it('evicts the least recently used entry, keeping one that is used while others come in', () => {
    const lru = new Lru<number>(8);
    lru.set('hot', 0, 60_000, 0);
    for (let i = 0; i < 100; i++) {
      lru.set(`k${i}`, i, 60_000, 0);
      expect(lru.get('hot', 0)?.value).toBe(0);
      expect(lru.size).toBeLessThanOrEqual(8);
    }
    expect(lru.has('hot')).toBe(true);
    // The 7 newest others are held, older ones are gone.
    expect(lru.has('k99')).toBe(true);
    expect(lru.has('k93')).toBe(true);
    expect(lru.has('k92')).toBe(false);
    expect(lru.has('k0')).toBe(false);
  });

  it('drops an entry that was not used while capacity-many others came in', () => {
    const lru = new Lru<number>(4);
    lru.set('cold', 1, 60_000, 0);
    for (let i = 0; i < 4; i++) lru.set(`k${i}`, i, 60_000, 0);
    expect(lru.get('cold', 0)).toBeUndefined();
  });

  it('forgets expired entries', () => {
    const lru = new Lru<number>(4);
    lru.set('a', 1, 1000, 0);
    expect(lru.get('a', 999)?.value).toBe(1);
    expect(lru.get('a', 1000)).toBeUndefined();
    expect(lru.has('a')).toBe(false);
  });
});

describe('Lru with a byte bound', () => {
  const byLength = {
    max: 10_000,
    weigh: (key: string, value: string) => key.length + value.length,
  };

  it('evicts the oldest entries once their weight passes the bound, whatever their number', () => {
    const lru = new Lru<string>(1000, byLength);
    const url = 'x'.repeat(4000);
    lru.set('a', url, 60_000, 0);
    lru.set('b', url, 60_000, 0);
    expect([lru.size, lru.weight]).toEqual([2, 8002]);
    // It tells how many entries it evicted to make room.
    expect(lru.set('c', url, 60_000, 0)).toBe(1);
    // 12,003 bytes do not fit in 10,000: the oldest goes, far below the 1,000 entries.
    expect([lru.has('a'), lru.has('b'), lru.has('c'), lru.size, lru.weight]).toEqual([
      false,
      true,
      true,
      2,
      8002,
    ]);
    // Many small entries push out a big one as they add up.
    for (let i = 0; i < 100; i++) lru.set(`k${i}`, 'y'.repeat(30), 60_000, 0);
    expect([lru.has('b'), lru.has('c'), lru.size, lru.weight]).toEqual([false, true, 101, 7291]);
  });

  it('keeps the weight right through replacement, deletion, expiry and clearing', () => {
    const lru = new Lru<string>(1000, byLength);
    lru.set('a', 'x'.repeat(100), 1000, 0);
    // A replacement is no eviction.
    expect(lru.set('a', 'x'.repeat(10), 1000, 0)).toBe(0);
    expect(lru.weight).toBe(11);
    lru.set('b', 'x'.repeat(20), 1000, 0);
    lru.delete('a');
    expect(lru.weight).toBe(21);
    expect(lru.get('b', 1000)).toBeUndefined();
    expect([lru.size, lru.weight]).toEqual([0, 0]);
    lru.set('c', 'x', 1000, 0);
    lru.clear();
    expect([lru.size, lru.weight]).toEqual([0, 0]);
  });

  it('does not keep an entry heavier than the whole bound (it would only empty the cache)', () => {
    const lru = new Lru<string>(1000, byLength);
    lru.set('small', 'x', 60_000, 0);
    lru.set('huge', 'x'.repeat(10_000), 60_000, 0);
    expect([lru.has('small'), lru.has('huge'), lru.weight]).toEqual([true, false, 6]);
  });

  it('keeps a hot entry while the bytes bind long before the entry count', () => {
    const lru = new Lru<string>(1_000_000, byLength);
    lru.set('hot', 'h', 60_000, 0);
    for (let i = 0; i < 2000; i++) {
      lru.set(`k${i}`, 'x'.repeat(1000), 60_000, 0);
      expect(lru.get('hot', 0)?.value).toBe('h');
    }
    expect(lru.size).toBeLessThanOrEqual(10);
  });
});
