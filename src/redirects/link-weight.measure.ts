/**
 * Measures what each cached link keeps on the V8 heap, in a process of its own (so that no other
 * code's garbage is collected between the readings): run by redirect-cache.spec.ts with
 * `--expose-gc`; prints {urlLength, measured, estimated} per URL length as JSON.
 */
import { Lru } from '../common/lru';
import { weighLinkTarget } from './redirect-cache';
import type { LinkTarget } from './redirect-target';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const entries = 20_000;
const results = [40, 100, 300].map((urlLength) => {
  const lru = new Lru<LinkTarget | null>(entries, { max: 2 ** 40, weigh: weighLinkTarget });
  gc();
  const before = process.memoryUsage().heapUsed;
  let estimated = 0;
  for (let n = 0; n < entries; n++) {
    // As a lookup keeps it: the key from the request, the link parsed from its Redis entry.
    const key = `bench.svc_${(1e9 + n * 7919).toString(36).slice(-7)}`;
    const url = `https://example.com/${'a'.repeat(urlLength - 28)}?n=${n}`.slice(0, urlLength);
    const target = JSON.parse(
      JSON.stringify({
        linkId: String(1000 + n),
        projectId: '0c5e1d2a-1111-4222-8333-000000000001',
        svcId: key,
        redirectUrl: url,
      }),
    ) as LinkTarget;
    lru.set(key, target, 600_000, 0);
    estimated += weighLinkTarget(key, target);
  }
  gc();
  const measured = (process.memoryUsage().heapUsed - before) / entries;
  if (lru.size !== entries) throw new Error(`the cache holds ${lru.size}, not ${entries}`);
  return { urlLength, measured, estimated: estimated / entries };
});
process.stdout.write(JSON.stringify(results));
