import { existsSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { Browser, Page } from 'playwright-core';
import { CONSOLE_DIST } from '../../src/web-console/web-console';
import { TestApp, createTestApp } from '../support/app';
import { freePort, launchChromium, seriousAxeViolations } from '../support/browser';
import { eventually } from '../support/eventually';
import { BROWSER } from '../support/clicks';
import { WebhookReceiver } from '../support/webhook-receiver';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';

/** Screenshots of the webhooks page and the Live panel, written by each run (gitignored). */
const SHOTS = path.join(__dirname, '..', '..', 'test-results', 'console');
const EVENT_ID = /^evt_[0-9a-f]{32}$/;

/**
 * Webhooks and the live feed in the web console (docs/api.md, "Webhooks and live events
 * (extension)"), in Debian's Chromium against the real service and a real receiver on loopback: a
 * webhook made on its project's page with two events, its test ping, the delivery log of a link's
 * creation and click, a redelivery with the same webhook-id, disabling it; then the dashboard's and
 * a link page's Live panel showing a visitor's click as it happens.
 */
describe('in a real browser: webhooks and the live feed in the web console', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let base: string;
  const receiver = new WebhookReceiver();
  let hookUrl: string;
  /** Console errors, failed requests and uncaught exceptions of the console's pages. */
  const errors: string[] = [];
  /** Every request the console's pages made: method, URL and, for a POST, its body. */
  const requests: { method: string; url: string; body: string | null }[] = [];

  beforeAll(async () => {
    if (!existsSync(path.join(CONSOLE_DIST, 'index.html'))) {
      throw new Error(
        `The console is not built (${CONSOLE_DIST}): run \`npm run build\` first (npm test does)`,
      );
    }
    mkdirSync(SHOTS, { recursive: true });
    hookUrl = await receiver.start();
    const port = await freePort();
    // TRUST_PROXY: the visitor's address comes from X-Forwarded-For (a public one, to be placed).
    t = await createTestApp({
      env: {
        DEFAULT_DOMAIN: `127.0.0.1:${port}`,
        WEBHOOK_ALLOW_LOOPBACK: 'true',
        TRUST_PROXY: 'true',
      },
    });
    await t.app.listen(port, '127.0.0.1');
    base = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    // bypassCSP: axe-core is injected as an inline script, which the console's policy refuses.
    const context = await browser.newContext({
      timezoneId: 'UTC',
      locale: 'en-US',
      bypassCSP: true,
      viewport: { width: 1280, height: 900 },
    });
    // Every EventSource the console opens, kept to see that leaving a page closes its stream.
    await context.addInitScript(`
      window.feeds = [];
      const Native = window.EventSource;
      window.EventSource = class extends Native {
        constructor(...args) {
          super(...args);
          window.feeds.push(this);
        }
      };`);
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400)
        errors.push(
          `${response.status()} ${response.request().method()} ${response.url().split('?')[0]}`,
        );
    });
    page.on('pageerror', (error) => errors.push(`${page.url()}: uncaught ${error.message}`));
    page.on('request', (req) =>
      requests.push({ method: req.method(), url: req.url(), body: req.postData() }),
    );
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver.close();
  });

  /**
   * Screenshot, no console error so far, and no serious or critical axe-core violation. With the
   * live feed open the network is never idle: `live` skips that wait.
   */
  async function check(name: string, { live = false } = {}): Promise<void> {
    if (!live) await page.waitForLoadState('networkidle');
    await page.waitForFunction("document.querySelectorAll('.loading').length === 0", undefined, {
      timeout: 10_000,
    });
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
    expect(errors).toEqual([]);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
  }

  /** A visitor's click on a link, from a United Kingdom address, referred by a news site. */
  async function visit(link: { path: string; domain: string }): Promise<void> {
    await t.http
      .get(`/${link.path}`)
      .set('Host', link.domain)
      .set('User-Agent', BROWSER)
      .set('X-Forwarded-For', '81.2.69.142')
      .set('Referer', 'https://news.example.org/today')
      .expect(302);
    await t.settle();
  }

  it('creates a webhook, tests it, shows its deliveries, redelivers, disables it, and shows clicks live', async () => {
    const project = await createProject(t, { name: 'hooks-e2e' });
    const key = project.api_key;

    await page.goto(`${base}/console/sign-in`);
    await page.getByLabel('Subscription key').fill(t.subscriptionKey);
    await page.getByLabel('Application key').fill(t.applicationKey);
    await page.getByRole('button', { name: 'Sign in for administration' }).click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Settings of hooks-e2e' }).click();
    await page.getByRole('heading', { name: 'Project hooks-e2e', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Webhooks of hooks-e2e' }).click();
    await page.getByRole('heading', { name: 'Webhooks of hooks-e2e', level: 1 }).waitFor();
    expect(page.url()).toBe(`${base}/console/projects/${key}/webhooks`);
    await page.getByText('No webhook yet').waitFor();

    // A webhook for links made and clicked; its secret is shown once made.
    await page.getByLabel('URL', { exact: true }).fill(hookUrl);
    await page.getByLabel('Description (optional)').fill('CRM');
    await page.getByLabel('link.created').check();
    await page.getByLabel('link.clicked').check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const card = page.locator('article[data-webhook]');
    await card.waitFor();
    const created = (await page.locator('.notice.ok code').textContent()) ?? '';
    expect(created).toMatch(/^whsec_/);
    receiver.secrets = [created];
    const listed = await t.http
      .post('/webhooks/list')
      .type('form')
      .send({
        subscription_key: t.subscriptionKey,
        application_key: t.applicationKey,
        project: key,
      })
      .expect(200);
    const [hook] = listed.body.response.webhooks as {
      id: string;
      url: string;
      events: string[];
      description: string;
      enabled: boolean;
    }[];
    expect(hook).toMatchObject({
      url: hookUrl,
      events: ['link.created', 'link.clicked'],
      description: 'CRM',
      enabled: true,
    });
    await expect(card.getAttribute('data-webhook')).resolves.toBe(hook.id);
    await expect(card.getByRole('heading', { level: 2 }).textContent()).resolves.toBe(hookUrl);
    await expect(card.locator('dl.facts dd').first().textContent()).resolves.toBe(
      'link.created, link.clicked',
    );

    // Show secret answers the same secret; a test ping reaches the receiver, signed, and its 204 shows.
    await card.getByRole('button', { name: 'Show secret' }).click();
    await expect(card.locator('.secret code').textContent()).resolves.toBe(created);
    await card.getByRole('button', { name: 'Send test' }).click();
    const tested = card.locator('[data-test-status]');
    await tested.waitFor();
    await expect(tested.getAttribute('data-test-status')).resolves.toBe('204');
    await expect(tested.textContent()).resolves.toMatch(/^Test ping: 204 in \d+ ms$/);
    expect(receiver.of('ping').map((r) => r.verified)).toEqual([true]);
    // From now on the receiver answers 200 with a body (a 204 has none), for the log's Answer column.
    receiver.answer = () => 200;

    // A link made and clicked: both events are delivered and logged.
    const link = await createLink(t, key, { url: 'https://shop.example/spring' });
    await visit(link);
    await eventually("the link's two events delivered", async () => {
      await t.settle();
      expect(receiver.of('link.clicked')).toHaveLength(1);
      expect(receiver.of('link.created')).toHaveLength(1);
    });
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    const clickId = receiver.of('link.clicked')[0].headers['webhook-id'] as string;
    expect(clickId).toMatch(EVENT_ID);
    await card.getByRole('button', { name: 'Deliveries' }).click();
    const log = card.locator('section.deliveries');
    const row = log.locator(`tr[data-event-id="${clickId}"]`);
    await row.waitFor();
    await eventually('the three rows of the log', async () => {
      await log.getByRole('button', { name: 'Refresh' }).click();
      await expect(log.locator('tbody tr').count()).resolves.toBe(3);
    });
    // Each row's type, attempt and status.
    const cells = await page.evaluate<string[][]>(`
      [...document.querySelectorAll('section.deliveries tbody tr')].map((tr) =>
        [...tr.querySelectorAll('td')].slice(1, 4).map((td) => td.textContent))`);
    expect(cells.sort()).toEqual([
      ['link.clicked', '1', '200'],
      ['link.created', '1', '200'],
      ['ping', '1', '204'],
    ]);
    await expect(row.locator('td').nth(6).textContent()).resolves.toBe('ok');
    // A test ping is not kept as an event: no Redeliver on its row.
    await expect(
      log.locator('tbody tr', { hasText: 'ping' }).getByRole('button').count(),
    ).resolves.toBe(0);
    await check('webhooks-deliveries');

    // Redeliver the click: the receiver gets the same webhook-id again, and the log shows it twice.
    await row.getByRole('button', { name: `Redeliver link.clicked ${clickId}` }).click();
    await log.getByText(`Event ${clickId} queued again`).waitFor();
    await eventually('the redelivery', async () => {
      await t.settle();
      expect(receiver.of('link.clicked').map((r) => r.headers['webhook-id'])).toEqual([
        clickId,
        clickId,
      ]);
    });
    await eventually('the redelivery in the log', async () => {
      await log.getByRole('button', { name: 'Refresh' }).click();
      await expect(log.locator(`tr[data-event-id="${clickId}"]`).count()).resolves.toBe(2);
    });

    // Disable: the card says so, and the API agrees.
    await card.getByRole('button', { name: 'Disable' }).click();
    await page.locator('article[data-webhook][data-enabled="false"]').waitFor();
    await expect(card.locator('[data-webhook-status]').textContent()).resolves.toBe(
      'disabled by hand',
    );
    await expect(card.getByRole('button', { name: 'Enable' }).count()).resolves.toBe(1);
    const shown = await t.http
      .post(`/webhooks/${hook.id}/show`)
      .type('form')
      .send({ subscription_key: t.subscriptionKey, application_key: t.applicationKey })
      .expect(200);
    expect(shown.body.response.webhook).toMatchObject({
      enabled: false,
      disabled_reason: 'manual',
    });
    await check('webhooks');

    // The dashboard's Live panel: a visitor's click appears with its flag, device and site.
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Projects' })
      .click();
    await page.getByRole('button', { name: 'Dashboard of hooks-e2e' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    const live = page.locator('section.live');
    await expect(live.getAttribute('data-live')).resolves.toBe('off');
    await live.getByRole('button', { name: 'Start live feed' }).click();
    await page.locator('section.live[data-live="live"]').waitFor();
    const other = await createLink(t, key, { url: 'https://shop.example/summer' });
    await visit(other);
    const seen = live.getByRole('log', { name: 'Live clicks' }).locator('li');
    await eventually('the click in the Live panel', async () => {
      await t.settle();
      await expect(seen.count()).resolves.toBe(1);
    });
    await expect(seen.getAttribute('data-svc-id')).resolves.toBe(other.svc_id);
    await expect(seen.locator('[data-device]').textContent()).resolves.toBe('Desktop');
    await expect(seen.locator('[data-referrer]').textContent()).resolves.toBe('news.example.org');
    await expect(seen.textContent()).resolves.toContain('🇬🇧United Kingdom');
    await check('live', { live: true });
    // The disabled webhook was sent nothing of it.
    expect(receiver.of('link.clicked')).toHaveLength(2);

    // A link's page shows that link's clicks only; leaving the page closes its stream.
    await live.getByRole('link', { name: other.svc_id }).click();
    await page.getByRole('heading', { name: `Link ${other.svc_id}`, level: 1 }).waitFor();
    const linkLive = page.locator('section.live');
    await linkLive.getByRole('button', { name: 'Start live feed' }).click();
    await page.locator('section.live[data-live="live"]').waitFor();
    await visit(link);
    await visit(other);
    const linkSeen = linkLive.getByRole('log', { name: 'Live clicks of the link' }).locator('li');
    await eventually("the link's click in its Live panel", async () => {
      await t.settle();
      await expect(linkSeen.count()).resolves.toBe(1);
    });
    await expect(linkSeen.getAttribute('data-svc-id')).resolves.toBe(other.svc_id);
    // Each page opened its own stream; leaving a page closed it (readyState 2, CLOSED).
    const feeds = () => page.evaluate<number[]>('window.feeds.map((f) => f.readyState)');
    await expect(feeds()).resolves.toEqual([2, 1]);
    await page.getByRole('link', { name: '← Links' }).click();
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    await expect(page.locator('section.live').count()).resolves.toBe(0);
    await expect(feeds()).resolves.toEqual([2, 2]);
    expect(errors).toEqual([]);

    // No URL the console requested holds the api_key (docs/api.md, "Live feed"), but for the
    // administration's paths, which name the project by it (docs/api.md, "Administration"): each
    // stream opened with a token the console got by POSTing the key in a form body.
    const administration = `${base}/projects/${key}/`;
    expect(
      requests
        .filter((req) => req.url.includes(key) && !req.url.startsWith(administration))
        .map((req) => req.url),
    ).toEqual([]);
    const streams = requests.filter((req) => req.url.includes('/events/stream'));
    expect(
      streams.map((req) => [req.method, req.url.replace(/stk_[0-9a-f]{64}/, 'stk_…')]),
    ).toEqual([
      ['POST', `${base}/events/stream/token`],
      ['GET', `${base}/events/stream?token=stk_…`],
      ['POST', `${base}/events/stream/token`],
      ['GET', `${base}/events/stream?token=stk_…`],
    ]);
    expect(streams.filter((req) => req.method === 'POST').map((req) => req.body)).toEqual([
      `key=${key}`,
      `key=${key}`,
    ]);
  }, 120_000);
});
