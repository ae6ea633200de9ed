import { isIP } from 'node:net';
import * as ipaddr from 'ipaddr.js';

/** 2000::/3: the only IPv6 block IANA allocates for global unicast (RFC 4291, 2.5.4). */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

export interface GuardOptions {
  /** Tests only: let loopback addresses through (the test's own HTTP server). */
  allowLoopback?: boolean;
}

/**
 * Whether a crawl or a webhook delivery may connect to this IP address, the SSRF guard
 * (docs/api.md, "Security"): only what the ipaddr.js classifier calls `unicast`, so no private,
 * loopback, link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254 included),
 * carrier-grade NAT, multicast, reserved, documentation, benchmarking, IPv4-translated
 * (::ffff:0:0:0/96), NAT64 (64:ff9b::/96, 64:ff9b:1::/48), 6to4 or Teredo address. An
 * IPv4-mapped address is judged as its IPv4 address.
 */
export function isAllowedAddress(address: string, options: GuardOptions = {}): boolean {
  // Node's strict parser first: ipaddr.js also reads loose IPv4 forms such as 0x7f.1.
  if (isIP(address) === 0) return false;
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === 'loopback') return options.allowLoopback === true;
  if (range !== 'unicast') return false;
  // Hand rule: ipaddr.js calls all IPv6 outside its named ranges unicast, IPv4-compatible
  // addresses (::/96, such as ::a9fe:a9fe for 169.254.169.254) and unallocated space included.
  return parsed.kind() === 'ipv4' || parsed.match(GLOBAL_UNICAST_V6);
}

/** Only absolute http(s) URLs without credentials are crawled. */
export function isCrawlableUrl(url: URL): boolean {
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' &&
    url.password === ''
  );
}
