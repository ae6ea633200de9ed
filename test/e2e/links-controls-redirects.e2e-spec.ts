import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TestApp, createTestApp } from '../support/app';
import { startSiblingApp } from '../support/sibling-app';
import { connectDomain, createProject } from '../factories/projects';
import { createLink } from '../factories/links';
import { BROWSER, GOOGLEBOT, clickCounts } from '../support/clicks';
import { eventually } from '../support/eventually';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const IPAD =
  'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1';
const IPOD =
  'Mozilla/5.0 (iPod touch; CPU iPhone OS 12_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.1.2 Mobile/15E148 Safari/604.1';
const ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36';

/** Only Date is faked: the clock stands at a known instant while timers and I/O run. */
function fakeDate(at: number): void {
  jest.useFakeTimers({
    now: at,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
}

/** Link controls as redirects apply them (docs/api.md, "Link controls"). */
describe('link controls: redirects', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: 'true' } });
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());
  afterEach(() => jest.useRealTimers());

  const visit = (
    link: { path: string },
    agent = BROWSER,
    ip?: string,
    host = 'svc.test',
    method: 'get' | 'head' = 'get',
  ) => {
    const req = t.http[method](`/${link.path}`).set('Host', host).set('User-Agent', agent);
    return ip === undefined ? req : req.set('X-Forwarded-For', ip);
  };
  const counts = async (svcId: string) => {
    await t.settle();
    const { clicks, bots } = (await clickCounts(t, [svcId]))[svcId];
    return { clicks, bots };
  };
  const update = (svcId: string, params: Record<string, string>) =>
    t.http
      .post(`/url/update/${svcId}.json`)
      .type('form')
      .send({ v: '3', key, tool: 'updater', ...params })
      .expect(200);

  it('expires_at: redirects until the second before, then answers as an unknown path (not counted)', async () => {
    const expires = Math.floor(Date.now() / 1000) + 60;
    const link = await createLink(t, key, { expires_at: String(expires) });
    const sent = await createLink(t, key, {
      expires_at: String(expires),
      expired_url: 'https://example.com/ended',
    });
    fakeDate(expires * 1000 - 1);
    expect((await visit(link).expect(302)).headers.location).toBe('https://example.com/page');
    expect((await visit(sent).expect(302)).headers.location).toBe('https://example.com/page');
    fakeDate(expires * 1000);
    const gone = await visit(link).expect(404);
    expect(gone.text).toContain('Link not found');
    await t.http.head(`/${link.path}`).set('Host', 'svc.test').expect(404);
    expect((await visit(sent).expect(302)).headers.location).toBe('https://example.com/ended');
    jest.useRealTimers();
    expect(await counts(link.svc_id)).toEqual({ clicks: 1, bots: 0 });
    expect(await counts(sent.svc_id)).toEqual({ clicks: 1, bots: 0 });
  });

  it('max_clicks: N counted clicks, bots and HEAD not counted, then the expired answer', async () => {
    const link = await createLink(t, key, { max_clicks: '3' });
    await visit(link).expect(302);
    await visit(link, GOOGLEBOT).expect(302);
    await visit(link, BROWSER, undefined, 'svc.test', 'head').expect(302);
    await visit(link).expect(302);
    await visit(link).expect(302);
    await visit(link).expect(404);
    await visit(link, GOOGLEBOT).expect(404);
    expect(await counts(link.svc_id)).toEqual({ clicks: 3, bots: 1 });
    const sent = await createLink(t, key, {
      max_clicks: '1',
      expired_url: 'https://example.com/sold-out',
    });
    await visit(sent).expect(302);
    expect((await visit(sent).expect(302)).headers.location).toBe('https://example.com/sold-out');
    expect(await counts(sent.svc_id)).toEqual({ clicks: 1, bots: 0 });
    // Raised, the link redirects again; removed, it has no limit.
    await update(sent.svc_id, { max_clicks: '2' });
    expect((await visit(sent).expect(302)).headers.location).toBe('https://example.com/page');
    expect((await visit(sent).expect(302)).headers.location).toBe('https://example.com/sold-out');
    await update(sent.svc_id, { max_clicks: '' });
    expect((await visit(sent).expect(302)).headers.location).toBe('https://example.com/page');
  });

  it('max_clicks: another instance (or a restarted one) reads the clicks stored so far', async () => {
    const link = await createLink(t, key, { max_clicks: '3' });
    await visit(link).expect(302);
    await visit(link).expect(302);
    expect(await counts(link.svc_id)).toEqual({ clicks: 2, bots: 0 });
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-sibling-'));
    const sibling = await startSiblingApp(t, dataDir);
    try {
      const there = (agent = BROWSER) =>
        sibling.http.get(`/${link.path}`).set('Host', 'svc.test').set('User-Agent', agent);
      await there().expect(302);
      await there().expect(404);
    } finally {
      await sibling.app.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(await counts(link.svc_id)).toEqual({ clicks: 3, bots: 0 });
  });

  it('disabled: answers as an unknown path on its domain, not counted, statistics kept; enabled again', async () => {
    const project = await createProject(t);
    await connectDomain(t, 'go.controls.test', [project.api_key]);
    const res = await t.http
      .get('/url.json')
      .query({
        v: '3',
        key: project.api_key,
        tool: 't',
        channel: 'email',
        url: 'https://example.com/d',
        domain: 'go.controls.test',
      })
      .expect(200);
    const link = res.body as { svc_id: string; path: string };
    const own = await createLink(t, key);
    await visit(link, BROWSER, undefined, 'go.controls.test').expect(302);
    await visit(own).expect(302);
    const off = (svcId: string, k: string, disabled: string) =>
      t.http
        .post(`/url/update/${svcId}.json`)
        .type('form')
        .send({ v: '3', key: k, tool: 'updater', disabled })
        .expect(200);
    await off(link.svc_id, project.api_key, 'true');
    await off(own.svc_id, key, 'true');
    const missing = await visit(link, BROWSER, undefined, 'go.controls.test').expect(302);
    expect(missing.headers.location).toBe('https://go.controls.test.example/404');
    expect((await visit(own).expect(404)).text).toContain('Link not found');
    expect(await counts(link.svc_id)).toEqual({ clicks: 1, bots: 0 });
    await off(link.svc_id, project.api_key, 'false');
    await off(own.svc_id, key, 'false');
    await visit(link, BROWSER, undefined, 'go.controls.test').expect(302);
    expect((await visit(own).expect(302)).headers.location).toBe('https://example.com/page');
    expect(await counts(link.svc_id)).toEqual({ clicks: 2, bots: 0 });
    expect(await counts(own.svc_id)).toEqual({ clicks: 2, bots: 0 });
  });

  it('ios_url and android_url by the user agent; other agents get the usual target', async () => {
    const link = await createLink(t, key, {
      ios_url: 'https://example.com/ios',
      android_url: 'https://example.com/android',
    });
    const where = async (agent: string) => (await visit(link, agent).expect(302)).headers.location;
    expect(await where(IPHONE)).toBe('https://example.com/ios');
    expect(await where(IPAD)).toBe('https://example.com/ios');
    expect(await where(IPOD)).toBe('https://example.com/ios');
    expect(await where(ANDROID)).toBe('https://example.com/android');
    expect(await where(BROWSER)).toBe('https://example.com/page');
    expect(await counts(link.svc_id)).toEqual({ clicks: 5, bots: 0 });
  });

  it('geo by the visitor’s country (X-Forwarded-For with TRUST_PROXY) first, then the device', async () => {
    const link = await createLink(t, key, {
      geo: JSON.stringify({ US: 'https://example.com/us', GB: 'https://example.com/gb' }),
      ios_url: 'https://example.com/ios',
    });
    const where = async (ip: string | undefined, agent = BROWSER) =>
      (await visit(link, agent, ip).expect(302)).headers.location;
    expect(await where('8.8.8.8')).toBe('https://example.com/us');
    expect(await where('81.2.69.142', IPHONE)).toBe('https://example.com/gb');
    // No country (a documentation range, or the loopback connection): the device, then the usual.
    expect(await where('192.0.2.10', IPHONE)).toBe('https://example.com/ios');
    expect(await where(undefined)).toBe('https://example.com/page');
    expect(await counts(link.svc_id)).toEqual({ clicks: 4, bots: 0 });
  });

  it('redirection patterns, UTM and svc= apply to the URL chosen, set on create or on update', async () => {
    const project = await createProject(t, {
      redirection_patterns: {
        'apps.example.com': 'https://apps.example.com/r?to=%escaped_original_url%',
      },
      utm_parameters: true,
      conversions: { enabled: true, domains: ['shop.example.com'] },
    });
    const res = await t.http
      .get('/url.json')
      .query({
        v: '3',
        key: project.api_key,
        tool: 'pub-bar',
        channel: 'email',
        url: 'https://elsewhere.example/p',
        ios_url: 'https://apps.example.com/ios?x=1',
        geo: JSON.stringify({ US: 'https://shop.example.com/us' }),
      })
      .expect(200);
    const link = res.body as { svc_id: string; path: string };
    const utm = `utm_medium=svc.test-email&utm_source=direct-svc.test&utm_content=pub-bar`;
    const us = (await visit(link, BROWSER, '8.8.8.8').expect(302)).headers.location;
    expect(us).toBe(`https://shop.example.com/us?${utm}&svc=${encodeURIComponent(link.svc_id)}`);
    const ios = (await visit(link, IPHONE).expect(302)).headers.location;
    expect(ios).toBe(
      `https://apps.example.com/r?to=${encodeURIComponent('https://apps.example.com/ios?x=1')}&${utm}`,
    );
    expect((await visit(link).expect(302)).headers.location).toBe(
      `https://elsewhere.example/p?${utm}`,
    );
    await t.http
      .post(`/url/update/${link.svc_id}.json`)
      .type('form')
      .send({ v: '3', key: project.api_key, tool: 'u', android_url: 'https://apps.example.com/a' })
      .expect(200);
    expect((await visit(link, ANDROID).expect(302)).headers.location).toBe(
      `https://apps.example.com/r?to=${encodeURIComponent('https://apps.example.com/a')}&${utm}`,
    );
  });

  it('a change of controls reaches every instance’s cache', async () => {
    const link = await createLink(t, key);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-sibling-'));
    const sibling = await startSiblingApp(t, dataDir);
    try {
      const there = () =>
        sibling.http.get(`/${link.path}`).set('Host', 'svc.test').set('User-Agent', BROWSER);
      await there().expect(302);
      await there().expect(302);
      await update(link.svc_id, { disabled: 'true' });
      await eventually('the sibling to drop the link', async () => (await there()).status === 404);
      await update(link.svc_id, { disabled: 'false', ios_url: 'https://example.com/ios' });
      await eventually('the sibling to load it again', async () => (await there()).status === 302);
      const ios = await sibling.http
        .get(`/${link.path}`)
        .set('Host', 'svc.test')
        .set('User-Agent', IPHONE)
        .expect(302);
      expect(ios.headers.location).toBe('https://example.com/ios');
    } finally {
      await sibling.app.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
