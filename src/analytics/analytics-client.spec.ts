import { chTime, fromChTime } from './analytics-client';
import { withSettingsClause } from './read-statement';

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

describe('withSettingsClause', () => {
  it('adds a statement’s own settings to the SETTINGS clause that ends it, or in a clause of their own', () => {
    expect(withSettingsClause('SELECT 1', {})).toBe('SELECT 1');
    expect(withSettingsClause('SELECT a FROM t\n', { max_threads: 1 })).toBe(
      'SELECT a FROM t\nSETTINGS max_threads = 1',
    );
    expect(
      withSettingsClause('SELECT a FROM t\n       SETTINGS exact_rows_before_limit = 1, x = 0', {
        max_threads: 1,
      }),
    ).toBe('SELECT a FROM t\n       SETTINGS exact_rows_before_limit = 1, x = 0, max_threads = 1');
    // A clause inside a subquery does not end the statement.
    expect(
      withSettingsClause('SELECT * FROM (SELECT a FROM t SETTINGS x = 0) WHERE a > 1', {
        max_threads: 2,
      }),
    ).toBe('SELECT * FROM (SELECT a FROM t SETTINGS x = 0) WHERE a > 1\nSETTINGS max_threads = 2');
  });

  it('refuses anything but a word and a number', () => {
    expect(() => withSettingsClause('SELECT 1', { 'max_threads = 1; DROP': 1 })).toThrow();
    expect(() => withSettingsClause('SELECT 1', { max_threads: Number.NaN })).toThrow();
  });
});
