import { AddressInfo } from 'node:net';
import { Server, createServer } from 'node:http';
import { TestApp, createTestApp } from '../support/app';
import type { LinkRecord } from '../../src/links/link-record';
import { createProject } from '../factories/projects';
import { createLink } from '../factories/links';
import { BROWSER, waitForClicks } from '../support/clicks';

/** A real peer: /to?u=<url> redirects to url (a short link reached in the middle of a crawl). */
async function startPeer(): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/to') {
      res.writeHead(302, { Location: url.searchParams.get('u') ?? '/' }).end();
    } else {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<title>final</title>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * docs/api.md, "Security": unwrap follows a link of the service only when anyone's GET of it
 * would lead to its target anyway. The attack: another project's protected, disabled, expired,
 * exhausted or targeted link unwrapped through retweet with any key gave away its target.
 */
describe('unwrap respects link controls, for any project’s links', () => {
  let t: TestApp;
  let peer: { server: Server; base: string };
  let keyA: string;
  let keyB: string;
  const guarded: Record<string, LinkRecord> = {};
  let plain: LinkRecord;
  let counted: LinkRecord;

  const TARGET = 'https://secret.example/target';

  beforeAll(async () => {
    peer = await startPeer();
    t = await createTestApp({ env: { CRAWLER_ALLOW_LOOPBACK: 'true' } });
    keyA = (await createProject(t)).api_key;
    keyB = (await createProject(t)).api_key;
    const made = async (controls: Record<string, string>) =>
      createLink(t, keyB, { url: TARGET, ...controls });
    guarded.password = await made({ password: 'correct horse battery' });
    guarded.disabled = await made({ disabled: 'true' });
    guarded.expired = await made({ expires_at: String(Math.floor(Date.now() / 1000) + 3600) });
    await t.db.query(
      `UPDATE links SET expires_at = now() - interval '1 minute' WHERE svc_id = $1`,
      [guarded.expired.svc_id],
    );
    guarded.exhausted = await made({ max_clicks: '1' });
    guarded.geo = await made({ geo: '{"US":"https://us.example/"}' });
    guarded.ios = await made({ ios_url: 'https://apps.example/ios' });
    guarded.android = await made({ android_url: 'https://apps.example/android' });
    plain = await made({});
    counted = await made({ max_clicks: '5' });
    // One counted click spends the exhausted link's only one.
    await t.http
      .get(`/${guarded.exhausted.path}`)
      .set('Host', 'svc.test')
      .set('User-Agent', BROWSER)
      .expect(302);
    await t.settle();
    await waitForClicks(t, { [guarded.exhausted.svc_id]: { clicks: 1, bots: 0 } });
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => peer.server.close(resolve));
  });

  const unwrapped = async (key: string, urls: string[]): Promise<string[]> => {
    const res = await t.http
      .post('/url/retweet.json')
      .type('form')
      .send({ v: '3', key, tool: 'rt', channel: 'twitter', text: urls.join(' '), unwrap: 'true' })
      .expect(200);
    return (res.body.svc_urls as LinkRecord[]).map((r) => r.original_url);
  };

  it('stops at the short link of a guarded link, through another project’s key and through its own', async () => {
    const names = Object.keys(guarded);
    const shortUrls = names.map((name) => guarded[name].svc_url);
    for (const key of [keyA, keyB]) {
      const got = await unwrapped(key, shortUrls);
      expect(Object.fromEntries(names.map((name, i) => [name, got[i]]))).toEqual(
        Object.fromEntries(names.map((name) => [name, guarded[name].svc_url])),
      );
    }
  });

  it('still unwraps a link anyone’s GET leads through: no controls, or clicks left under max_clicks', async () => {
    for (const key of [keyA, keyB]) {
      expect(await unwrapped(key, [plain.svc_url, counted.svc_url])).toEqual([TARGET, TARGET]);
    }
  });

  it('stops at a guarded short link reached by an HTTP redirect in the middle of a crawl', async () => {
    const via = (link: LinkRecord) => `${peer.base}/to?u=${encodeURIComponent(link.svc_url)}`;
    expect(await unwrapped(keyA, [via(guarded.password), via(guarded.geo), via(plain)])).toEqual([
      guarded.password.svc_url,
      guarded.geo.svc_url,
      TARGET,
    ]);
  });

  it('stops at a plain link that leads to a guarded one (the chain ends at the guarded link)', async () => {
    const onward = await createLink(t, keyA, { url: guarded.disabled.svc_url });
    expect(await unwrapped(keyA, [onward.svc_url])).toEqual([guarded.disabled.svc_url]);
  });

  it('stops at a link of a deleted project, which redirects no one', async () => {
    const gone = await createProject(t);
    const link = await createLink(t, gone.api_key, { url: TARGET });
    await t.db.query(`UPDATE projects SET deleted_at = now() WHERE api_key = $1`, [gone.api_key]);
    expect(await unwrapped(keyA, [link.svc_url])).toEqual([link.svc_url]);
  });

  it('create takes no unwrap: the url is kept as given', async () => {
    const link = await createLink(t, keyA, { url: guarded.password.svc_url, unwrap: 'true' });
    expect(link.original_url).toBe(guarded.password.svc_url);
  });
});
