import express from 'express';
import { MAX_PROXY_HOPS, TrustProxy, compileTrust, parseTrustProxy } from '../config/trust-proxy';
import { anonymiseIp, clientAddress, plainIp, plainRequestIp, storedIp } from './ip';

describe('ip', () => {
  it('anonymises IPv4 to /24 and IPv6 to /48', () => {
    expect(anonymiseIp('203.0.113.77')).toBe('203.0.113.0');
    expect(anonymiseIp('2001:db8:85a3:8d3:1319:8a2e:370:7348')).toBe('2001:db8:85a3::');
    expect(anonymiseIp('2001:db8::1')).toBe('2001:db8::');
    expect(anonymiseIp('::1')).toBe('::');
  });

  it('stores per mode, reading IPv4-mapped addresses as IPv4', () => {
    expect(storedIp('::ffff:198.51.100.9', 'anonymised')).toBe('198.51.100.0');
    expect(storedIp('::ffff:198.51.100.9', 'full')).toBe('198.51.100.9');
    expect(storedIp('198.51.100.9', 'none')).toBeNull();
    expect(storedIp(null, 'full')).toBeNull();
  });

  it.each([
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::FFFF:198.51.100.9', '198.51.100.9'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['0:0:0:0:0:ffff:c633:6409', '198.51.100.9'],
    ['0::ffff:198.51.100.9', '198.51.100.9'],
    ['127.0.0.1', '127.0.0.1'],
    ['2001:db8::1', '2001:db8::1'],
    ['::1', '::1'],
    // IPv4-compatible and IPv4-translated addresses are IPv6 addresses of their own.
    ['::a9fe:a9fe', '::a9fe:a9fe'],
    ['::ffff:0:a9fe:a9fe', '::ffff:0:a9fe:a9fe'],
    ['not-an-ip', 'not-an-ip'],
  ])('plainIp(%s) is %s', (address, plain) => {
    expect(plainIp(address)).toBe(plain);
  });
});

describe('clientAddress', () => {
  const at = (setting: TrustProxy, peer: string | undefined, forwarded?: string) =>
    clientAddress(peer, forwarded, compileTrust(setting));

  it('ignores X-Forwarded-For when nothing is trusted', () => {
    expect(at(false, '198.51.100.1', '8.8.8.8')).toBe('198.51.100.1');
    expect(at(false, '::ffff:198.51.100.1', '8.8.8.8')).toBe('198.51.100.1');
  });

  it('with one hop takes the rightmost entry: forged entries on the left are never read', () => {
    expect(at(1, '10.0.0.2', '8.8.8.8, 81.2.69.142')).toBe('81.2.69.142');
    expect(at(1, '10.0.0.2', '81.2.69.142')).toBe('81.2.69.142');
    expect(at(1, '10.0.0.2', undefined)).toBe('10.0.0.2');
    expect(at(1, '10.0.0.2', '')).toBe('10.0.0.2');
    expect(at(1, '10.0.0.2', ' , ,')).toBe('10.0.0.2');
    // Repeated headers joined by commas: the last header's entry is the nearest.
    expect(at(1, '10.0.0.2', '8.8.8.8,81.2.69.142')).toBe('81.2.69.142');
  });

  it('with two hops skips the nearest proxy', () => {
    expect(at(2, '10.0.0.2', '8.8.8.8, 81.2.69.142, 172.16.0.9')).toBe('81.2.69.142');
    expect(at(2, '10.0.0.2', '172.16.0.9')).toBe('172.16.0.9');
  });

  it('with a list walks past trusted proxies to the first untrusted address', () => {
    const list = parseTrustProxy('10.0.0.0/8, 2001:db8::/32, 192.0.2.7');
    expect(at(list, '10.1.2.3', '8.8.8.8, 81.2.69.142, 192.0.2.7, 2001:db8::5')).toBe(
      '81.2.69.142',
    );
    expect(at(list, '::ffff:10.1.2.3', '81.2.69.142')).toBe('81.2.69.142');
    // The peer itself is untrusted: the header is not read.
    expect(at(list, '203.0.113.5', '81.2.69.142')).toBe('203.0.113.5');
    // All trusted: the leftmost entry.
    expect(at(list, '10.1.2.3', '10.9.9.9')).toBe('10.9.9.9');
    expect(at(parseTrustProxy('loopback'), '::1', '2001:db8::1')).toBe('2001:db8::1');
  });

  it('answers null when the client entry is no IP address, and without a peer', () => {
    expect(at(1, '10.0.0.2', '8.8.8.8, unknown')).toBeNull();
    expect(at(1, undefined, '8.8.8.8')).toBeNull();
  });

  it(`follows at most ${MAX_PROXY_HOPS} trusted hops of a list, and reads only that far`, () => {
    const trusted = Array.from({ length: 40 }, (_, i) => `10.0.0.${i + 1}`);
    const forwarded = ['8.8.8.8', ...trusted].join(', ');
    expect(at(['10.0.0.0/8'], '10.0.1.1', forwarded)).toBe(`10.0.0.${41 - MAX_PROXY_HOPS}`);
    // A header of 16,000 entries costs the walk only the hops it follows.
    const seen: number[] = [];
    const huge = `${'8.8.8.8,'.repeat(16_000)}81.2.69.142`;
    expect(clientAddress('10.0.0.2', huge, (_a, hop) => (seen.push(hop), hop < 1))).toBe(
      '81.2.69.142',
    );
    expect(seen).toEqual([0, 1]);
  });

  it("names the client as Express's req.ip (through plainRequestIp) does with the same trust function", () => {
    const settings: TrustProxy[] = [false, 1, 2, 3, parseTrustProxy('10.0.0.0/8,::1,uniquelocal')];
    const peers = ['10.0.0.1', '::1', '203.0.113.9', '::ffff:10.0.0.1'];
    const headers = [
      undefined,
      '',
      '8.8.8.8',
      '8.8.8.8, 10.0.0.5',
      '8.8.8.8,,10.0.0.5 , 192.168.1.1',
      'garbage, 10.0.0.5',
      ' 2001:db8::9 ,10.1.1.1,10.2.2.2,10.3.3.3',
    ];
    for (const setting of settings) {
      const trust = compileTrust(setting);
      const app = express();
      app.set('trust proxy', trust);
      plainRequestIp(app.request);
      for (const peer of peers) {
        for (const forwarded of headers) {
          const req = Object.create(app.request) as { ip: string };
          Object.assign(req, {
            app,
            socket: { remoteAddress: peer },
            connection: { remoteAddress: peer },
            headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
          });
          const ours = clientAddress(peer, forwarded, trust);
          expect([setting, peer, forwarded, ours]).toEqual([
            setting,
            peer,
            forwarded,
            req.ip === 'garbage' ? null : req.ip,
          ]);
        }
      }
    }
  });
});
