import { BlockList, isIP } from 'node:net';

/**
 * Addresses a crawl must never reach (SSRF): private, loopback, link-local (cloud metadata at
 * 169.254.169.254 and fd00:ec2::254 included), carrier-grade NAT, multicast, reserved and
 * documentation ranges.
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or IPv4-compatible IPv6 address. */
function embeddedIPv4(address: string): string | null {
  const match = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (match) return match[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const high = parseInt(hex[1], 16);
  const low = parseInt(hex[2], 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

export interface GuardOptions {
  /** Tests only: let loopback addresses through (the test's own HTTP server). */
  allowLoopback?: boolean;
}

/** Whether a crawl may connect to this IP address. */
export function isAllowedAddress(address: string, options: GuardOptions = {}): boolean {
  const version = isIP(address);
  if (version === 0) return false;
  if (version === 6) {
    const v4 = embeddedIPv4(address);
    if (v4) return isAllowedAddress(v4, options);
  }
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (options.allowLoopback && loopback.check(address, family)) return true;
  return !blocked.check(address, family);
}

/** Only absolute http(s) URLs without credentials are crawled. */
export function isCrawlableUrl(url: URL): boolean {
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' &&
    url.password === ''
  );
}
