import { storage } from 'nestjs-pino/storage';
import { TestApp, createTestApp } from '../support/app';

describe('health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers liveness', async () => {
    const res = await t.http.get('/health').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('reports database and Redis ready', async () => {
    const res = await t.http.get('/health/ready').expect(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.details).toEqual({ database: { status: 'up' }, redis: { status: 'up' } });
  });

  it('serves the OpenAPI document and the console', async () => {
    const doc = await t.http.get('/docs-json').expect(200);
    expect(doc.body.info.title).toBe('svc');
    await t.http.get('/docs').expect(200);
  });

  it('echoes a valid X-Request-Id and makes one otherwise', async () => {
    const given = await t.http.get('/health').set('X-Request-Id', 'abc-123').expect(200);
    expect(given.headers['x-request-id']).toBe('abc-123');
    const made = await t.http.get('/health').set('X-Request-Id', 'bad id!').expect(200);
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves API requests without an AsyncLocalStorage (which would turn on async hooks for every redirect)', async () => {
    await t.http.get('/health').expect(200);
    await t.http.get('/stats/range.json').query({ v: '3', key: 'nope' }).expect(403);
    // Node 20's AsyncLocalStorage turns `enabled` on at its first run(), and its hooks with it.
    expect((storage as unknown as { enabled: boolean }).enabled).toBe(false);
  });
});
