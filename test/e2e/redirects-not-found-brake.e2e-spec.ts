import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { LinkRecord } from '../../src/links/link-record';
import { LinkFilter } from '../../src/redirects/link-filter';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { TestApp, createTestApp } from '../support/app';
import { BROWSER } from '../support/clicks';
import { eventually } from '../support/eventually';
import { SiblingApp, startSiblingApp } from '../support/sibling-app';

/** This file's brake: 5 not-found answers a second per address at once, the rest held 500 ms. */
const LIMIT = 5;
const DELAY_MS = 500;
/** An answer given at once, on a loaded machine. */
const AT_ONCE_MS = DELAY_MS / 2;
/** A held answer, measured generously (timers and clocks). */
const HELD_MS = 0.8 * DELAY_MS;

interface Timed {
  status: number;
  ms: number;
}

/**
 * One GET on svc.test over a connection of its own, from `ip` as a trusted loopback proxy names it
 * (TRUST_PROXY=loopback): its status and how long it took.
 */
function timedGet(port: number, urlPath: string, ip: string): Promise<Timed> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        port,
        host: '127.0.0.1',
        path: urlPath,
        agent: false,
        headers: { Host: 'svc.test', 'User-Agent': BROWSER, 'X-Forwarded-For': ip },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, ms: performance.now() - start }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A second without not-found answers: the next one starts a window of its own. */
const quietSecond = () => new Promise((resolve) => setTimeout(resolve, 1100));

/** An instance's svc_redirect_not_found_delayed_total by reason. */
async function delayedCounts(port: number): Promise<Record<string, number>> {
  const text = await new Promise<string>((resolve, reject) => {
    const req = httpRequest({ port, host: '127.0.0.1', path: '/metrics', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
  const counts: Record<string, number> = {};
  for (const [, reason, value] of text.matchAll(
    /^svc_redirect_not_found_delayed_total\{reason="(\w+)"\} (\d+)$/gm,
  )) {
    counts[reason] = Number(value);
  }
  return counts;
}

/**
 * The brake on not-found answers (docs/operations.md, "Floods of unknown paths"): past
 * NOT_FOUND_RATE_LIMIT a second from one client address, a path of no link is answered
 * NOT_FOUND_DELAY_MS late; a link's redirect never is.
 */
describe('redirects: the brake on not-found answers', () => {
  let t: TestApp;
  let port: number;
  let link: LinkRecord;
  /** The same deployment's instance with the brake off (NOT_FOUND_RATE_LIMIT=0). */
  let unbraked: SiblingApp;
  let unbrakedPort: number;
  let dataDir: string;
  beforeAll(async () => {
    const env = {
      TRUST_PROXY: 'loopback',
      NOT_FOUND_RATE_LIMIT: String(LIMIT),
      NOT_FOUND_DELAY_MS: String(DELAY_MS),
    };
    t = await createTestApp({ redis: true, env });
    const server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    link = await createLink(t, (await createProject(t)).api_key, { path: 'brake-known' });
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-sibling-'));
    unbraked = await startSiblingApp(t, dataDir, { ...env, NOT_FOUND_RATE_LIMIT: '0' });
    unbrakedPort = (unbraked.app.getHttpServer().address() as AddressInfo).port;
    const filters = [t.app, unbraked.app].map((app) => app.get(LinkFilter, { strict: false }));
    await eventually('both filters built', () => filters.every((filter) => filter.ready), 10_000);
  });
  afterAll(async () => {
    await unbraked?.app.close();
    await t?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers an address's first 5 unknown paths of a second at once and holds the next by the delay, while its link redirects at once", async () => {
    await quietSecond();
    const ip = '203.0.113.10';
    const first = await Promise.all(
      Array.from({ length: LIMIT }, (_, i) => timedGet(port, `/unknown-${i}`, ip)),
    );
    expect(first.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404]);
    expect(Math.max(...first.map((answer) => answer.ms))).toBeLessThan(AT_ONCE_MS);
    const held = [timedGet(port, '/unknown-5', ip), timedGet(port, '/unknown-6', ip)];
    // In the same second, from the same address: the link's redirect, and another address's 404.
    const redirect = await timedGet(port, `/${link.path}`, ip);
    const other = await timedGet(port, '/unknown-7', '198.51.100.7');
    expect([redirect.status, other.status]).toEqual([302, 404]);
    expect(Math.max(redirect.ms, other.ms)).toBeLessThan(AT_ONCE_MS);
    const late = await Promise.all(held);
    expect(late.map((answer) => answer.status)).toEqual([404, 404]);
    expect(Math.min(...late.map((answer) => answer.ms))).toBeGreaterThanOrEqual(HELD_MS);
    expect(await delayedCounts(port)).toEqual({ address: 2, instance: 0 });
  });

  it('counts the addresses of one IPv6 /64 together', async () => {
    await quietSecond();
    const answers = await Promise.all(
      Array.from({ length: LIMIT + 1 }, (_, i) =>
        timedGet(port, `/v6-unknown-${i}`, `2001:db8:7:8::${(i + 1).toString(16)}`),
      ),
    );
    const other = await timedGet(port, '/v6-unknown-x', '2001:db8:7:9::1');
    expect([...answers, other].map((answer) => answer.status)).toEqual(Array(LIMIT + 2).fill(404));
    const times = answers.map((answer) => answer.ms).sort((a, b) => a - b);
    expect(times[LIMIT - 1]).toBeLessThan(AT_ONCE_MS);
    expect(times[LIMIT]).toBeGreaterThanOrEqual(HELD_MS);
    expect(other.ms).toBeLessThan(AT_ONCE_MS);
  });

  it('with NOT_FOUND_RATE_LIMIT=0 holds nothing', async () => {
    const answers = await Promise.all(
      Array.from({ length: 3 * LIMIT }, (_, i) =>
        timedGet(unbrakedPort, `/free-unknown-${i}`, '203.0.113.20'),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(3 * LIMIT).fill(404));
    expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(AT_ONCE_MS);
    expect(await delayedCounts(unbrakedPort)).toEqual({ address: 0, instance: 0 });
  });
});
