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
    // Loose IPv4 forms some parsers read as 127.0.0.1.
    '0x7f.1',
    '127.1',
    // IPv4 ranges, one address each.
    '0.1.2.3',
    '192.0.0.8',
    '192.0.2.1',
    '192.88.99.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.7',
    '240.0.0.1',
    // IPv4-mapped, in hex and long forms.
    '::ffff:a9fe:a9fe',
    '0:0:0:0:0:ffff:a00:1',
    // IPv4-compatible (::/96, deprecated): 169.254.169.254, 127.0.0.1, 10.0.0.1 and even a public one.
    '::a9fe:a9fe',
    '::169.254.169.254',
    '::7f00:1',
    '::a00:1',
    '::808:808',
    // IPv4-translated (::ffff:0:0:0/96).
    '::ffff:0:a9fe:a9fe',
    '::ffff:0:7f00:1',
    // NAT64, well-known and local-use prefixes.
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::808:808',
    '64:ff9b:1::a00:1',
    // 6to4 (2002:a9fe:a9fe:: embeds 169.254.169.254) and Teredo.
    '2002:a9fe:a9fe::1',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    // Discard, documentation, benchmarking, site-local, ORCHIDv2, unallocated.
    '100::1',
    '2001:db8::1',
    '2001:2::1',
    'fec0::1',
    '2001:20::1',
    '3fff::1',
    '4000::1',
    '1::1',
    'fe80::1%eth0',
  ])('refuses %s', (address) => {
    expect(isAllowedAddress(address)).toBe(false);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
  ])('allows %s', (address) => {
    expect(isAllowedAddress(address)).toBe(true);
  });

  it('lets loopback through only when opted in', () => {
    expect(isAllowedAddress('127.0.0.1', { allowLoopback: true })).toBe(true);
    expect(isAllowedAddress('::1', { allowLoopback: true })).toBe(true);
    expect(isAllowedAddress('10.0.0.1', { allowLoopback: true })).toBe(false);
    expect(isAllowedAddress('169.254.169.254', { allowLoopback: true })).toBe(false);
    expect(isAllowedAddress('::ffff:127.0.0.1', { allowLoopback: true })).toBe(true);
    // Not loopback: an IPv4-compatible or translated 127.0.0.1 stays refused.
    expect(isAllowedAddress('::7f00:1', { allowLoopback: true })).toBe(false);
    expect(isAllowedAddress('::ffff:0:7f00:1', { allowLoopback: true })).toBe(false);
  });

  it('crawls only http(s) without credentials', () => {
    expect(isCrawlableUrl(new URL('https://example.com/a'))).toBe(true);
    expect(isCrawlableUrl(new URL('http://example.com'))).toBe(true);
    expect(isCrawlableUrl(new URL('ftp://example.com'))).toBe(false);
    expect(isCrawlableUrl(new URL('file:///etc/passwd'))).toBe(false);
    expect(isCrawlableUrl(new URL('http://user:pw@example.com'))).toBe(false);
  });
});
