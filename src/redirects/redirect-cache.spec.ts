import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { Lru } from '../common/lru';
import { weighLinkTarget } from './redirect-cache';
import type { LinkTarget } from './redirect-target';

const link = (n: number, url: string, controls?: LinkTarget['controls']): LinkTarget => ({
  linkId: String(1000 + n),
  projectId: '0c5e1d2a-1111-4222-8333-000000000001',
  svcId: `localhost:3000_L${n}`,
  redirectUrl: url,
  ...(controls ? { controls } : {}),
});

describe('weighLinkTarget', () => {
  it('weighs every string of a link at 2 bytes a character, plus the objects around them', () => {
    const plain = link(1, 'https://example.com/');
    const chars = 'localhost:3000_L1'.length * 2 + 4 + 36 + 'https://example.com/'.length;
    expect(weighLinkTarget(plain.svcId, plain)).toBe(320 + 2 * chars);
    expect(weighLinkTarget('localhost:3000_gone', null)).toBe(320 + 2 * 19);
    const controlled = link(1, 'https://example.com/', {
      expiredUrl: 'https://e.example/',
      ios: 'https://i.example/',
      android: 'https://a.example/',
      password: 'scrypt$hash',
      geo: { US: 'https://us.example/', DE: 'https://de.example/' },
    });
    expect(
      weighLinkTarget(controlled.svcId, controlled) - weighLinkTarget(plain.svcId, plain),
    ).toBe(2 * (18 + 18 + 18 + 11 + (2 + 19) * 2) + 2 * 48);
  });

  it('is an estimate from above of what V8 keeps for a short link (about 280 bytes + its characters)', () => {
    const target = link(7, 'https://example.com/a-page');
    const chars = 2 * 'localhost:3000_L7'.length + 4 + 36 + 26;
    expect(weighLinkTarget(target.svcId, target)).toBeGreaterThanOrEqual(280 + chars);
  });
});

describe('the link cache bounded by bytes', () => {
  it('inserting links of 4 KB URLs evicts by bytes, long before the entry count', () => {
    // 1 MB and 100,000 entries: each 4 KB URL weighs about 8.5 KB, so about 120 fit.
    const lru = new Lru<LinkTarget | null>(100_000, { max: 1024 * 1024, weigh: weighLinkTarget });
    const url = `https://example.com/${'a'.repeat(4096 - 20)}`;
    for (let n = 0; n < 1000; n++) {
      const target = link(n, url);
      lru.set(target.svcId, target, 60_000, 0);
    }
    const each = weighLinkTarget('localhost:3000_L999', link(999, url));
    expect(lru.weight).toBeLessThanOrEqual(1024 * 1024);
    expect(lru.size).toBe(Math.floor((1024 * 1024) / each));
    expect(lru.has('localhost:3000_L999')).toBe(true);
    expect(lru.has('localhost:3000_L0')).toBe(false);
    // Short links fill the same bytes with far more entries.
    for (let n = 0; n < 1000; n++) {
      const target = link(n, 'https://example.com/');
      lru.set(target.svcId, target, 60_000, 0);
    }
    expect(lru.size).toBe(1000);
  });
});

describe('what a cached link weighs (docs/operations.md, "The redirect cache")', () => {
  it('the estimate is above what V8 keeps for each link, measured on the heap', () => {
    // In a process of its own: the workers' heaps hold other tests' garbage.
    const run = spawnSync(
      process.execPath,
      [
        '--expose-gc',
        '-r',
        'ts-node/register/transpile-only',
        path.join(__dirname, 'link-weight.measure.ts'),
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.stderr).toBe('');
    const results = JSON.parse(run.stdout) as {
      urlLength: number;
      measured: number;
      estimated: number;
    }[];
    expect(results.map((r) => r.urlLength)).toEqual([40, 100, 300]);
    for (const { urlLength, measured, estimated } of results) {
      // About 400 bytes and a byte a character of ASCII; the estimate counts two and more objects.
      expect(measured).toBeLessThan(estimated);
      expect(measured).toBeGreaterThan(urlLength);
    }
  });
});
