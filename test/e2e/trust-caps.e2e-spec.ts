import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getStorageToken } from '@nestjs/throttler';
import Redis from 'ioredis';
import type { Response } from 'supertest';
import { FixedWindowStorage } from '../../src/rate-limit/fixed-window.storage';
import { COUNTRY_CODES } from '../../src/links/controls/country-codes';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { TestApp, createTestApp } from '../support/app';
import { TEST_REDIS_URL } from '../support/env';

/**
 * The caps, and `url` on update, each written as the attack (docs/api.md, "Limits", "Link
 * controls", "Listing links", "Tracked links": update).
 */

const CODES = [...COUNTRY_CODES];
/** An absolute URL of exactly `length` characters. */
const urlOf = (length: number) => `https://example.com/${'a'.repeat(length - 20)}`;
/** Geo rules for the first `count` country codes, each to a URL of `length` characters. */
const geoOf = (count: number, length = 30) =>
  JSON.stringify(Object.fromEntries(CODES.slice(0, count).map((code) => [code, urlOf(length)])));
const invalid = (parameter: string, why: string) => ({
  error: 400,
  error_message: `Invalid parameter ${parameter}: ${why}`,
});
const GEO_TOO_BIG = invalid('geo', 'must be at most 16384 bytes of JSON');

