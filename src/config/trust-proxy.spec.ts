import { parseTrustProxy } from './trust-proxy';

describe('parseTrustProxy', () => {
  it('reads false, true as one hop, hop counts and lists', () => {
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('0')).toBe(false);
    expect(parseTrustProxy('TRUE')).toBe(1);
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy('32')).toBe(32);
    expect(parseTrustProxy('10.0.0.0/8, 2001:DB8::/32 ,192.0.2.1,loopback')).toEqual([
      '10.0.0.0/8',
      '2001:db8::/32',
      '192.0.2.1',
      'loopback',
    ]);
  });

  it.each([
    ['33', 'a hop count must be at most 32 (got "33")'],
    ['-1', '(got "-1")'],
    ['yes', '(got "yes")'],
    ['10.0.0.0/33', '(got "10.0.0.0/33")'],
    ['2001:db8::/129', '(got "2001:db8::/129")'],
    ['10.0.0.0/', '(got "10.0.0.0/")'],
    ['10.0.0.0/8,', '(got "")'],
    ['10.0.0.0/255.0.0.0', '(got "10.0.0.0/255.0.0.0")'],
    ['10.0.0.256', '(got "10.0.0.256")'],
  ])('refuses %j', (value, message) => {
    expect(() => parseTrustProxy(value)).toThrow(message);
  });
});
