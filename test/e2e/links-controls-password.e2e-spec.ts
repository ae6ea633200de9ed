import Redis from 'ioredis';
import { TestApp, createTestApp } from '../support/app';
import { createProject } from '../factories/projects';
import { createLink } from '../factories/links';
import { BROWSER, clickCounts, linkRow, storedClicks } from '../support/clicks';
import { TEST_REDIS_URL } from '../support/env';

const FORM = 'application/x-www-form-urlencoded';

describe.each([
  ['rate limit in Redis', true],
  ['rate limit in memory', false],
])('link controls: password (%s)', (_label, redis) => {
  let t: TestApp;
  let key: string;
  /** Reads the attempts' windows in Redis as the service writes them (the Redis variant's proof). */
  let peek: Redis;
  /** Each test its own client address (TRUST_PROXY), so the rate limits stay apart. */
  let address = 0;
  let ip: string;
  beforeAll(async () => {
    t = await createTestApp({ redis, env: { TRUST_PROXY: 'true' } });
    key = (await createProject(t)).api_key;
    peek = new Redis(TEST_REDIS_URL);
  });
  beforeEach(() => {
    address += 1;
    ip = `198.51.100.${address}`;
  });
  afterAll(async () => {
    peek?.disconnect();
    await t.close();
  });

  /** A link's window of attempts from an address in Redis: its count and ms left, null for no key. */
  const window = async (svcId: string, from: string) => {
    const { linkId } = await linkRow(t, svcId);
    const name = `${t.config.redisPrefix}:password:${linkId}:${from}`;
    const [count, msLeft] = await Promise.all([peek.get(name), peek.pttl(name)]);
    return count === null ? null : { count, msLeft };
  };

  const open = (path: string, referrer?: string) => {
    const req = t.http
      .get(`/${path}`)
      .set('Host', 'svc.test')
      .set('User-Agent', BROWSER)
      .set('X-Forwarded-For', ip);
    return referrer === undefined ? req : req.set('Referer', referrer);
  };
  const submit = (path: string, fields: Record<string, string>, from = ip) =>
    t.http
      .post(`/${path}`)
      .set('Host', 'svc.test')
      .set('User-Agent', BROWSER)
      .set('X-Forwarded-For', from)
      .type('form')
      .send(fields);
  const counts = async (svcId: string) => {
    await t.settle();
    const { clicks, bots } = (await clickCounts(t, [svcId]))[svcId];
    return { clicks, bots };
  };

  it('GET answers the form (200, text/html, labelled and focused field, posting to the link); HEAD its headers; nothing counted', async () => {
    const link = await createLink(t, key, { password: 'open sesame' });
    const res = await open(link.path, 'https://news.example/post').expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.text).toContain(`<form method="post" action="/${link.path}">`);
    expect(res.text).toContain('<label for="password">Password</label>');
    expect(res.text).toMatch(/<input id="password" name="password" type="password"[^>]* autofocus/);
    expect(res.text).toContain(
      '<input type="hidden" name="referrer" value="https://news.example/post">',
    );
    expect(res.text).not.toMatch(/<script|<link|src=|url\(/);
    const head = await t.http
      .head(`/${link.path}`)
      .set('Host', 'svc.test')
      .set('Referer', 'https://news.example/post')
      .expect(200);
    expect(head.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
    expect(await counts(link.svc_id)).toEqual({ clicks: 0, bots: 0 });
  });

  it('a wrong password answers the form again (401), the right one the redirect (302), counted once with the first referrer', async () => {
    const link = await createLink(t, key, { password: 'open sesame' });
    const wrong = await submit(link.path, { password: 'guess', referrer: 'https://news.example/' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(wrong.text).toContain('role="alert">Wrong password. Please try again.</p>');
    expect(wrong.text).toContain('aria-invalid="true"');
    const empty = await submit(link.path, {});
    expect(empty.status).toBe(401);
    expect(empty.text).toContain('Enter the password.');
    const right = await submit(link.path, {
      password: 'open sesame',
      referrer: 'https://news.example/',
    }).expect(302);
    expect(right.headers.location).toBe('https://example.com/page');
    expect(right.headers['cache-control']).toBe('private, max-age=0');
    expect(await counts(link.svc_id)).toEqual({ clicks: 1, bots: 0 });
    const [click] = await storedClicks(t, (await linkRow(t, link.svc_id)).linkId);
    expect(click.referrer).toBe('https://news.example/');
    expect(click.user_agent).toBe(BROWSER);
  });

  it('limits wrong passwords per link and address: 10 in 15 minutes, then 429 with the form', async () => {
    const link = await createLink(t, key, { password: 'right' });
    for (let i = 0; i < 10; i++) {
      expect((await submit(link.path, { password: `wrong ${i}` })).status).toBe(401);
    }
    const limited = await submit(link.path, { password: 'wrong again' });
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(800);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(900);
    expect(limited.text).toContain('Too many wrong passwords. Try again in 15 minute(s).');
    expect(limited.text).toContain('<label for="password">Password</label>');
    // The right password too, from this address; another address, or another link, is not held.
    expect((await submit(link.path, { password: 'right' })).status).toBe(429);
    expect((await submit(link.path, { password: 'right' }, '198.51.100.250')).status).toBe(302);
    const other = await createLink(t, key, { password: 'right' });
    expect((await submit(other.path, { password: 'right' })).status).toBe(302);
    expect(await counts(link.svc_id)).toEqual({ clicks: 1, bots: 0 });
    // With Redis the windows are its keys (shared by every instance): the full one holds 10 for
    // its 15 minutes, the refused tries not counted; a right password gave its attempt back.
    // Without Redis, none is written.
    const held = await window(link.svc_id, ip);
    const given = await window(link.svc_id, '198.51.100.250');
    if (redis) {
      expect(held?.count).toBe('10');
      expect(held?.msLeft).toBeGreaterThan(800_000);
      expect(held?.msLeft).toBeLessThanOrEqual(900_000);
      expect(given?.count).toBe('0');
    } else {
      expect([held, given]).toEqual([null, null]);
    }
  });

  it('POST to any other path goes on to Express as before', async () => {
    const plain = await createLink(t, key);
    const before = await t.http.post('/no-such-link').set('Host', 'svc.test').type('form').send({});
    const res = await t.http
      .post(`/${plain.path}`)
      .set('Host', 'svc.test')
      .type('form')
      .send({ password: 'x' });
    expect(before.status).toBe(404);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 404, error_message: `Cannot POST /${plain.path}` });
    // The API itself, on the default domain and elsewhere.
    const created = await t.http
      .post('/url.json')
      .set('Host', 'svc.test')
      .type('form')
      .send({ v: '3', key, tool: 't', channel: 'email', url: 'https://example.com/x' })
      .expect(200);
    expect(created.body.svc_id).toMatch(/^svc\.test_/);
    expect(await counts(plain.svc_id)).toEqual({ clicks: 0, bots: 0 });
  });

  it('a body that is not a form reads as no password; a large one is refused (413)', async () => {
    const link = await createLink(t, key, { password: 'pw' });
    const json = await t.http
      .post(`/${link.path}`)
      .set('Host', 'svc.test')
      .set('X-Forwarded-For', ip)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ password: 'pw' }));
    expect(json.status).toBe(401);
    const large = await t.http
      .post(`/${link.path}`)
      .set('Host', 'svc.test')
      .set('X-Forwarded-For', ip)
      .set('Content-Type', FORM)
      .send(`password=${'x'.repeat(10_000)}`);
    expect(large.status).toBe(413);
  });

  it('the password is changed and removed by update; an expired protected link shows no form', async () => {
    const link = await createLink(t, key, { password: 'first', max_clicks: '1' });
    const change = (password: string) =>
      t.http
        .post(`/url/update/${link.svc_id}.json`)
        .type('form')
        .send({ v: '3', key, tool: 'u', password })
        .expect(200);
    await change('second');
    expect((await submit(link.path, { password: 'first' })).status).toBe(401);
    expect((await submit(link.path, { password: 'second' })).status).toBe(302);
    // The one click is spent: the expired answer, form or not.
    expect((await open(link.path)).status).toBe(404);
    expect((await submit(link.path, { password: 'second' })).status).toBe(404);
    const removed = await change('');
    expect(removed.body.password_protected).toBeUndefined();
    const fresh = await createLink(t, key, { password: 'pw' });
    await t.http
      .post(`/url/update/${fresh.svc_id}.json`)
      .type('form')
      .send({ v: '3', key, tool: 'u', password: '' })
      .expect(200);
    expect((await open(fresh.path).expect(302)).headers.location).toBe('https://example.com/page');
  });
});
