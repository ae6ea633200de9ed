import { ceilHour, countIntervals, floorHour, intervalStart } from './intervals';

describe('stats periods', () => {
  it('rounds start down and end up to the hour', () => {
    expect(floorHour(new Date('2026-11-23T10:59:59Z')).toISOString()).toBe(
      '2026-11-23T10:00:00.000Z',
    );
    expect(ceilHour(new Date('2026-11-23T10:00:01Z')).toISOString()).toBe(
      '2026-11-23T11:00:00.000Z',
    );
    expect(ceilHour(new Date('2026-11-23T10:00:00Z')).toISOString()).toBe(
      '2026-11-23T10:00:00.000Z',
    );
  });

  it('finds interval starts: ISO weeks start on Monday', () => {
    const sunday = new Date('2026-11-22T18:30:00Z');
    expect(intervalStart(sunday, 'hour').toISOString()).toBe('2026-11-22T18:00:00.000Z');
    expect(intervalStart(sunday, 'day').toISOString()).toBe('2026-11-22T00:00:00.000Z');
    expect(intervalStart(sunday, 'week').toISOString()).toBe('2026-11-16T00:00:00.000Z');
    expect(intervalStart(new Date('2026-11-23T00:00:00Z'), 'week').toISOString()).toBe(
      '2026-11-23T00:00:00.000Z',
    );
  });

  it('counts the intervals a period touches', () => {
    const start = new Date('2026-11-01T00:00:00Z');
    expect(countIntervals(start, new Date('2026-11-02T00:00:00Z'), 'hour')).toBe(24);
    expect(countIntervals(start, new Date('2026-11-02T00:00:00Z'), 'day')).toBe(1);
    expect(countIntervals(start, new Date('2026-11-02T01:00:00Z'), 'day')).toBe(2);
    expect(countIntervals(start, new Date('2026-12-01T00:00:00Z'), 'week')).toBe(6);
  });
});
