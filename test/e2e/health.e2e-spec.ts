import { storage } from 'nestjs-pino/storage';
import { AnalyticsUnavailableError } from '../../src/analytics/analytics-client';
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

  it('reports database, analytics store and Redis ready', async () => {
    const res = await t.http.get('/health/ready').expect(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.details).toEqual({
      database: { status: 'up' },
      clickhouse: { status: 'up', store: `embedded chDB in ${t.config.chdbDir}` },
      redis: { status: 'up' },
    });
  });

  it('reports the analytics store down when it does not answer (503)', async () => {
    const ping = jest
      .spyOn(t.analytics, 'ping')
      .mockRejectedValueOnce(
        new AnalyticsUnavailableError(new Error('connect ECONNREFUSED 127.0.0.1:8123')),
      );
    const res = await t.http.get('/health/ready').expect(503);
    expect(res.body.status).toBe('error');
    expect(res.body.details.database).toEqual({ status: 'up' });
    expect(res.body.details.clickhouse).toEqual({
      status: 'down',
      store: `embedded chDB in ${t.config.chdbDir}`,
      message: expect.stringContaining('ECONNREFUSED'),
    });
    ping.mockRestore();
  });

  it('exports the analytics store metrics: query and insert latency, rows inserted', async () => {
    await t.http.get('/stats/range.json').query({ v: '3', key: 'x'.repeat(64) });
    const text = (await t.http.get('/metrics').expect(200)).text;
    expect(text).toMatch(/^svc_analytics_query_duration_seconds_count\{outcome="ok"\} [1-9]/m);
    expect(text).toContain('# TYPE svc_analytics_insert_duration_seconds histogram');
    expect(text).toContain('# TYPE svc_analytics_rows_inserted_total counter');
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
