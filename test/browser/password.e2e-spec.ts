import { mkdirSync } from 'node:fs';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Browser, BrowserContext } from 'playwright-core';
import { freePort, launchChromium } from '../support/browser';
import { TestApp, createTestApp } from '../support/app';
import { BROWSER, clickCounts } from '../support/clicks';
import { createProject } from '../factories/projects';

const SHOTS = path.join(__dirname, '..', '..', 'test-results', 'password');

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: { target: string[] }[];
}

describe('in a real browser: a password-protected link', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let landing: http.Server;
  let landingUrl: string;
  let base: string;
  let key: string;
  /** The requests the landing page's server received. */
  const landed: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    t = await createTestApp({ env: { DEFAULT_DOMAIN: `127.0.0.1:${port}` } });
    await t.app.listen(port, '127.0.0.1');
    base = `http://127.0.0.1:${port}`;
    key = (await createProject(t)).api_key;
    landing = http.createServer((req, res) => {
      landed.push(req.url ?? '');
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(
        '<!doctype html><html lang="en"><head><title>Landing</title><link rel="icon" href="data:,"></head><body><h1>Members’ area</h1></body></html>',
      );
    });
    const landingPort = await new Promise<number>((resolve) =>
      landing.listen(0, '127.0.0.1', () => resolve((landing.address() as AddressInfo).port)),
    );
    landingUrl = `http://localhost:${landingPort}/members`;
    browser = await launchChromium();
    // bypassCSP: axe-core is injected as an inline script, which the form's policy refuses. A
    // desktop Chrome's user agent: HeadlessChrome is a known bot, whose clicks statistics leave out.
    context = await browser.newContext({
      bypassCSP: true,
      viewport: { width: 800, height: 600 },
      userAgent: BROWSER,
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => landing?.close(resolve));
    await t?.close();
  });

  it('asks for the password, says a wrong one is wrong (401), lands with the right one, counted once', async () => {
    const created = await t.http
      .post('/url.json')
      .type('form')
      .send({
        v: '3',
        key,
        tool: 'browser',
        channel: 'email',
        url: landingUrl,
        password: 'correct horse',
      })
      .expect(200);
    const link = created.body as { svc_id: string; path: string; password_protected: boolean };
    expect(link.password_protected).toBe(true);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    const first = await page.goto(`${base}/${link.path}`);
    expect(first?.status()).toBe(200);
    expect(await page.title()).toBe('Password required');
    // The field is focused and named by its label.
    await expect(page.getByLabel('Password').getAttribute('id')).resolves.toBe('password');
    await expect(page.evaluate('document.activeElement.id')).resolves.toBe('password');
    await page.screenshot({ path: path.join(SHOTS, 'form.png'), fullPage: true });
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = await page.evaluate<AxeViolation[]>(
      'axe.run(document).then((result) => result.violations)',
    );
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);

    await page.keyboard.type('wrong horse');
    const [wrong] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.keyboard.press('Enter'),
    ]);
    expect(wrong.status()).toBe(401);
    await page.waitForLoadState();
    await expect(page.getByRole('alert').textContent()).resolves.toBe(
      'Wrong password. Please try again.',
    );
    await page.screenshot({ path: path.join(SHOTS, 'wrong-password.png'), fullPage: true });

    await page.getByLabel('Password').fill('correct horse');
    await Promise.all([
      page.waitForURL(landingUrl),
      page.getByRole('button', { name: 'Continue' }).click(),
    ]);
    expect(page.url()).toBe(landingUrl);
    await expect(page.locator('h1').textContent()).resolves.toBe('Members’ area');
    expect(landed).toEqual(['/members']);
    expect(errors).toEqual([]);

    await t.settle();
    const counts = (await clickCounts(t, [link.svc_id]))[link.svc_id];
    expect({ clicks: counts.clicks, bots: counts.bots, raw: counts.raw }).toEqual({
      clicks: 1,
      bots: 0,
      raw: 1,
    });
    await page.close();
  });
});
