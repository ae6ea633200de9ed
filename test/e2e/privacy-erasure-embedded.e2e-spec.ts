import { EmbeddedApp, startEmbeddedApp } from '../support/embedded-app';

/**
 * Erasure on the embedded stores (PGlite and chDB, as `npm start` runs): the receipt counts the
 * rows PGlite changed, and the same erasure again answers zeros (docs/api.md, "Erasure").
 */
describe('erasure on the embedded stores', () => {
  let e: EmbeddedApp;
  beforeAll(async () => {
    e = await startEmbeddedApp(`erasure_${process.pid}`);
  });
  afterAll(() => e.close());

  it('erases a session and counts the rows; again, zeros', async () => {
    const admin = (route: string, json: unknown) =>
      e.http
        .post(route)
        .type('form')
        .send({ ...e.keys, json: JSON.stringify(json) });
    await admin(`/projects/${e.key}/update`, {
      conversions: { enabled: true, domains: 'all' },
    }).expect(200);
    const link = await e.http
      .post('/url.json')
      .type('form')
      .send({ v: '3', key: e.key, tool: 'bar', channel: 'twitter', url: 'https://example.com/' })
      .expect(200);
    await e.http
      .get('/conversions/new')
      .query({
        key: e.key,
        svc_url: link.body.svc_id as string,
        conversion_type: 'goal_1',
        conversion_value: '1',
        session_id: 'embedded-session',
        ip: '81.2.69.160',
        user_agent: 'Embedded/1.0',
      })
      .expect(200);
    const first = await admin(`/projects/${e.key}/erase`, { session_id: 'embedded-session' });
    expect(first.status).toBe(200);
    expect(first.body.response.erasure.rows.postgresql).toMatchObject({ conversions: 1 });
    const again = await admin(`/projects/${e.key}/erase`, { session_id: 'embedded-session' });
    expect(again.body.response.erasure.rows.postgresql).toMatchObject({ conversions: 0 });
    const listed = await e.http.get(`/projects/${e.key}/erasures`).query(e.keys).expect(200);
    expect(listed.body.response.total_results).toBe(2);
  });
});
