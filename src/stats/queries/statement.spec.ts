import { Binder, COUNTED, andAll, bucketOf, countOf, withSettings } from './statement';

describe('statement pieces', () => {
  it('binds each value to the next {pN:Type} placeholder, in order', () => {
    const binder = new Binder();
    expect([binder.bind(['a'], 'Array(UUID)'), binder.bind('x', 'String')]).toEqual([
      '{p0:Array(UUID)}',
      '{p1:String}',
    ]);
    expect(binder.params).toEqual({ p0: ['a'], p1: 'x' });
  });

  it('starts buckets as ClickHouse does, weeks on Monday', () => {
    expect(bucketOf('hour', 'clicked_at')).toBe('toStartOfHour(clicked_at)');
    expect(bucketOf('day', 'converted_at')).toBe('toStartOfDay(converted_at)');
    expect(bucketOf('week', 'shared_at')).toBe("toDateTime(toMonday(shared_at), 'UTC')");
  });

  it("counts clicks with exactly the projections' aggregates", () => {
    expect(countOf(false)).toBe('countIf(is_bot = 0)');
    expect(countOf(true)).toBe('(countIf(is_bot = 0) + countIf(is_bot = 1))');
    expect(COUNTED).toBe('HAVING clicks > 0');
  });

  it('adds a SETTINGS clause only with settings, and ANDs conditions', () => {
    expect(withSettings('SELECT 1', [])).toBe('SELECT 1');
    expect(withSettings('SELECT 1', ['a = 1', 'b = 0'])).toBe(
      'SELECT 1\n       SETTINGS a = 1, b = 0',
    );
    expect(andAll([])).toBe('');
    expect(andAll(['x = 1', 'y = 2'])).toBe(' AND x = 1 AND y = 2');
  });
});
