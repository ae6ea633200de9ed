import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  ADDRESS_ACTIVE,
  ADDRESS_WAITING,
  Admission,
  PROJECT_PENDING,
  PasswordChecks,
} from '../../src/redirects/password-checks';
import { PasswordGate } from '../../src/redirects/password-gate';
import { TestApp, createTestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { SiblingApp, startSiblingApp } from '../support/sibling-app';
import { createProject } from '../factories/projects';
import { createLink } from '../factories/links';

/**
 * Passwords as an attacker tries them (docs/api.md, "Passwords and proxies"): parallel guesses
 * get no more than the 10 attempts, one address cannot hold the checks, one project's burst does
 * not refuse another project's visitors, the form never posts off-site, and static with a
 * password never hands out a link that the password does not open.
 */

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const agent = new http.Agent({ keepAlive: false, maxSockets: 200 });

/** A raw request to the app (its path sent exactly as given, `//x` included). */
function send(
  t: TestApp,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const server = t.app.getHttpServer();
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path, agent, headers: { Host: 'svc.test', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const guess = (t: TestApp, path: string, password: string, ip: string) =>
  send(
    t,
    'POST',
    `/${path}`,
    { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': ip },
    new URLSearchParams({ password }).toString(),
  );

const tally = (answers: Answer[]) => {
  const counts: Record<number, number> = {};
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
};

/** An admission of the app's password checks, and their load just after it. */
interface Admitted {
  kind: Admission['kind'];
  running: number;
  pending: number;
}

/** Records every admission of the app's fair queue of password checks, with the load it left. */
function watchChecks(t: TestApp): Admitted[] {
  // The gate's own queue: the one its checks go through.
  const checks: PasswordChecks = t.app.get(PasswordGate, { strict: false })['checks'];
  const submit = checks.submit.bind(checks);
  const admitted: Admitted[] = [];
  jest.spyOn(checks, 'submit').mockImplementation((...args) => {
    const admission = submit(...args);
    admitted.push({ kind: admission.kind, ...checks.load });
    return admission;
  });
  return admitted;
}

/** The app behind one trusted proxy (TRUST_PROXY=1), listening for send's raw requests. */
async function startApp(options: { redis?: boolean } = {}): Promise<TestApp> {
  const t = await createTestApp({ ...options, env: { TRUST_PROXY: '1' } });
  const server = t.app.getHttpServer();
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, resolve));
  return t;
}

describe.each([
  ['attempts in Redis', true],
  ['attempts in memory', false],
])('parallel guesses (%s)', (_label, redis) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startApp({ redis });
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  it('30 wrong guesses at once get exactly 10 × 401 and 20 × 429', async () => {
    const link = await createLink(t, key, { password: 'right' });
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => guess(t, link.path, `wrong ${i}`, '198.51.100.30')),
    );
    expect(tally(answers)).toEqual({ 401: 10, 429: 20 });
    const limited = answers.find((a) => a.status === 429)!;
    expect(limited.body).toContain('Too many wrong passwords. Try again in 15 minute(s).');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(800);
    // The right password too, from this address, until the window ends.
    expect((await guess(t, link.path, 'right', '198.51.100.30')).status).toBe(429);
    expect((await guess(t, link.path, 'right', '198.51.100.31')).status).toBe(302);
  });
});

