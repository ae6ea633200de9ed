import { existsSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { Browser, Page } from 'playwright-core';
import { CONSOLE_DIST } from '../../src/web-console/web-console';
import type { LinkRecord } from '../../src/links/link-record';
import { TestApp, createTestApp } from '../support/app';
import { freePort, launchChromium, seriousAxeViolations } from '../support/browser';
import { eventually } from '../support/eventually';
import { BROWSER, stored, waitForClicks } from '../support/clicks';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';

/** Screenshots of the cascade and the dashboard, written by each run (gitignored), beside the console's. */
const SHOTS = path.join(__dirname, '..', '..', 'test-results', 'console');

/**
 * Share chains in the web console (docs/api.md, "Share chains (extension)"), in Debian's Chromium
 * against the real service: a cascade A→B→C→D and A→E with clicks on every link, its tree on A's
 * link page opened two levels down, and the dashboard's Top amplifiers and attribution switch. Every
 * figure shown is checked against sums worked out by hand.
 *
 * | link | parent | sharer | channel  | clicks |
 * |------|--------|--------|----------|--------|
 * | A    | -      | ann    | twitter  | 4      |
 * | B    | A      | bob    | facebook | 3      |
 * | C    | B      | cat    | email    | 2      |
 * | D    | C      | -      | twitter  | 1      |
 * | E    | A      | bob    | facebook | 5      |
 */
describe('in a real browser: share cascades in the web console', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let base: string;
  /** Console errors, failed requests and uncaught exceptions of the console's pages. */
  const errors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(path.join(CONSOLE_DIST, 'index.html'))) {
      throw new Error(
        `The console is not built (${CONSOLE_DIST}): run \`npm run build\` first (npm test does)`,
      );
    }
    mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    t = await createTestApp({ env: { DEFAULT_DOMAIN: `127.0.0.1:${port}` } });
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
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Screenshot, no console error so far, and no serious or critical axe-core violation. */
  async function check(name: string): Promise<void> {
    await page.waitForLoadState('networkidle');
    await page.waitForFunction("document.querySelectorAll('.loading').length === 0", undefined, {
      timeout: 10_000,
    });
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
    expect(errors).toEqual([]);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
  }

  /** The rows the cascade tree shows once no level is loading: svc_id, level and the figures. */
  async function tree(): Promise<string[][]> {
    await page.waitForFunction(
      '!document.querySelector(\'table.cascade tr[aria-busy="true"], table.cascade .loading\')',
    );
    return page.evaluate<string[][]>(`
      [...document.querySelectorAll('table.cascade tbody tr[data-svc-id]:not([hidden])')].map((tr) => [
        tr.dataset.svcId,
        tr.dataset.level,
        ...[...tr.querySelectorAll('td[data-figure]')].map((td) => td.textContent),
      ])`);
  }

  /** A table's rows (by its section's selector) as [value, …cells], once it is not loading. */
  async function rows(section: string): Promise<string[][]> {
    await page.locator(`${section} tbody tr`).first().waitFor();
    await page.waitForFunction(`!document.querySelector('${section} table[aria-busy="true"]')`);
    return page.evaluate<string[][]>(`
      [...document.querySelectorAll('${section} tbody tr')].map((tr) => [
        tr.dataset.value ?? '(none)',
        ...[...tr.querySelectorAll('td')].map((td) => td.textContent),
      ])`);
  }

  it('shows a cascade a level at a time with its figures, and the top amplifiers under both attributions', async () => {
    const { api_key: key } = await createProject(t, {
      sharers: ['ann@example.com', 'bob@example.com', 'cat@example.com'],
    });
    const users = Object.fromEntries(
      (
        await t.db.query<{ email: string; id: string }>(
          `SELECT email, id::text AS id FROM users WHERE email LIKE '%@example.com'`,
        )
      ).rows.map((u) => [u.email.split('@')[0], u.id]),
    );
    const { ann, bob, cat } = users;
    const make = (params: Record<string, string>) =>
      createLink(t, key, { url: 'https://example.com/article', ...params });
    const A = await make({ channel: 'twitter', sharer_id: ann });
    const B = await make({ channel: 'facebook', sharer_id: bob, parent: A.svc_id });
    const C = await make({ channel: 'email', sharer_id: cat, parent: B.svc_id });
    const D = await make({ channel: 'twitter', parent: C.svc_id });
    const E = await make({ channel: 'facebook', sharer_id: bob, parent: A.svc_id });
    expect([B, C, D, E].map((l) => l.parent)).toEqual([A, B, C, A].map((l) => l.svc_id));

    // Visitors follow each short link (a browser's user agent: stats leave known bots out).
    const clicks: [LinkRecord, number][] = [
      [A, 4],
      [B, 3],
      [C, 2],
      [D, 1],
      [E, 5],
    ];
    for (const [link, n] of clicks) {
      for (let i = 0; i < n; i++) {
        await t.http
          .get(`/${link.path}`)
          .set('Host', link.domain)
          .set('User-Agent', BROWSER)
          .expect(302);
      }
    }
    await t.settle();
    const expected = Object.fromEntries(
      clicks.map(([link, n]) => [link.svc_id, { clicks: n, bots: 0 }]),
    );
    await expect(waitForClicks(t, expected)).resolves.toEqual(stored(expected));

    await page.goto(`${base}/console/sign-in`);
    await page.getByLabel('Project API key').fill(key);
    await page.getByRole('button', { name: 'Sign in to the project' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();

    // A's link page: its cascade, all time. Downstream of A: B, C, D, E with 3 + 2 + 1 + 5 = 11
    // clicks; sharers bob, cat and D itself (no sharer, no user); generations B and E, C, D.
    await page.goto(`${base}/console/links/${encodeURIComponent(A.svc_id)}`);
    await page.getByRole('heading', { name: `Link ${A.svc_id}`, level: 1 }).waitFor();
    const cascade = page.locator(`section[data-cascade="${A.svc_id}"]`);
    // The tree, or the API's refusal where the tree would be.
    await cascade.locator('table.cascade, [role="alert"]').first().waitFor();
    expect(errors).toEqual([]);
    await expect(
      page.evaluate<[string, string][]>(`
        [...document.querySelectorAll('[aria-label="Cascade of the link, all time"] > div')].map(
          (d) => [d.querySelector('dt').textContent, d.querySelector('dd').textContent])`),
    ).resolves.toEqual([
      ['Own clicks', '4'],
      ['Downstream clicks', '11'],
      ['Earned share of clicks', '73.3%'],
      ['Downstream shares', '4'],
      ['Sharers', '3'],
      ['Generations', '3'],
    ]);
    await expect(
      page
        .getByRole('table', { name: 'Generations below the link' })
        .locator('tbody tr')
        .allTextContents(),
    ).resolves.toEqual(['1 (direct reshares)28', '212', '311']);

    // The tree: A, then its direct reshares by their own and downstream clicks (B 3 + 3, E 5 + 0).
    // Columns: own clicks, downstream clicks, earned share, downstream shares, sharers, generations.
    const a = [A.svc_id, '0', '4', '11', '73.3%', '4', '3', '3'];
    const b = [B.svc_id, '1', '3', '3', '50%', '2', '2', '2'];
    const e = [E.svc_id, '1', '5', '0', '0%', '0', '0', '0'];
    await expect(tree()).resolves.toEqual([a, b, e]);
    // E has no reshare to open; B opens on demand (a chain.json of B), then C below it.
    await expect(
      cascade.getByRole('button', { name: `Show the reshares of ${E.svc_id}` }).count(),
    ).resolves.toBe(0);
    const chainRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/chain.json')) chainRequests.push(request.url());
    });
    await cascade.getByRole('button', { name: `Show the reshares of ${B.svc_id}` }).click();
    const c = [C.svc_id, '2', '2', '1', '33.3%', '1', '1', '1'];
    await eventually('the cascade', async () => expect(await tree()).toEqual([a, b, c, e]));
    await cascade.getByRole('button', { name: `Show the reshares of ${C.svc_id}` }).click();
    const d = [D.svc_id, '3', '1', '0', '0%', '0', '0', '0'];
    await eventually('the cascade', async () => expect(await tree()).toEqual([a, b, c, d, e]));
    expect(chainRequests).toEqual(
      [B, C].map((l) => `${base}/stats/${encodeURIComponent(l.svc_id)}/chain.json`),
    );
    // Under each link: its channel and sharer.
    await expect(
      page.evaluate<string[]>(
        `[...document.querySelectorAll('table.cascade tr[data-svc-id] .node-facts')].map((f) => f.textContent)`,
      ),
    ).resolves.toEqual([
      `twitter · sharer ${ann}`,
      `facebook · sharer ${bob}`,
      `email · sharer ${cat}`,
      'twitter',
      `facebook · sharer ${bob}`,
    ]);
    await expect(
      cascade
        .getByRole('button', { name: `Hide the reshares of ${B.svc_id}` })
        .getAttribute('aria-expanded'),
    ).resolves.toBe('true');
    await check('chains-link');
    await cascade.screenshot({ path: path.join(SHOTS, 'chains-tree.png') });
    // At phone width the tree's rows stack, every figure after its name, nothing sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await cascade.screenshot({ path: path.join(SHOTS, 'chains-tree-phone.png') });
    await expect(
      page.evaluate<number>('document.documentElement.scrollWidth'),
    ).resolves.toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });
    // Closing B hides C and D; opening it again shows them as they were, asking for nothing more.
    await cascade.getByRole('button', { name: `Hide the reshares of ${B.svc_id}` }).click();
    await eventually('the cascade', async () => expect(await tree()).toEqual([a, b, e]));
    await cascade.getByRole('button', { name: `Show the reshares of ${B.svc_id}` }).click();
    await eventually('the cascade', async () => expect(await tree()).toEqual([a, b, c, d, e]));
    expect(chainRequests).toHaveLength(2);

    // The dashboard: Top amplifiers by chain clicks. ann's A set off B, C, D, E (11 clicks, 4
    // shares; 11 / 4 own clicks); bob's B and E set off C and D (3 clicks, 2 shares; 3 / 8); cat's C
    // set off D (1 click, 1 share; 1 / 2); D has no sharer and nothing below it.
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Dashboard' })
      .click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    const amplifiers = 'section[data-table="amplifiers"]';
    const topAmplifiers = [
      [ann, '4', '11', '4', '2.75×'],
      [bob, '8', '3', '2', '0.38×'],
      [cat, '2', '1', '1', '0.5×'],
      ['(none)', '1', '0', '0', '0×'],
    ];
    await expect(rows(amplifiers)).resolves.toEqual(topAmplifiers);
    await expect(
      page
        .locator(`${amplifiers} thead th`)
        .allTextContents()
        .then((headings) => headings.map((h) => h.replace(/\u00ad/g, ''))),
    ).resolves.toEqual(['Sharer', 'Clicks', 'Chain clicks ▼', 'Chain shares', 'Amplification']);
    // Last-click attribution: each click counts for the link clicked.
    const sharers = 'section[data-group-by="sharer_id"]';
    const byValue = (r: string[][]) => Object.fromEntries(r.map(([v, clicks]) => [v, clicks]));
    await expect(rows(sharers).then(byValue)).resolves.toEqual({
      [ann]: '4',
      [bob]: '8',
      [cat]: '2',
      '(none)': '1',
    });
    await expect(rows('section[data-group-by="channel"]')).resolves.toEqual([
      ['facebook', '8', '2', '4', '0', '0', '0'],
      ['twitter', '5', '2', '2.5', '0', '0', '0'],
      ['email', '2', '1', '2', '0', '0', '0'],
    ]);
    await expect(page.locator('[data-total="Clicks"] dd').textContent()).resolves.toBe('15');
    await check('chains-dashboard');
    await page.locator(amplifiers).screenshot({ path: path.join(SHOTS, 'chains-amplifiers.png') });

    // First-share attribution: every click counts for A, the root of its cascade, so ann's A and
    // its channel twitter have all 15; shares stay with their own links. The totals are the same,
    // and Top amplifiers (chains count by the link clicked) is unchanged.
    await page.getByRole('radio', { name: /^First share/ }).check();
    // The console writes the address once it has taken the change.
    await eventually('the attribution in the address', () =>
      expect(new URL(page.url()).search).toBe('?attribution=first'),
    );
    await eventually('the sharers', async () =>
      expect(await rows(sharers).then(byValue)).toEqual({
        [ann]: '15',
        [bob]: '0',
        [cat]: '0',
        '(none)': '0',
      }),
    );
    await eventually('the channels', async () =>
      expect(await rows('section[data-group-by="channel"]')).toEqual([
        ['twitter', '15', '2', '7.5', '0', '0', '0'],
        ['email', '0', '1', '0', '0', '0', '0'],
        ['facebook', '0', '2', '0', '0', '0', '0'],
      ]),
    );
    await eventually('the links', async () =>
      expect((await rows('section[data-group-by="svc_id"]'))[0].slice(0, 2)).toEqual([
        A.svc_id,
        '15',
      ]),
    );
    await expect(page.locator('[data-total="Clicks"] dd').textContent()).resolves.toBe('15');
    await expect(rows(amplifiers)).resolves.toEqual(topAmplifiers);
    await check('chains-dashboard-first');

    // The attribution is in the address: a reload keeps it; last again takes it out.
    await page.reload();
    await expect(page.getByRole('radio', { name: /^First share/ }).isChecked()).resolves.toBe(true);
    await eventually("ann's clicks, first touch", async () =>
      expect((await rows(sharers).then(byValue))[ann]).toBe('15'),
    );
    await page.getByRole('radio', { name: /^Last click/ }).check();
    await eventually('the attribution out of the address', () =>
      expect(new URL(page.url()).search).toBe(''),
    );
    await eventually("ann's clicks, last click", async () =>
      expect((await rows(sharers).then(byValue))[ann]).toBe('4'),
    );
    expect(errors).toEqual([]);
  }, 90_000);
});
