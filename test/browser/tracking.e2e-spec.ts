import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { Browser } from 'playwright-core';
import { freePort, launchChromium } from '../support/browser';
import { TestApp, createTestApp } from '../support/app';
import { storedClicks } from '../support/clicks';
import { createProject } from '../factories/projects';
import { eventually } from '../support/eventually';

describe('in a real browser: the tracking script after a redirect', () => {
  let t: TestApp;
  let browser: Browser;
  let shop: http.Server;
  let apiPort: number;
  let shopPort: number;
  let key: string;
  /** The snippet's data-key: the project's publishable key, as the README shows. */
  let publishableKey: string;
  /** The Cookie headers the shop's server received on /cart. */
  const shopCookies: string[] = [];

  beforeAll(async () => {
    apiPort = await freePort();
    t = await createTestApp({ env: { DEFAULT_DOMAIN: `127.0.0.1:${apiPort}` } });
    await t.app.listen(apiPort, '127.0.0.1');
    ({ api_key: key, publishable_key: publishableKey } = await createProject(t, {
      conversions: { enabled: true, domains: 'all', goal_1_label: 'Purchase' },
    }));
    // The customer's landing page, on another origin, with the snippet of the README.
    shop = http.createServer((req, res) => {
      if (req.url === '/cart') {
        shopCookies.push(req.headers.cookie ?? '');
        res.writeHead(204).end();
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>Shop</title>
        <script src="http://127.0.0.1:${apiPort}/svc.js" data-key="${publishableKey}"></script></head>
        <body><button id="buy" onclick="document.getElementById('sent').textContent = String(svc.convert('goal_1', 1999))">Buy</button>
        <p id="sent"></p></body></html>`);
    });
    shopPort = await new Promise<number>((resolve) =>
      shop.listen(0, '127.0.0.1', () => resolve((shop.address() as AddressInfo).port)),
    );
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => shop?.close(resolve));
    await t?.close();
  });

  it('lands with svc=, keeps _svcsession on the shop’s domain, and records the goal shown in totals', async () => {
    const link = await t.http
      .get('/url.json')
      .query({
        v: '3',
        key,
        tool: 'browser',
        channel: 'email',
        url: `http://localhost:${shopPort}/product?id=7`,
      })
      .expect(200);
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${apiPort}/${link.body.path}`);
    expect(page.url()).toBe(
      `http://localhost:${shopPort}/product?id=7&svc=${encodeURIComponent(link.body.svc_id)}`,
    );
    await page.waitForFunction('typeof window.svc === "object"');
    const cookies = await page.context().cookies(`http://localhost:${shopPort}/`);
    const session = cookies.find((c) => c.name === '_svcsession');
    expect(session?.domain).toBe('localhost');
    // {session_id}:{svc_id} as the raw cookie value: a server splits it on the first colon.
    const colon = session!.value.indexOf(':');
    const [sessionId, svcId] = [session!.value.slice(0, colon), session!.value.slice(colon + 1)];
    expect(sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(svcId).toBe(link.body.svc_id);
    // The shop's own server receives the same value in the Cookie header.
    await expect(page.evaluate(() => fetch('/cart').then((r) => r.status))).resolves.toBe(204);
    expect(shopCookies).toEqual([`_svcsession=${sessionId}:${link.body.svc_id}`]);
    // The visitor buys once the click is stored, as a person takes seconds to: a conversion that
    // comes first gets an id of its own (docs/api.md, "Conversions"), not the click's.
    await t.settle();
    await page.click('#buy');
    await expect(page.locator('#sent').textContent()).resolves.toBe('true');

    await eventually(
      'the conversion in the totals',
      async () => {
        await t.settle();
        const totals = await t.http
          .get('/stats/totals.json')
          .query({ v: '3', key, with_conversions: 'true', start_date: '2026-01-01' })
          .expect(200);
        expect(totals.body.totals.conversions.goal_1).toEqual({
          count: 1,
          value: 1999,
          label: 'Purchase',
        });
      },
      10_000,
    );
    const [row] = (
      await t.db.query<{ session_id: string; redirection_id: string | null; href: string }>(
        `SELECT session_id, redirection_id::text, href FROM conversions`,
      )
    ).rows;
    const [{ id: clickId }] = await storedClicks(t);
    const click = { click_id: clickId };
    expect(row).toEqual({
      session_id: sessionId,
      redirection_id: click.click_id,
      href: `http://localhost:${shopPort}/product?id=7&svc=${encodeURIComponent(link.body.svc_id)}`,
    });
    await page.close();
  }, 30_000);

  it('runs projects/list in the /docs console through “Try it out”', async () => {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${apiPort}/docs`);
    const operation = page.locator('.opblock-get', {
      has: page.locator('.opblock-summary-path', { hasText: /^\/projects\/list$/ }),
    });
    await operation.locator('.opblock-summary').click();
    // The console opens operations ready to try (tryItOutEnabled); otherwise press “Try it out”.
    const tryOut = operation.locator('button.try-out__btn');
    if ((await tryOut.textContent())?.trim() === 'Try it out') await tryOut.click();
    await operation.locator('input[placeholder="subscription_key"]').fill(t.subscriptionKey);
    await operation.locator('input[placeholder="application_key"]').fill(t.applicationKey);
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status');
    await expect(status.first().textContent()).resolves.toContain('200');
    const body = await operation
      .locator('.live-responses-table .response-col_description pre')
      .first()
      .textContent();
    expect(JSON.parse(body ?? '{}').response.projects.length).toBeGreaterThanOrEqual(1);
    await page.close();
  }, 30_000);
});