describe('caps on link controls, url on update, the order by clicks of a search', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  const create = (params: Record<string, unknown>, k = key) =>
    t.http
      .post('/url.json')
      .type('form')
      .send({
        v: '3',
        key: k,
        tool: 'pub',
        channel: 'email',
        url: 'https://example.com/landing',
        ...params,
      });
  const update = (svcId: string, params: Record<string, unknown>) =>
    t.http
      .post(`/url/update/${svcId}.json`)
      .type('form')
      .send({ v: '3', key, tool: 'publisher-sharebar', ...params });
  const linksOf = async (apiKey: string) =>
    Number(
      (
        await t.db.query<{ n: string }>(
          'SELECT count(*) AS n FROM links l JOIN projects p ON p.id = l.project_id WHERE p.api_key = $1',
          [apiKey],
        )
      ).rows[0].n,
    );

  it('geo rules of 80 KB are refused (400 naming geo) on create, static, update and a batch of 1,000 links', async () => {
    const big = geoOf(20, 4000);
    expect(big.length).toBeGreaterThan(80_000);
    const fresh = (await createProject(t)).api_key;
    expect((await create({ geo: big }, fresh)).body).toEqual(GEO_TOO_BIG);
    const json = await t.http
      .post('/url.json')
      .send({
        v: '3',
        key: fresh,
        tool: 'pub',
        channel: 'email',
        url: 'https://example.com/',
        geo: JSON.parse(big) as unknown,
      })
      .expect(400);
    expect(json.body).toEqual(GEO_TOO_BIG);
    const static_ = await t.http
      .post('/url/static.json')
      .type('form')
      .send({ v: '3', key: fresh, tool: 'pub', url: 'https://example.com/s', geo: big })
      .expect(400);
    expect(static_.body).toEqual(GEO_TOO_BIG);
    const urls = Array.from(
      { length: 1000 },
      (_, i) => `url[]=${encodeURIComponent(`https://example.com/${i}`)}`,
    );
    const batch = await t.http
      .post('/url/batch.json')
      .type('form')
      .send(
        [
          `v=3`,
          `key=${fresh}`,
          'tool=pub',
          'channel=email',
          ...urls,
          `geo=${encodeURIComponent(big)}`,
        ].join('&'),
      )
      .expect(400);
    expect(batch.body).toEqual(GEO_TOO_BIG);
    expect(await linksOf(fresh)).toBe(0);
    const link = await createLink(t, key);
    expect((await update(link.svc_id, { geo: big }).expect(400)).body).toEqual(GEO_TOO_BIG);
  });

  it('geo rules: 50 countries are taken, 51 refused (400 naming geo), as a string or an object', async () => {
    const fifty = await create({ geo: geoOf(50) }).expect(200);
    expect(Object.keys(fifty.body.geo as object)).toHaveLength(50);
    const many = invalid('geo', 'at most 50 countries');
    expect((await create({ geo: geoOf(51) }).expect(400)).body).toEqual(many);
    const object = await t.http
      .post('/url.json')
      .send({
        v: '3',
        key,
        tool: 'pub',
        channel: 'email',
        url: 'https://example.com/',
        geo: JSON.parse(geoOf(51)) as unknown,
      })
      .expect(400);
    expect(object.body).toEqual(many);
    // geo[XX]=… in a form is an object too.
    const bracket = CODES.slice(0, 51).map(
      (code) => `geo[${code}]=${encodeURIComponent(urlOf(30))}`,
    );
    const form = await t.http
      .post('/url.json')
      .type('form')
      .send(
        [
          `v=3`,
          `key=${key}`,
          'tool=pub',
          'channel=email',
          'url=https%3A%2F%2Fexample.com%2F',
          ...bracket,
        ].join('&'),
      )
      .expect(400);
    expect(form.body).toEqual(many);
  });

  it('every URL control is at most 4,096 characters (400 naming it)', async () => {
    const long = urlOf(5000);
    for (const name of ['expired_url', 'ios_url', 'android_url']) {
      const res = await create({ [name]: long }).expect(400);
      expect(res.body).toEqual(invalid(name, 'must be at most 4096 characters'));
    }
    const geo = await create({ geo: JSON.stringify({ us: long }) }).expect(400);
    expect(geo.body).toEqual(invalid('geo.us', 'must be at most 4096 characters'));
    const exact = urlOf(4096);
    const taken = await create({
      expired_url: exact,
      ios_url: exact,
      android_url: exact,
      geo: JSON.stringify({ US: exact }),
    }).expect(200);
    expect([taken.body.ios_url, taken.body.geo]).toEqual([exact, { US: exact }]);
  });

  it('update takes a valid url and ignores it (original_url never changes); a malformed url is a 400', async () => {
    const link = await createLink(t, key, { tag: 'before' });
    // The public Ruby client of the original service sends url on every update.
    const res = await update(link.svc_id, {
      url: 'https://evil.example/phish',
      tag: 'after',
    }).expect(200);
    expect(res.body).toEqual({ ...link, tag: 'after', updated_at: res.body.updated_at });
    const only = await update(link.svc_id, {
      url: 'https://example.com/page',
    }).expect(200);
    expect(only.body).toEqual({ ...link, tag: 'after', updated_at: only.body.updated_at });
    for (const url of ['not a url', 'javascript:alert(1)', urlOf(4097)]) {
      const bad = await update(link.svc_id, { url, tag: 'x' }).expect(400);
      expect(bad.body).toEqual(
        url.length > 4096
          ? invalid('url', 'must be at most 4096 characters')
          : invalid('url', 'must be an absolute http(s) URL'),
      );
    }
    // url is no metadata: with controls only, an update is taken after the 30 days too.
    await t.db.query(`UPDATE links SET created_at = now() - interval '40 days' WHERE svc_id = $1`, [
      link.svc_id,
    ]);
    const old = await update(link.svc_id, {
      url: 'https://example.com/page',
      disabled: 'true',
    }).expect(200);
    expect([old.body.original_url, old.body.disabled, old.body.tag]).toEqual([
      link.original_url,
      true,
      'after',
    ]);
    const stored = await t.db.query<{ original_url: string; redirect_url: string }>(
      'SELECT original_url, redirect_url FROM links WHERE svc_id = $1',
      [link.svc_id],
    );
    expect(stored.rows).toEqual([
      { original_url: link.original_url, redirect_url: link.redirect_url },
    ]);
  });

  it('sort_type=clicks over a search finding more than 50,000 links is a 400 naming search', async () => {
    const bulk = (await createProject(t)).api_key;
    const template = await createLink(t, bulk, { url: 'https://example.com/bulkword/0' });
    const { rows } = await t.db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'links'
         AND column_name NOT IN ('id', 'svc_id', 'path', 'static_key') ORDER BY ordinal_position`,
    );
    const columns = rows.map((row) => `"${row.column_name}"`).join(', ');
    await t.db.query(
      `INSERT INTO links (svc_id, path, ${columns})
       SELECT 'svc.test_bulk' || g, 'bulk' || g, ${columns}
       FROM links CROSS JOIN generate_series(1, 50000) g WHERE svc_id = $1`,
      [template.svc_id],
    );
    const list = (params: Record<string, string>) =>
      t.http.get('/url/list.json').query({ v: '3', key: bulk, ...params });
    const tooMany = await list({ search: 'bulkword', sort_type: 'clicks' }).expect(400);
    expect(tooMany.body).toEqual(
      invalid(
        'search',
        'finds more than 50000 links, too many to sort by clicks: add words or filters, or sort by created_at',
      ),
    );
    // The same search by creation, and a narrower one by clicks, are answered.
    const byCreation = await list({ search: 'bulkword', per_page: '1' }).expect(200);
    expect(byCreation.body.total_results).toBe(50_001);
    await t.db.query(
      `UPDATE links SET notes = 'rare' WHERE svc_id IN ('svc.test_bulk7', 'svc.test_bulk9')`,
    );
    const narrow = await list({ search: 'bulkword rare', sort_type: 'clicks' }).expect(200);
    expect(
      (narrow.body.links as { svc_id: string; clicks: number }[]).map((l) => [l.svc_id, l.clicks]),
    ).toEqual([
      ['svc.test_bulk9', 0],
      ['svc.test_bulk7', 0],
    ]);
  });
});

const readLimited = {
  error: 429,
  error_message:
    'Rate limit exceeded: at most 5 list, statistics and live-feed requests per hour per project',
};
const createLimited = {
  error: 429,
  error_message: 'Rate limit exceeded: at most 20 create requests per hour per project',
};

describe.each([
  ['Redis', true],
  ['the in-process storage', false],
])('rate limits (READ_RATE_LIMIT=5, CREATE_RATE_LIMIT=20) on %s', (_name, redis) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ redis, env: { READ_RATE_LIMIT: '5', CREATE_RATE_LIMIT: '20' } });
  });
  afterAll(() => t.close());

  const period = { start_date: '2026-01-01', end_date: '2026-01-02' };
  const list = (key: string, format = 'json') =>
    t.http.get(`/url/list.${format}`).query({ v: '3', key });
  const range = (key: string) => t.http.get('/stats/range.json').query({ v: '3', key, ...period });
  const headers = (res: Response) => [
    res.headers['x-ratelimit-limit'],
    res.headers['x-ratelimit-remaining'],
  ];
  const expectRetryAfter = (res: Response) => {
    const retry = Number(res.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(3500);
    expect(retry).toBeLessThanOrEqual(3600);
    expect(res.headers['x-ratelimit-reset']).toBe(res.headers['retry-after']);
  };

  it('url/list and statistics share a budget per project: over it, 429 in the endpoint’s shape with Retry-After', async () => {
    const { api_key: key } = await createProject(t);
    const link = await createLink(t, key);
    const answers = [
      await list(key),
      await range(key),
      await t.http.get('/stats/totals.json').query({ v: '3', key, ...period }),
      await t.http.post(`/stats/${link.svc_id}.json`).type('form').send({ v: '3', key }),
      await list(key, 'txt'),
    ];
    expect(answers.map((res) => [res.status, ...headers(res)])).toEqual([
      [200, '5', '4'],
      [200, '5', '3'],
      [200, '5', '2'],
      [200, '5', '1'],
      [200, '5', '0'],
    ]);
    const limited = await list(key).expect(429);
    expect(limited.body).toEqual(readLimited);
    expect(headers(limited)).toEqual(['5', '0']);
    expectRetryAfter(limited);
    expect((await list(key, 'txt').expect(429)).text).toBe(readLimited.error_message);
    const stats = await range(key).expect(429);
    expect(stats.body).toEqual(readLimited);
    expectRetryAfter(stats);
    const intervals = await t.http
      .get(`/stats/${link.svc_id}/intervals.json`)
      .query({ v: '3', key, ...period })
      .expect(429);
    expect(intervals.body).toEqual(readLimited);
    // The create API has its own budget; another project has its own reads.
    await createLink(t, key);
    const { api_key: other } = await createProject(t);
    expect(headers(await list(other).expect(200))).toEqual(['5', '4']);
  });

  it('opening the live feed counts in the read budget', async () => {
    const server: http.Server = t.app.getHttpServer();
    if (!server.listening) {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    }
    const { port } = server.address() as AddressInfo;
    const { api_key: key } = await createProject(t);
    /** Opens the stream and closes it once its headers arrive: their status. */
    const open = () =>
      new Promise<number>((resolve, reject) => {
        const req = http.get(`http://127.0.0.1:${port}/events/stream?key=${key}`, (res) => {
          resolve(res.statusCode ?? 0);
          req.destroy();
        });
        req.on('error', reject);
      });
    for (let i = 0; i < 5; i++) expect(await open()).toBe(200);
    const limited = await t.http.get('/events/stream').query({ key }).expect(429);
    expect(limited.body).toEqual(readLimited);
    expectRetryAfter(limited);
    // The budget is the project's: its list is over it too.
    expect((await list(key).expect(429)).body).toEqual(readLimited);
  });

  it('totals over several projects count in the read budget of each', async () => {
    const a = (await createProject(t)).api_key;
    const b = (await createProject(t)).api_key;
    await t.http
      .get(`/stats/totals.json?key[]=${a}&key[]=${b}`)
      .query({ v: '3', ...period })
      .expect(200);
    expect(headers(await list(a).expect(200))).toEqual(['5', '3']);
    expect(headers(await list(b).expect(200))).toEqual(['5', '3']);
  });

  it('200 requests with random invalid keys create no entry per key and are limited per client address', async () => {
    const entries = async (): Promise<number> => {
      if (!redis) return t.app.get<FixedWindowStorage>(getStorageToken(), { strict: false }).size;
      const client = new Redis(TEST_REDIS_URL);
      try {
        return (await client.keys(`${t.config.redisPrefix}:throttle:*`)).length;
      } finally {
        client.disconnect();
      }
    };
    const { api_key: key } = await createProject(t);
    const before = await entries();
    const statuses: number[] = [];
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          t.http
            .post('/url.json')
            .type('form')
            .send({
              v: '3',
              // Half look like API keys (and are looked up), half are anything.
              key:
                i % 2 === 0
                  ? randomBytes(32).toString('hex')
                  : `guess-${randomBytes(8).toString('hex')}`,
              tool: 'pub',
              channel: 'email',
              url: 'https://example.com/',
            }),
        ),
      );
      statuses.push(...answers.map((res) => res.status));
      for (const res of answers) {
        expect(res.body).toEqual(
          res.status === 403
            ? { error: 403, error_message: 'Invalid API key specified' }
            : createLimited,
        );
      }
    }
    expect([
      statuses.filter((s) => s === 403).length,
      statuses.filter((s) => s === 429).length,
    ]).toEqual([20, 180]);
    // One window for the address, none per key.
    expect((await entries()) - before).toBe(1);
    // The reads count unknown keys per address too, in their own budget.
    const reads = [];
    for (let i = 0; i < 7; i++) reads.push((await list(randomBytes(32).toString('hex'))).status);
    expect(reads).toEqual([403, 403, 403, 403, 403, 429, 429]);
    expect((await entries()) - before).toBe(2);
    // A publishable key (published in pages) does not spend its project's reads where it is
    // refused: it is counted for the address, already over.
    const { api_key: own, publishable_key: published } = await createProject(t);
    const refused = [];
    for (let i = 0; i < 3; i++) refused.push((await list(published)).status);
    expect(refused).toEqual([429, 429, 429]);
    expect(headers(await list(own).expect(200))).toEqual(['5', '4']);
    // A project's own key from the same address is counted for its project, not the address.
    const res = await t.http
      .post('/url.json')
      .type('form')
      .send({ v: '3', key, tool: 'pub', channel: 'email', url: 'https://example.com/' })
      .expect(200);
    expect(headers(res)).toEqual(['20', '19']);
    expect(headers(await list(key).expect(200))).toEqual(['5', '4']);
  });
});
