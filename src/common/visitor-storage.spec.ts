import { anonymiseIp, storedIp } from './ip';
import { storedUserAgent, storedVisitor } from './visitor-storage';

const AGENT = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) Safari/604.1';

describe('visitor storage', () => {
  it.each([
    ['81.2.69.160', '81.2.69.0'],
    ['81.2.69.0', '81.2.69.0'],
    ['2a00:1450:4001:80b::200e', '2a00:1450:4001::'],
    ['2a00:1450:4001:80b:1:2:3:4', '2a00:1450:4001::'],
    ['2a00:1450::200e', '2a00:1450::'],
    ['2a00::1', '2a00::'],
    ['2001:db8:1:2:3:4:1.2.3.4', '2001:db8:1::'],
  ])('anonymises %s as %s (IPv4 /24, IPv6 /48), the same once anonymised', (ip, kept) => {
    expect(anonymiseIp(ip)).toBe(kept);
    expect(anonymiseIp(kept)).toBe(kept);
  });

  it('keeps the address in full, anonymised or not at all, an IPv4 client as IPv4', () => {
    expect(storedIp('::ffff:81.2.69.160', 'full')).toBe('81.2.69.160');
    expect(storedIp('::ffff:81.2.69.160', 'anonymised')).toBe('81.2.69.0');
    expect(storedIp('81.2.69.160', 'none')).toBeNull();
  });

  it('keeps the user agent in full, or no string once parsed', () => {
    expect(storedUserAgent(AGENT, 'full')).toBe(AGENT);
    expect(storedUserAgent(undefined, 'full')).toBeNull();
    expect(storedUserAgent(AGENT, 'parsed')).toBeNull();
  });

  it('keeps a visitor as both settings say', () => {
    const visitor = { ip: '81.2.69.160', userAgent: AGENT };
    expect(storedVisitor(visitor, { ip: 'full', userAgent: 'full' })).toEqual(visitor);
    expect(storedVisitor(visitor, { ip: 'anonymised', userAgent: 'parsed' })).toEqual({
      ip: '81.2.69.0',
      userAgent: null,
    });
    expect(storedVisitor({}, { ip: 'none', userAgent: 'full' })).toEqual({
      ip: null,
      userAgent: null,
    });
  });
});