describe('attempts across two instances on one Redis', () => {
  let t: TestApp;
  let sibling: SiblingApp;
  let dataDir: string;
  let key: string;
  beforeAll(async () => {
    t = await startApp();
    key = (await createProject(t)).api_key;
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-passwords-'));
    sibling = await startSiblingApp(t, dataDir, { TRUST_PROXY: '1' });
  });
  afterAll(async () => {
    await sibling?.app.close();
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const guessAtSibling = (linkPath: string, password: string, ip: string) =>
    sibling.http
      .post(`/${linkPath}`)
      .set('Host', 'svc.test')
      .set('X-Forwarded-For', ip)
      .type('form')
      .send({ password });

  it('10 wrong guesses shared between the instances use the budget: the 11th is refused by both', async () => {
    const link = await createLink(t, key, { password: 'right' });
    const ip = '198.51.100.40';
    for (let i = 0; i < 5; i++) {
      expect((await guess(t, link.path, `wrong ${i}`, ip)).status).toBe(401);
      expect((await guessAtSibling(link.path, `wrong sibling ${i}`, ip)).status).toBe(401);
    }
    // Each instance counted 5 itself: in memory alone, both would still take a guess.
    expect((await guess(t, link.path, 'wrong 5', ip)).status).toBe(429);
    expect((await guessAtSibling(link.path, 'wrong sibling 5', ip)).status).toBe(429);
    expect((await guessAtSibling(link.path, 'right', ip)).status).toBe(429);
    expect((await guessAtSibling(link.path, 'right', '198.51.100.41')).status).toBe(302);
  });
});

describe('password checks under a burst', () => {
  let t: TestApp;
  let keyA: string;
  let keyB: string;
  beforeAll(async () => {
    t = await startApp();
    keyA = (await createProject(t)).api_key;
    keyB = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  it("a burst at project A's link from 300 addresses does not make project B's link answer 503", async () => {
    const linkA = await createLink(t, keyA, { password: 'a-secret' });
    const linkB = await createLink(t, keyB, { password: 'b-secret' });
    const admitted = watchChecks(t);
    const burst = Array.from({ length: 300 }, (_, i) =>
      guess(t, linkA.path, 'wrong', `203.0.${Math.floor(i / 100)}.${i % 100}`),
    );
    // B's visitors come once A's queue is full (its next visitor refused): eight, 25 ms apart.
    const full = await eventually(
      "project A's queue full",
      () => admitted.find((a) => a.kind === 'project-busy') ?? false,
    );
    expect(full.pending).toBe(PROJECT_PENDING);
    const visitors: Promise<Answer>[] = [];
    for (let i = 0; i < 8; i++) {
      visitors.push(guess(t, linkB.path, 'b-secret', `198.51.100.${70 + i}`));
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const answersB = await Promise.all(visitors);
    expect(answersB.map((a) => [a.status, a.headers.location])).toEqual(
      Array.from({ length: 8 }, () => [302, 'https://example.com/page']),
    );
    const answers = await Promise.all(burst);
    const counts = tally(answers);
    // A's own visitors beyond its queue are asked to retry; every other guess is checked.
    expect(Object.keys(counts).filter((status) => status !== '401' && status !== '503')).toEqual(
      [],
    );
    expect((counts[401] ?? 0) + (counts[503] ?? 0)).toBe(300);
    expect(
      answers.filter((a) => a.status === 503).every((a) => a.headers['retry-after'] === '1'),
    ).toBe(true);
  });

  it('one address has at most 2 checks running and 10 waiting: the rest are refused (429) without using attempts', async () => {
    const links = await Promise.all(
      [1, 2, 3].map(() => createLink(t, keyA, { password: 'right' })),
    );
    const admitted = watchChecks(t);
    const answers = await Promise.all(
      links.flatMap((link) =>
        Array.from({ length: 10 }, (_, i) => guess(t, link.path, `wrong ${i}`, '192.0.2.55')),
      ),
    );
    const busy = answers.filter((a) => a.status === 429);
    expect(busy.length).toBeGreaterThan(0);
    // Refused exactly when the address had 2 checks running and 10 waiting, never more.
    expect([ADDRESS_ACTIVE, ADDRESS_WAITING]).toEqual([2, 10]);
    const refused = admitted.filter((a) => a.kind === 'address-busy');
    expect(refused).toHaveLength(busy.length);
    expect(new Set(refused.map((a) => `${a.running} running, ${a.pending} waiting`))).toEqual(
      new Set(['2 running, 10 waiting']),
    );
    expect(Math.max(...admitted.map((a) => a.running))).toBe(2);
    expect(Math.max(...admitted.map((a) => a.pending))).toBe(10);
    for (const answer of busy) {
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.body).toContain('Too many passwords at once from your address. Try again.');
    }
    expect(answers.filter((a) => a.status !== 429).every((a) => a.status === 401)).toBe(true);
    // Per link, a refused check gave its attempt back: the right password still opens a link
    // that got fewer than 10 wrong ones checked.
    for (const [i, link] of links.entries()) {
      const wrong = answers.slice(i * 10, i * 10 + 10).filter((a) => a.status === 401).length;
      const right = await guess(t, link.path, 'right', '192.0.2.55');
      expect([wrong, right.status]).toEqual([wrong, wrong < 10 ? 302 : 429]);
    }
  });
});

describe('the password form', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startApp();
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  it('requested as //<path>, posts to /<path> (never to another host), with form-action limited to this origin', async () => {
    const link = await createLink(t, key, { password: 'open sesame' });
    const custom = await createLink(t, key, { password: 'open sesame', path: 'spring/sale' });
    for (const [requested, action] of [
      [`//${link.path}`, `/${link.path}`],
      [`///${link.path}/`, `/${link.path}`],
      ['//spring/sale', '/spring/sale'],
      [`/${link.path}`, `/${link.path}`],
    ]) {
      const form = await send(t, 'GET', requested);
      expect([requested, form.status]).toEqual([requested, 200]);
      expect(form.body).toContain(`<form method="post" action="${action}">`);
      expect(form.headers['content-security-policy']).toBe(
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
      );
    }
    const wrong = await send(
      t,
      'POST',
      `//${custom.path}`,
      { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': '192.0.2.9' },
      'password=nope',
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('<form method="post" action="/spring/sale">');
  });
});

describe('static with a password', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startApp();
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  const staticLink = async (url: string, password?: string, more: Record<string, string> = {}) => {
    const res = await t.http
      .post('/url/static.json')
      .type('form')
      .send({
        v: '3',
        key,
        tool: 'pub',
        url,
        ...(password === undefined ? {} : { password }),
        ...more,
      })
      .expect(200);
    return res.body as { svc_id: string; path: string; new: boolean; password_protected?: true };
  };
  const opens = async (path: string, password: string) =>
    (await guess(t, path, password, '192.0.2.77')).status;

  it('never returns a link that is unprotected or protected by another password', async () => {
    const url = 'https://example.com/members';
    const open = await staticLink(url);
    expect([open.new, open.password_protected]).toEqual([true, undefined]);
    const p1 = await staticLink(url, 'first secret');
    expect([p1.new, p1.password_protected, p1.svc_id === open.svc_id]).toEqual([true, true, false]);
    const p2 = await staticLink(url, 'second secret');
    expect([p2.new, p2.password_protected]).toEqual([true, true]);
    expect(new Set([open.svc_id, p1.svc_id, p2.svc_id]).size).toBe(3);
    // The same password again: the same link; no password: the unprotected one.
    const again = await staticLink(url, 'first secret');
    expect([again.svc_id, again.new]).toEqual([p1.svc_id, false]);
    const plain = await staticLink(url);
    expect([plain.svc_id, plain.new]).toEqual([open.svc_id, false]);
    // Each link opens with its own password only.
    expect(await opens(p1.path, 'second secret')).toBe(401);
    expect(await opens(p1.path, 'first secret')).toBe(302);
    expect(await opens(p2.path, 'second secret')).toBe(302);
  });

  it('a protected link made by create is found by its password; concurrent identical requests make one link', async () => {
    const url = 'https://example.com/club';
    const made = await t.http
      .post('/url.json')
      .type('form')
      .send({ v: '3', key, tool: 'pub', channel: 'email', url, password: 'club pass' })
      .expect(200);
    const email = { channel: 'email' };
    const found = await staticLink(url, 'club pass', email);
    expect([found.svc_id, found.new]).toEqual([made.body.svc_id, false]);
    const other = await staticLink(url, 'not the club pass', email);
    expect([other.svc_id === made.body.svc_id, other.new]).toEqual([false, true]);
    const concurrent = await Promise.all(
      Array.from({ length: 4 }, () => staticLink('https://example.com/vip', 'vip pass')),
    );
    expect(new Set(concurrent.map((c) => c.svc_id)).size).toBe(1);
    expect(concurrent.map((c) => c.new).sort()).toEqual([false, false, false, true]);
  });
});
