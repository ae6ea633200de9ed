import { BlockList, isIP } from 'node:net';

/**
 * TRUST_PROXY as configured (docs/operations.md, "Proxies"): false (X-Forwarded-For is ignored), the
 * number of proxies in front of the service, or the addresses and subnets of trusted proxies.
 */
export type TrustProxy = false | number | readonly string[];

/** The most proxies a list of trusted addresses is followed through: the walk's cost stays bounded. */
export const MAX_PROXY_HOPS = 32;

/** Express's names for address ranges, accepted in a TRUST_PROXY list. */
const NAMED_RANGES: Record<string, readonly string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * Reads a TRUST_PROXY value: `false`/`0`, `true` (one proxy), a hop count up to MAX_PROXY_HOPS, or
 * a comma list of addresses, CIDR subnets and the names loopback, linklocal, uniquelocal. Throws
 * an Error saying what is wrong (the config names the variable).
 */
export function parseTrustProxy(value: string): TrustProxy {
  const text = value.trim().toLowerCase();
  if (text === 'false' || text === '0') return false;
  if (text === 'true') return 1;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > MAX_PROXY_HOPS) {
      throw new Error(`a hop count must be at most ${MAX_PROXY_HOPS} (got "${value}")`);
    }
    return hops;
  }
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.length > 100) throw new Error('at most 100 addresses or subnets');
  for (const entry of entries) {
    if (!(entry in NAMED_RANGES) && subnetOf(entry) === null) {
      throw new Error(
        `must be false, true, a hop count or a comma list of IP addresses and CIDR subnets (got "${entry}")`,
      );
    }
  }
  return entries;
}

/** An address or CIDR subnet as [address, prefix length, family]; null when it is neither. */
function subnetOf(entry: string): [string, number, 'ipv4' | 'ipv6'] | null {
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  const version = isIP(address);
  if (version === 0) return null;
  const max = version === 4 ? 32 : 128;
  const prefixText = slash === -1 ? String(max) : entry.slice(slash + 1);
  const prefix = Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText) || prefix > max) return null;
  return [address, prefix, version === 4 ? 'ipv4' : 'ipv6'];
}

/**
 * The trust function of a TRUST_PROXY value, made once at boot: whether the address `hop` steps
 * from us is a trusted proxy, the signature of Express's `trust proxy` function (TrustFunction in
 * src/common/ip.ts, whose clientAddress takes it).
 */
export function compileTrust(setting: TrustProxy): (address: string, hop: number) => boolean {
  if (setting === false) return () => false;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  const trusted = new BlockList();
  for (const entry of setting.flatMap((e) => NAMED_RANGES[e] ?? [e])) {
    const [address, prefix, family] = subnetOf(entry)!;
    trusted.addSubnet(address, prefix, family);
  }
  return (address, hop) => {
    if (hop >= MAX_PROXY_HOPS) return false;
    const version = isIP(address);
    return version !== 0 && trusted.check(address, version === 4 ? 'ipv4' : 'ipv6');
  };
}
