import { AppError } from './app-error';
import { bool, parseDate, readInt, requireKey, requireVersion, single, singleOf } from './params';

/** The message a reader throws, or null. */
function refusal(read: () => unknown): string | null {
  try {
    read();
    return null;
  } catch (error) {
    return (error as AppError).message;
  }
}

describe('common/params: the hand-parsed parameters', () => {
  it('reads a single value: absent or empty is undefined, repeated or too long is a 400', () => {
    expect(single({ a: 'x' }, 'a')).toBe('x');
    expect(single({ a: '' }, 'a')).toBeUndefined();
    expect(single({ a: null }, 'a')).toBeUndefined();
    expect(refusal(() => single({ a: ['x', 'y'] }, 'a'))).toBe(
      'Invalid parameter a: must be given once, as a single value',
    );
    expect(refusal(() => single({ a: { b: 'x' } }, 'a'))).toBe(
      'Invalid parameter a: must be given once, as a single value',
    );
    expect(refusal(() => single({ a: 'xyz' }, 'a', 2))).toBe(
      'Invalid parameter a: must be at most 2 characters',
    );
  });

  it('reads the first given spelling of a parameter, naming that spelling in errors', () => {
    expect(singleOf({ ip_address: '10.0.0.1' }, ['ip', 'ip_address'], 64)).toBe('10.0.0.1');
    expect(singleOf({ ip: '', ip_address: '10.0.0.1' }, ['ip', 'ip_address'], 64)).toBe('10.0.0.1');
    expect(singleOf({}, ['ip', 'ip_address'], 64)).toBeUndefined();
    expect(refusal(() => singleOf({ ip_address: ['a', 'b'] }, ['ip', 'ip_address'], 64))).toBe(
      'Invalid parameter ip_address: must be given once, as a single value',
    );
  });

  it('reads booleans and bounded integers', () => {
    expect([
      bool({ b: 'TRUE' }, 'b', false),
      bool({ b: '0' }, 'b', true),
      bool({}, 'b', true),
    ]).toEqual([true, false, true]);
    expect(refusal(() => bool({ b: 'yes' }, 'b', false))).toBe(
      'Invalid parameter b: must be true or false',
    );
    expect([readInt({ n: '7' }, 'n', 1, 1, 10), readInt({}, 'n', 1, 1, 10)]).toEqual([7, 1]);
    expect(refusal(() => readInt({ n: '11' }, 'n', 1, 1, 10))).toBe(
      'Invalid parameter n: must be an integer from 1 to 10',
    );
    expect(refusal(() => readInt({ n: '-1' }, 'n', 1, 0, 10))).toBe(
      'Invalid parameter n: must be an integer from 0 to 10',
    );
  });

  it('reads dates as YYYY-MM-DD, ISO 8601 or UNIX seconds, in UTC', () => {
    expect(parseDate('2026-11-23', 'd').toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(parseDate('2026-11-23 10:30:00', 'd').toISOString()).toBe('2026-11-23T10:30:00.000Z');
    expect(parseDate('2026-11-23T10:30:00+01:00', 'd').toISOString()).toBe(
      '2026-11-23T09:30:00.000Z',
    );
    expect(parseDate('1795000000', 'd').toISOString()).toBe('2026-11-18T11:06:40.000Z');
    expect(refusal(() => parseDate('yesterday', 'd'))).toBe(
      'Invalid parameter d: must be a date (YYYY-MM-DD), a timestamp (ISO 8601) or UNIX seconds',
    );
  });

  it('requires v=3 and a single key', () => {
    expect(refusal(() => requireVersion({ v: '3' }))).toBeNull();
    expect(refusal(() => requireVersion({}))).toBe('Missing required parameter: v');
    expect(refusal(() => requireVersion({ v: '2' }))).toBe('Invalid parameter v: must be 3');
    expect(requireKey({ key: 'k' })).toBe('k');
    expect(refusal(() => requireKey({}))).toBe('Missing required parameter: key');
    expect(refusal(() => requireKey({ key: 'k'.repeat(201) }))).toBe(
      'Invalid parameter key: must be at most 200 characters',
    );
  });
});
