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
