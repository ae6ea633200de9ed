import 'reflect-metadata';
import { BROWSER } from '../support/clicks';
import { EmbeddedApp, startEmbeddedApp } from '../support/embedded-app';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15';

/** Link controls on the embedded database (PGlite: its jsonb and booleans) with in-process jobs. */
describe('embedded (PGlite, in-process jobs): link controls', () => {
  let embedded: EmbeddedApp;
  let http: EmbeddedApp['http'];
  let key: string;

  beforeAll(async () => {
    embedded = await startEmbeddedApp('embedded_controls', { TRUST_PROXY: 'true' });
    ({ http, key } = embedded);
  }, 60_000);

  afterAll(() => embedded?.close());

  const visit = (linkPath: string, agent = BROWSER, ip = '192.0.2.1') =>
    http
      .get(`/${linkPath}`)
      .set('Host', 'svc.test')
      .set('User-Agent', agent)
      .set('X-Forwarded-For', ip);

  it('stores, shows, applies and clears every control', async () => {
    const created = await http
      .post('/url.json')
      .type('form')
      .send({
        v: '3',
        key,
        tool: 't',
        channel: 'email',
        url: 'https://example.com/page',
        max_clicks: '2',
        expired_url: 'https://example.com/over',
        ios_url: 'https://example.com/ios',
        geo: '{"US":"https://example.com/us"}',
      })
      .expect(200);
    const link = created.body as { svc_id: string; path: string };
    expect(created.body).toMatchObject({
      max_clicks: 2,
      expired_url: 'https://example.com/over',
      ios_url: 'https://example.com/ios',
      geo: { US: 'https://example.com/us' },
    });
    expect((await visit(link.path, IPHONE).expect(302)).headers.location).toBe(
      'https://example.com/ios',
    );
    expect((await visit(link.path, BROWSER, '8.8.8.8').expect(302)).headers.location).toBe(
      'https://example.com/us',
    );
    expect((await visit(link.path).expect(302)).headers.location).toBe('https://example.com/over');
    const update = (params: Record<string, string>) =>
      http
        .post(`/url/update/${link.svc_id}.json`)
        .type('form')
        .send({ v: '3', key, tool: 'u', ...params })
        .expect(200);
    const protectedLink = await update({ max_clicks: '', disabled: 'true', password: 'pw' });
    expect(protectedLink.body).toMatchObject({ disabled: true, password_protected: true });
    expect(protectedLink.body.max_clicks).toBeUndefined();
    await visit(link.path).expect(404);
    await update({ disabled: 'false' });
    expect((await visit(link.path).expect(200)).text).toContain('<label for="password">');
    const right = await http
      .post(`/${link.path}`)
      .set('Host', 'svc.test')
      .set('User-Agent', BROWSER)
      .type('form')
      .send({ password: 'pw' })
      .expect(302);
    expect(right.headers.location).toBe('https://example.com/page');
    const cleared = await update({
      expired_url: '',
      ios_url: '',
      geo: '',
      password: '',
    });
    for (const field of [
      'max_clicks',
      'expired_url',
      'ios_url',
      'geo',
      'password_protected',
      'disabled',
    ])
      expect(cleared.body).not.toHaveProperty(field);
    expect((await visit(link.path, IPHONE).expect(302)).headers.location).toBe(
      'https://example.com/page',
    );
  });
});
