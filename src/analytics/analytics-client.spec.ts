import { chTime, fromChTime } from './analytics-client';

describe('chTime', () => {
  it('writes every millisecond as ISO 8601 does, in the form ClickHouse reads, and back', () => {
    const start = Date.UTC(2026, 10, 25, 23, 59, 58, 990);
    const times = [0, 999, 1000, Date.UTC(1999, 11, 31, 23, 59, 59, 999)];
    for (let ms = start; ms < start + 2100; ms += 7) times.push(ms);
    for (let i = 0; i < 500; i++) times.push(Math.floor(Math.random() * 4_102_444_800_000));
    for (const ms of times) {
      const written = chTime(ms);
      expect(written).toBe(new Date(ms).toISOString().replace('T', ' ').replace('Z', ''));
      expect(chTime(new Date(ms))).toBe(written);
      expect(fromChTime(written).getTime()).toBe(ms);
    }
  });

  it('refuses an invalid date', () => {
    expect(() => chTime(Number.NaN)).toThrow(RangeError);
  });
});
