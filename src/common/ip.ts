import { isIPv4, isIPv6 } from 'node:net';

export type IpMode = 'full' | 'anonymised' | 'none';

/** IPv4: the last octet zeroed; IPv6: all but the first 48 bits zeroed. */
export function anonymiseIp(ip: string): string {
  if (isIPv4(ip)) return ip.replace(/\.\d+$/, '.0');
  if (!isIPv6(ip)) return ip;
  const [head] = ip.split('::');
  const groups = head.split(':').filter((g) => g !== '');
  return `${groups.slice(0, 3).join(':')}::`;
}

/** An IP address as stored under CLICK_IP (IPv4-mapped IPv6 read as IPv4); null for none. */
export function storedIp(ip: string | null | undefined, mode: IpMode): string | null {
  if (!ip || mode === 'none') return null;
  const plain = ip.startsWith('::ffff:') && isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
  return mode === 'anonymised' ? anonymiseIp(plain) : plain;
}

/** The first address of an X-Forwarded-For header, when it is one. */
export function forwardedFor(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  const first = value?.split(',')[0]?.trim();
  return first && (isIPv4(first) || isIPv6(first)) ? first : null;
}
