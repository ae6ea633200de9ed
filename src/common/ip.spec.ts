import { anonymiseIp, forwardedFor, storedIp } from './ip';

describe('ip', () => {
  it('anonymises IPv4 to /24 and IPv6 to /48', () => {
    expect(anonymiseIp('203.0.113.77')).toBe('203.0.113.0');
    expect(anonymiseIp('2001:db8:85a3:8d3:1319:8a2e:370:7348')).toBe('2001:db8:85a3::');
    expect(anonymiseIp('2001:db8::1')).toBe('2001:db8::');
    expect(anonymiseIp('::1')).toBe('::');
  });

  it('stores per mode, reading IPv4-mapped addresses as IPv4', () => {
    expect(storedIp('::ffff:198.51.100.9', 'anonymised')).toBe('198.51.100.0');
    expect(storedIp('::ffff:198.51.100.9', 'full')).toBe('198.51.100.9');
    expect(storedIp('198.51.100.9', 'none')).toBeNull();
    expect(storedIp(null, 'full')).toBeNull();
  });

  it('takes the first X-Forwarded-For address when it is one', () => {
    expect(forwardedFor('203.0.113.9, 10.0.0.1')).toBe('203.0.113.9');
    expect(forwardedFor('unknown, 10.0.0.1')).toBeNull();
    expect(forwardedFor(undefined)).toBeNull();
  });
});
