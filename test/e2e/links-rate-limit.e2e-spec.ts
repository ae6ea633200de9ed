import { TestApp, createTestApp } from '../support/app';
import { createProject } from '../factories/projects';
import { createLink } from '../factories/links';
import type { Response, Test } from 'supertest';
import Redis from 'ioredis';
import { FixedWindowStorage } from '../../src/rate-limit/fixed-window.storage';
import { TEST_REDIS_URL } from '../support/env';
import { eventually } from '../support/eventually';

const LIMITED = {
  error: 429,
  error_message: 'Rate limit exceeded: at most 3 create requests per hour per project',
};

describe.each([
  ['Redis', true],
  ['the in-process storage', false],
])('create API rate limit (CREATE_RATE_LIMIT=3) on %s', (_name, redis) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ redis, env: { CREATE_RATE_LIMIT: '3' } });
  });
  afterAll(() => t.close());

  const newKey = async () => (await createProject(t)).api_key;
  const rateHeaders = (res: Response) => [
    res.headers['x-ratelimit-limit'],
    res.headers['x-ratelimit-remaining'],
  ];
  const expectReset = (res: Response) => {
    const reset = Number(res.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThanOrEqual(3500);
    expect(reset).toBeLessThanOrEqual(3600);
  };

  /** One request of each create-API endpoint for a project key (the update target made beforehand). */
  const endpoints: [string, (key: string, target: string) => Test][] = [
    [
      'POST url.json',
      (key) =>
        t.http
          .post('/url.json')
          .type('form')
          .send({ v: '3', key, tool: 'x', channel: 'email', url: 'https://example.com/' }),
    ],
    [
      'GET url.txt',
      (key) =>
        t.http
          .get('/url.txt')
          .query({ v: '3', key, tool: 'x', channel: 'email', url: 'https://example.com/' }),
    ],
    [
      'POST url/batch.json',
      (key) =>
        t.http
          .post('/url/batch.json')
          .type('form')
          .send({ v: '3', key, tool: 'x', channel: 'email', url: 'https://example.com/' }),
    ],
    [
      'GET url/static.json',
      (key) =>
        t.http
          .get('/url/static.json')
          .query({ v: '3', key, tool: 'x', url: 'https://example.com/' }),
    ],
    [
      'POST url/retweet.json',
      (key) =>
        t.http
          .post('/url/retweet.json')
          .type('form')
          .send({ v: '3', key, tool: 'x', channel: 'email', text: 'http://example.com/' }),
    ],
    [
      'GET url/retweet',
      (key) =>
        t.http
          .get('/url/retweet')
          .query({ v: '3', key, tool: 'x', channel: 'email', text: 'http://example.com/' }),
    ],
    [
      'POST url/update',
      (key, target) =>
        t.http
          .post(`/url/update/${target}.json`)
          .type('form')
          .send({ v: '3', key, tool: 'x', tag: 'u' }),
    ],
  ];

  it('counts down in X-RateLimit-* headers, then answers 429 in the link error shape', async () => {
    const key = await newKey();
    for (const remaining of ['2', '1', '0']) {
      const res = await endpoints[0][1](key, '').expect(200);
      expect(rateHeaders(res)).toEqual(['3', remaining]);
      expectReset(res);
    }
    const limited = await endpoints[0][1](key, '').expect(429);
    expect(limited.body).toEqual(LIMITED);
    expect(rateHeaders(limited)).toEqual(['3', '0']);
    expectReset(limited);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3500);
    // Both say when the window ends, when the project is let in again.
    expect(
      Math.abs(
        Number(limited.headers['retry-after']) - Number(limited.headers['x-ratelimit-reset']),
      ),
    ).toBeLessThanOrEqual(1);
    const txt = await endpoints[1][1](key, '').expect(429);
    expect(txt.text).toBe(LIMITED.error_message);
  });

  it.each(endpoints.map(([name], i) => [name, i] as const))('limits %s', async (_endpoint, i) => {
    const key = await newKey();
    const target = i === 6 ? (await createLink(t, key)).svc_id : '';
    // createLink spent one request of the project's budget.
    const allowed = i === 6 ? 2 : 3;
    for (let n = 0; n < allowed; n++) await endpoints[i][1](key, target).expect(200);
    const res = await endpoints[i][1](key, target).expect(429);
    if (endpoints[i][0].includes('.txt')) expect(res.text).toBe(LIMITED.error_message);
    else expect(res.body).toEqual(LIMITED);
  });

  it('counts create, batch, static, retweet and update together, whatever the method', async () => {
    const key = await newKey();
    const link = await createLink(t, key);
    await endpoints[2][1](key, '').expect(200);
    await endpoints[3][1](key, '').expect(200);
    for (const [name, send] of endpoints) {
      const res = await send(key, link.svc_id);
      expect([name, res.status, name.includes('.txt') ? res.text : res.body]).toEqual([
        name,
        429,
        name.includes('.txt') ? LIMITED.error_message : LIMITED,
      ]);
    }
  });

  it('counts per project key: another project is not limited', async () => {
    const exhausted = await newKey();
    for (let n = 0; n < 3; n++) await endpoints[0][1](exhausted, '').expect(200);
    await endpoints[0][1](exhausted, '').expect(429);
    const other = await newKey();
    const res = await endpoints[0][1](other, '').expect(200);
    expect(rateHeaders(res)).toEqual(['3', '2']);
  });

  it('counts the key that authenticated: a form key wins over a throwaway one in the query string', async () => {
    const key = await newKey();
    for (const remaining of ['2', '1', '0']) {
      const res = await t.http
        .post(`/url.json?key=throwaway${remaining}`)
        .type('form')
        .send({ v: '3', key, tool: 'x', channel: 'email', url: 'https://example.com/' })
        .expect(200);
      expect(rateHeaders(res)).toEqual(['3', remaining]);
    }
    await t.http
      .post('/url.json?key=throwaway')
      .type('form')
      .send({ v: '3', key, tool: 'x', channel: 'email', url: 'https://example.com/' })
      .expect(429);
  });

  it('counts a key given in the query and in the form body alike', async () => {
    const key = await newKey();
    await t.http
      .post(`/url.json?key=${key}`)
      .type('form')
      .send({ v: '3', tool: 'x', channel: 'email', url: 'https://example.com/' })
      .expect(200);
    const res = await endpoints[0][1](key, '').expect(200);
    expect(rateHeaders(res)).toEqual(['3', '1']);
  });
});

describe('the rate limit window on Redis', () => {
  let redis: Redis;
  const prefix = `svctest:${process.pid}:window`;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('refuses over the limit until the window ends, then lets the key in again (no second window of blocking)', async () => {
    const storage = new FixedWindowStorage(redis, prefix);
    const hit = () => storage.increment('k', 1000, 2, 1000, 'default');
    expect((await hit()).isBlocked).toBe(false);
    expect((await hit()).isBlocked).toBe(false);
    const over = await hit();
    expect(over).toMatchObject({
      totalHits: 3,
      isBlocked: true,
      timeToExpire: 1,
      timeToBlockExpire: 1,
    });
    // The window ends when its key expires.
    await eventually(
      'the end of the window',
      async () => (await redis.exists(`${prefix}:throttle:default:k`)) === 0,
      5000,
    );
    expect(await hit()).toMatchObject({
      totalHits: 1,
      isBlocked: false,
      timeToExpire: 1,
      timeToBlockExpire: 0,
    });
  });
});
