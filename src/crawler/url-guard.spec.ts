import { isAllowedAddress, isCrawlableUrl } from './url-guard';

describe('url guard', () => {
  it.each([
    '10.1.2.3',
    '127.0.0.1',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    'ff02::1',
    'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isAllowedAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows %s',
    (address) => {
      expect(isAllowedAddress(address)).toBe(true);
    },
  );

  it('lets loopback through only when opted in', () => {
    expect(isAllowedAddress('127.0.0.1', { allowLoopback: true })).toBe(true);
    expect(isAllowedAddress('::1', { allowLoopback: true })).toBe(true);
    expect(isAllowedAddress('10.0.0.1', { allowLoopback: true })).toBe(false);
    expect(isAllowedAddress('169.254.169.254', { allowLoopback: true })).toBe(false);
  });

  it('crawls only http(s) without credentials', () => {
    expect(isCrawlableUrl(new URL('https://example.com/a'))).toBe(true);
    expect(isCrawlableUrl(new URL('http://example.com'))).toBe(true);
    expect(isCrawlableUrl(new URL('ftp://example.com'))).toBe(false);
    expect(isCrawlableUrl(new URL('file:///etc/passwd'))).toBe(false);
    expect(isCrawlableUrl(new URL('http://user:pw@example.com'))).toBe(false);
  });
});
