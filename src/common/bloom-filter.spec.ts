import { BloomFilter } from './bloom-filter';

const key = (n: number) => `svc.test_${n.toString(36)}x${(n * 7919).toString(36)}`;

describe('BloomFilter', () => {
  it('has every key added (no false negatives), short and long, ASCII or not', () => {
    const filter = new BloomFilter(10_000);
    const keys = [
      '',
      'a',
      'svc.test_abc',
      'host.example_news_a/b',
      'bücher.example_日本',
      `x${'y'.repeat(500)}`,
    ];
    for (let n = keys.length; n < 10_000; n++) keys.push(key(n));
    for (const k of keys) filter.add(k);
    expect(keys.filter((k) => !filter.mightHave(k))).toEqual([]);
    expect(filter.count).toBe(10_000);
  });

  it('answers no for nearly every key never added, at about the rate it was sized for', () => {
    const filter = new BloomFilter(20_000, 0.01);
    for (let n = 0; n < 20_000; n++) filter.add(key(n));
    let positives = 0;
    for (let n = 20_000; n < 120_000; n++) if (filter.mightHave(key(n))) positives++;
    // 1% expected over 100,000 keys never added; a bad hash would give far more.
    expect(positives / 100_000).toBeLessThan(0.015);
    expect(positives).toBeGreaterThan(0);
  });

  it('is empty at first and takes about 9.6 bits a key at 1%', () => {
    const filter = new BloomFilter(1_000_000);
    expect(filter.mightHave('svc.test_abc')).toBe(false);
    expect(filter.bytes / 1_000_000).toBeCloseTo(9.585 / 8, 2);
    expect(filter.capacity).toBe(1_000_000);
  });

  it('keeps working past its capacity, with more false positives', () => {
    const filter = new BloomFilter(1000);
    for (let n = 0; n < 5000; n++) filter.add(key(n));
    for (let n = 0; n < 5000; n++) expect(filter.mightHave(key(n))).toBe(true);
    expect(filter.count).toBeGreaterThan(filter.capacity);
  });
});
