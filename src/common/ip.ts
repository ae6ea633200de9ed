import { isIP, isIPv4, isIPv6 } from 'node:net';
import * as ipaddr from 'ipaddr.js';

export type IpMode = 'full' | 'anonymised' | 'none';

/** IPv4: the last octet zeroed; IPv6: all but the first 48 bits zeroed. */
export function anonymiseIp(ip: string): string {
  if (isIPv4(ip)) return ip.replace(/\.\d+$/, '.0');
  if (!isIPv6(ip)) return ip;
  const [head] = ip.split('::');
  const groups = head.split(':').filter((g) => g !== '');
  return `${groups.slice(0, 3).join(':')}::`;
}

/** Node's spelling of an IPv4 client on a dual-stack listener. */
const MAPPED_DOTTED = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;

/**
 * An address as the service stores, answers and logs it (docs/api.md, "Security"): an IPv4 client
 * seen through an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, however written) as plain IPv4;
 * any other address as given. The one conversion: the client address (clientAddress, and
 * Express's req.ip through plainRequestIp) and an address a caller gives both pass through it.
 */
export function plainIp(address: string): string {
  if (!address.includes(':')) return address;
  const dotted = MAPPED_DOTTED.exec(address);
  if (dotted && isIPv4(dotted[1])) return dotted[1];
  if (!ipaddr.IPv6.isValid(address)) return address;
  const parsed = ipaddr.IPv6.parse(address);
  return parsed.isIPv4MappedAddress() ? parsed.toIPv4Address().toString() : address;
}

/** An IP address as stored under CLICK_IP (plainIp first); null for none. */
export function storedIp(ip: string | null | undefined, mode: IpMode): string | null {
  if (!ip || mode === 'none') return null;
  const plain = plainIp(ip);
  return mode === 'anonymised' ? anonymiseIp(plain) : plain;
}

/**
 * Makes Express's `req.ip` answer plainIp of what Express resolves, for every request of the app
 * whose request prototype is given (`expressApp.request`): throttler keys, conversions and logs
 * then read the same address as the redirect listener (docs/operations.md, "Proxies").
 */
export function plainRequestIp(requestPrototype: object): void {
  let owner: object | null = requestPrototype;
  while (owner !== null && Object.getOwnPropertyDescriptor(owner, 'ip')?.get === undefined) {
    owner = Object.getPrototypeOf(owner) as object | null;
  }
  if (owner === null) throw new Error('the request prototype has no ip getter');
  const express = owner;
  Object.defineProperty(requestPrototype, 'ip', {
    configurable: true,
    enumerable: true,
    get(this: object): unknown {
      // Express's own getter, run on this request.
      const ip: unknown = Reflect.get(express, 'ip', this);
      return typeof ip === 'string' ? plainIp(ip) : ip;
    },
  });
}

/**
 * Whether the address `hop` steps from us (0: the connection's peer, 1: the rightmost
 * X-Forwarded-For entry, …) is a trusted proxy. The signature of Express's `trust proxy` function,
 * so that Express's `req.ip` and the redirect listener name the same client; compileTrust
 * (src/config/trust-proxy.ts) makes it of TRUST_PROXY, and the caller passes it in.
 */
export type TrustFunction = (address: string, hop: number) => boolean;

/**
 * The client's address, as Express's `req.ip` names it with the same trust function: from the
 * connection's peer leftwards through X-Forwarded-For (its repeated headers joined by commas, in
 * order), the first address that is not a trusted proxy, or the leftmost entry when all are. Read
 * from the right and only as far as the trusted hops go (at most MAX_PROXY_HOPS, which the trust
 * function holds), so entries a client adds on the left are never reached. Null when the answer is
 * no IP address (a malformed entry a trusted proxy passed on), or without a peer.
 */
export function clientAddress(
  peer: string | undefined,
  forwarded: string | undefined,
  trust: TrustFunction,
): string | null {
  if (peer === undefined) return null;
  let address = peer;
  if (forwarded !== undefined) {
    let hop = 0;
    let end = forwarded.length;
    while (end > 0 && trust(address, hop)) {
      // The next entry to the left; spaces around it are dropped and empty entries skipped, as
      // Express's parser (the `forwarded` package) does.
      const comma = forwarded.lastIndexOf(',', end - 1);
      let start = comma + 1;
      let stop = end;
      end = comma === -1 ? 0 : comma;
      while (start < stop && forwarded.charCodeAt(start) === 32) start++;
      while (stop > start && forwarded.charCodeAt(stop - 1) === 32) stop--;
      if (start === stop) continue;
      address = forwarded.slice(start, stop);
      hop++;
    }
  }
  return isIP(address) === 0 ? null : plainIp(address);
}
