import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { CONSOLE_DIST } from '../../src/web-console/web-console';
import { TestApp, createTestApp } from '../support/app';
import type { LinkRecord } from '../../src/links/link-record';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { freePort, launchChromium, seriousAxeViolations } from '../support/browser';
import { eventually } from '../support/eventually';

/** Screenshots of every page, written by each run (gitignored). */
const SHOTS = path.join(__dirname, '..', '..', 'test-results', 'console');

interface RangeGroup {
  channel: string;
  clicks: number;
  shares: number;
  clicks_per_share: number;
  conversions: { pageviews: number; goal_total: { count: number; value: number } };
}

/** User agents of the visitors: desktop Chrome on Windows, Safari on an iPhone, Chrome on Android. */
const AGENTS = {
  desktopChrome:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
  iphoneSafari:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1',
  androidChrome:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36',
};

/** A link of url/list.json: the link record and its all-time clicks. */
type ListedLink = LinkRecord & { clicks: number };

/**
 * The web console in Debian's Chromium against the real service (PostgreSQL, Redis): the steps a
 * new user takes, each page screenshotted, checked with axe-core, and free of console errors.
 */
describe('in a real browser: the web console at /console', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let landing: http.Server;
  let base: string;
  let landingUrl: string;
  /** Console errors and uncaught exceptions of the console's pages. */
  const errors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(path.join(CONSOLE_DIST, 'index.html'))) {
      throw new Error(
        `The console is not built (${CONSOLE_DIST}): run \`npm run build\` first (npm test does)`,
      );
    }
    mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    // TRUST_PROXY: the visitors' addresses come from X-Forwarded-For (public ones, to be placed).
    t = await createTestApp({ env: { DEFAULT_DOMAIN: `127.0.0.1:${port}`, TRUST_PROXY: 'true' } });
    await t.app.listen(port, '127.0.0.1');
    base = `http://127.0.0.1:${port}`;
    landing = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(
        '<!doctype html><html lang="en"><head><title>Landing</title><link rel="icon" href="data:,"></head><body><h1>Landing</h1></body></html>',
      );
    });
    const landingPort = await new Promise<number>((resolve) =>
      landing.listen(0, '127.0.0.1', () => resolve((landing.address() as AddressInfo).port)),
    );
    landingUrl = `http://localhost:${landingPort}/article`;
    browser = await launchChromium();
    // bypassCSP: axe-core is injected as an inline script, which the console's policy refuses.
    context = await browser.newContext({
      timezoneId: 'UTC',
      bypassCSP: true,
      acceptDownloads: true,
      viewport: { width: 1280, height: 900 },
    });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
    });
    // Names the resource a "Failed to load resource" message is about.
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
    await new Promise((resolve) => landing?.close(resolve));
    await t?.close();
  });

  /** Screenshot, no console error so far, and no serious or critical axe-core violation. */
  async function check(name: string): Promise<void> {
    await page.waitForLoadState('networkidle');
    // Every loading state has given way to its data (or an empty state).
    await page.waitForFunction("document.querySelectorAll('.loading').length === 0", undefined, {
      timeout: 10_000,
    });
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
    expect(errors).toEqual([]);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
  }

  /**
   * Every table of top groups on the page shows every column: nothing to scroll to sideways in its
   * box, and every cell inside that box. The tables' group-by fields, in page order.
   */
  async function tablesShowEveryColumn(): Promise<void> {
    const tables = await page.evaluate<{ table: string; hidden: number; cut: string[] }[]>(`
      [...document.querySelectorAll('section.stats-table')].flatMap((section) => {
        const wrap = section.querySelector('.table-wrap');
        if (!wrap) return [];
        const box = wrap.getBoundingClientRect();
        const cut = [...wrap.querySelectorAll('th, td')]
          .filter((cell) => {
            const r = cell.getBoundingClientRect();
            return r.left < box.left - 0.5 || r.right > box.right + 0.5;
          })
          .map((cell) => cell.textContent);
        return [{ table: section.dataset.groupBy, hidden: wrap.scrollWidth - wrap.clientWidth, cut }];
      })`);
    expect(tables.length).toBeGreaterThan(0);
    expect(tables).toEqual(tables.map(({ table }) => ({ table, hidden: 0, cut: [] })));
  }

  /** The links of Top links: each on one line (cut with an ellipsis if need be), its full id in its title. */
  async function linksOnOneLine(): Promise<{ text: string; title: string }[]> {
    const links = await page.evaluate<
      { text: string; title: string; lines: number; overflow: string; wrap: string }[]
    >(`
      [...document.querySelectorAll('section[data-group-by="svc_id"] tbody th a')].map((a) => {
        const style = getComputedStyle(a);
        return {
          text: a.textContent,
          title: a.title,
          lines: Math.round(a.getBoundingClientRect().height / parseFloat(style.lineHeight)),
          overflow: style.textOverflow,
          wrap: style.whiteSpace,
        };
      })`);
    for (const link of links) {
      expect(link).toEqual({ ...link, lines: 1, overflow: 'ellipsis', wrap: 'nowrap' });
    }
    return links.map(({ text, title }) => ({ text, title }));
  }

  /** The period the dashboard opens with in UTC: the last 7 days, today included. */
  function defaultPeriod(): { start_date: string; end_date: string } {
    const day = 86_400_000;
    const today = Math.floor(Date.now() / day) * day;
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return { start_date: iso(today - 6 * day), end_date: iso(today + day) };
  }

  it('signs in, creates a project and a domain, makes a link, shows its click and exports the table, destroys the project', async () => {
    // Sign in: a wrong key says so where it was typed.
    await page.goto(`${base}/console/`);
    await expect(page.title()).resolves.toBe('svc console');
    await page.getByLabel('Subscription key').fill(t.subscriptionKey);
    await page.getByLabel('Application key').fill('wrong-application-key');
    await page.getByRole('button', { name: 'Sign in for administration' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(
      /Invalid API key specified.*check the key/,
    );
    // The browser reports the 403 answer as a console error: expected here, and only here.
    expect(errors).toEqual([
      `403 POST ${base}/projects/list`,
      expect.stringMatching(/status of 403/),
    ]);
    errors.length = 0;
    await check('sign-in');
    await page.getByLabel('Application key').fill(t.applicationKey);
    await page.getByRole('button', { name: 'Sign in for administration' }).click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    // The keys are in sessionStorage only: not in the URL, not in a cookie.
    expect(page.url()).toBe(`${base}/console/projects`);
    await expect(context.cookies()).resolves.toEqual([]);
    await expect(
      page.evaluate<string | null>("sessionStorage.getItem('svc.console.admin')"),
    ).resolves.toContain(t.subscriptionKey);

    // Projects: create one.
    await page.getByText('No project yet').waitFor();
    await page.getByLabel('Name').fill('console-e2e');
    await page.getByRole('button', { name: 'Create project' }).click();
    const row = page.locator('tr[data-project="console-e2e"]');
    await row.waitFor();
    await check('projects');
    const [{ api_key: apiKey }] = (
      await t.db.query<{ api_key: string }>(`SELECT api_key FROM projects`)
    ).rows;

    // Domains: connect one for the project.
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Domains' })
      .click();
    await page.getByText('No custom domain yet').waitFor();
    await page.getByLabel('Hostname').fill('go.console.test');
    await page.getByLabel('Root redirect').fill('https://www.console.test/');
    await page.getByLabel('Not-found redirect').fill('https://www.console.test/404');
    await page.getByLabel('console-e2e').check();
    await page.getByRole('button', { name: 'Connect domain' }).click();
    await page.locator('article[data-domain="go.console.test"]').waitFor();
    await check('domains');
    const domains = await t.http
      .post('/domains/list')
      .type('form')
      .send({ subscription_key: t.subscriptionKey, application_key: t.applicationKey })
      .expect(200);
    expect(
      (domains.body.response.domains as { hostname: string; projects: string[] }[]).map((d) => [
        d.hostname,
        d.projects,
      ]),
    ).toEqual([['go.console.test', ['console-e2e']]]);

    // Project settings: conversions with a goal label.
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Projects' })
      .click();
    await row.getByRole('link', { name: 'Settings of console-e2e' }).click();
    await page.getByRole('heading', { name: 'Project console-e2e', level: 1 }).waitFor();
    await page.getByLabel('Record conversions').check();
    await page.getByLabel('Conversion domains').fill('all');
    await page.getByLabel('Goal 1 label').fill('Signup');
    await page.getByRole('button', { name: 'Save conversion settings' }).click();
    const admin = { subscription_key: t.subscriptionKey, application_key: t.applicationKey };
    await eventually('the conversion settings saved', async () =>
      expect(
        (await t.http.post(`/projects/${apiKey}/show`).type('form').send(admin)).body.response
          .project.conversions,
      ).toEqual(expect.objectContaining({ enabled: true, domains: 'all', goal_1_label: 'Signup' })),
    );
    // The landing pages' snippet carries the publishable key, never the API key.
    const { publishable_key: publishableKey } = (
      await t.http.post(`/projects/${apiKey}/show`).type('form').send(admin)
    ).body.response.project as { publishable_key: string };
    const snippet = await page.locator('pre.snippet').textContent();
    expect(snippet).toContain(`/svc.js" data-key="${publishableKey}"></script>`);
    expect(snippet).not.toContain(apiKey);
    // The hosts the publishable key may make links to (none by default).
    await expect(
      page.getByLabel('Hosts the publishable key may link to').inputValue(),
    ).resolves.toBe('');
    await page.getByLabel('Hosts the publishable key may link to').fill('example.com, Twitter.com');
    await page.getByRole('button', { name: 'Save hosts' }).click();
    await eventually('the hosts saved', async () =>
      expect(
        (await t.http.post(`/projects/${apiKey}/show`).type('form').send(admin)).body.response
          .project.publishable_hosts,
      ).toEqual(['example.com', 'twitter.com']),
    );
    await check('project-settings');

    // Links: create one, copy it, see its QR code.
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Projects' })
      .click();
    await row.getByRole('button', { name: 'Links of console-e2e' }).click();
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    await page.getByLabel('Page to share (URL)').fill(landingUrl);
    await page.getByLabel('Channel', { exact: true }).first().selectOption('twitter');
    await page.getByText('More: campaign').click();
    await page.getByLabel('Campaign', { exact: true }).fill('launch');
    await page.getByLabel('Campaign description').fill('The launch posts');
    await page.getByRole('button', { name: 'Create link', exact: true }).click();
    await page.locator('#short-url, [role="alert"]').first().waitFor();
    await expect(page.getByRole('alert').allTextContents()).resolves.toEqual([]);
    const shortUrl = (await page.locator('#short-url').textContent())!;
    expect(shortUrl).toMatch(new RegExp(`^${base}/[0-9A-Za-z]{7}$`));
    await page.getByRole('img', { name: `QR code of ${shortUrl}` }).waitFor();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await page.getByRole('button', { name: 'Copy the short link' }).click();
    await expect(page.evaluate<string>('navigator.clipboard.readText()')).resolves.toBe(shortUrl);
    await check('links');

    // A visitor follows the short link, in a browser that does not call itself headless (stats leave
    // known bots out, and HeadlessChrome is one).
    const visitorContext = await browser.newContext({
      userAgent:
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
    });
    const visitor = await visitorContext.newPage();
    await visitor.goto(shortUrl);
    expect(visitor.url()).toMatch(/^http:\/\/localhost:\d+\/article\?svc=/);
    const svcId = new URL(visitor.url()).searchParams.get('svc')!;
    await visitorContext.close();
    // The landing site reports a signup worth 1999 for that visit.
    await t.http
      .get('/conversions/new')
      .query({ key: apiKey, svc_url: svcId, conversion_type: 'goal_1', conversion_value: '1999' })
      .expect(200);
    await t.settle();

    // Dashboard: the click on the chart and in the channel table.
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Dashboard' })
      .click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const chart = page.locator('figure.chart');
    await expect(chart.getAttribute('data-totals')).resolves.toBe(
      '1 clicks, 1 shares, 1 conversions',
    );
    await expect(page.locator('[data-total="Conversions"] dd').textContent()).resolves.toBe('1');
    await expect(page.locator('[data-total="Conversion value"] dd').textContent()).resolves.toBe(
      '1,999',
    );
    await expect(chart.locator('canvas').count()).resolves.toBeGreaterThan(0);
    const channels = page.locator('section[data-group-by="channel"]');
    // Each table loads on its own: wait for its rows.
    await channels.locator('tbody tr').first().waitFor();
    await expect(channels.locator('tbody tr').allTextContents()).resolves.toEqual([
      expect.stringMatching(/^twitter1111?/),
    ]);
    await expect(channels.locator('tbody tr td').first().textContent()).resolves.toBe('1');
    await check('dashboard');
    // Every column of each table in the two columns, the link whole on one line.
    await tablesShowEveryColumn();
    await expect(linksOnOneLine()).resolves.toEqual([{ text: svcId, title: svcId }]);

    // The channel table as CSV equals the API's answer for the same period.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      channels.getByRole('button', { name: 'Export CSV of Top channels' }).click(),
    ]);
    const csv = readFileSync(await download.path(), 'utf8');
    const api = await t.http
      .get('/stats/range.json')
      .query({
        v: '3',
        key: apiKey,
        ...defaultPeriod(),
        group_by: 'channel',
        with_conversions: 'true',
        per_page: '1000',
      })
      .expect(200);
    const expected = [
      'channel,clicks,shares,clicks_per_share,pageviews,goal_total_count,goal_total_value',
      ...(api.body.groups as RangeGroup[]).map((g) =>
        [
          g.channel,
          g.clicks,
          g.shares,
          g.clicks_per_share,
          g.conversions.pageviews,
          g.conversions.goal_total.count,
          g.conversions.goal_total.value,
        ].join(','),
      ),
    ].join('\n');
    expect(csv).toBe(`${expected}\n`);
    expect(csv).toBe(
      'channel,clicks,shares,clicks_per_share,pageviews,goal_total_count,goal_total_value\ntwitter,1,1,1,0,1,1999\n',
    );

    // The Export form downloads the dashboard's clicks (the API's file for its period): the one click.
    const [exported] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export what the dashboard shows' }).click(),
    ]);
    expect(exported.suggestedFilename()).toMatch(/^svc-clicks-\d{8}-\d{8}\.csv$/);
    const clickLines = readFileSync(await exported.path(), 'utf8')
      .trim()
      .split('\n');
    expect([clickLines.length, clickLines[1].split(',')[2]]).toEqual([2, `"${svcId}"`]);

    // A filter carries into the chart and every table.
    await page.getByLabel('Campaign filter').fill('other-campaign');
    await page.getByRole('button', { name: 'Apply' }).click();
    await eventually("the chart's empty totals", async () =>
      expect(await chart.getAttribute('data-totals')).toBe('0 clicks, 0 shares, 0 conversions'),
    );
    await channels.getByText('No activity in this period.').waitFor();
    await page.getByRole('button', { name: 'Remove the campaign filter' }).click();
    await eventually("the chart's totals", async () =>
      expect(await chart.getAttribute('data-totals')).toBe('1 clicks, 1 shares, 1 conversions'),
    );
    // The tables load after the chart: the channel's row is back before the page is resized.
    await eventually("the channel's row", async () =>
      expect(await channels.locator('tbody td').allTextContents()).toHaveLength(6),
    );

    // At phone width nothing overflows the page sideways: each table's rows stacked, every
    // column's value shown, the link on one line.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-phone.png'), fullPage: true });
    await expect(
      page.evaluate<number>('document.documentElement.scrollWidth'),
    ).resolves.toBeLessThanOrEqual(390);
    await tablesShowEveryColumn();
    await expect(channels.locator('tbody td').allTextContents()).resolves.toEqual([
      '1',
      '1',
      '1',
      '0',
      '1',
      '1,999',
    ]);
    await expect(
      page.evaluate<string[]>(
        `[...document.querySelectorAll('section[data-group-by="channel"] tbody td')].map((cell) => getComputedStyle(cell, '::before').content)`,
      ),
    ).resolves.toEqual(
      ['Clicks', 'Shares', 'Clicks per share', 'Pageviews', 'Conversions', 'Value'].map(
        (label) => `"${label}: "`,
      ),
    );
    await expect(linksOnOneLine()).resolves.toEqual([{ text: svcId, title: svcId }]);
    await page.setViewportSize({ width: 1280, height: 900 });

    // The link page: its clicks, latest click and chart.
    await page.locator('section[data-group-by="svc_id"] tbody a').first().click();
    await page.getByRole('heading', { name: /^Link / }).waitFor();
    await expect(page.locator('[data-total="All-time clicks"] dd').textContent()).resolves.toBe(
      '1',
    );
    await expect(page.locator('figure.chart').getAttribute('data-totals')).resolves.toBe(
      '1 clicks, 1 conversions',
    );
    await expect(page.getByRole('row', { name: /^Signup 1 1999$/ }).count()).resolves.toBe(1);
    await check('link');

    // Destroy the project, confirmed by its name.
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Projects' })
      .click();
    await row.getByRole('link', { name: 'Settings of console-e2e' }).click();
    const destroy = page.getByRole('button', { name: 'Destroy console-e2e' });
    await expect(destroy.isDisabled()).resolves.toBe(true);
    await page.getByLabel('Type console-e2e to confirm').fill('console-e2e');
    await destroy.click();
    await page.getByText('No project yet').waitFor();
    await check('projects-after-destroy');
    await t.http.get('/stats/range.json').query({ v: '3', key: apiKey }).expect(403);
  }, 120_000);

  it('shows where, on what and from which site the clicks came: a world map, tables that filter the page, CSV', async () => {
    const { api_key: key } = await createProject(t);
    const link = await createLink(t, key, { url: landingUrl, channel: 'email' });
    // Six visitors in browsers of their own, from public addresses of four countries (DB-IP City
    // Lite places them), on three kinds of browser, from two sites or none.
    const visits: [string, string, string | undefined][] = [
      ['8.8.8.8', AGENTS.desktopChrome, 'http://www.google.com/search?q=svc'],
      ['8.8.8.8', AGENTS.iphoneSafari, 'http://t.co/x1'],
      ['8.8.8.8', AGENTS.desktopChrome, undefined],
      ['81.2.69.142', AGENTS.androidChrome, undefined],
      ['1.1.1.1', AGENTS.desktopChrome, 'http://google.com/'],
      ['193.0.6.139', AGENTS.iphoneSafari, undefined],
    ];
    for (const [address, userAgent, referer] of visits) {
      const visitorContext = await browser.newContext({
        userAgent,
        extraHTTPHeaders: { 'X-Forwarded-For': address },
      });
      const visitor = await visitorContext.newPage();
      await visitor.goto(link.svc_url, { referer });
      expect(visitor.url()).toMatch(/^http:\/\/localhost:\d+\/article/);
      await visitorContext.close();
    }
    await t.settle();

    await page.goto(`${base}/console/sign-in`);
    const signOut = page.getByRole('button', { name: 'Sign out' });
    if ((await signOut.count()) > 0) await signOut.click();
    await page.getByLabel('Project API key').fill(key);
    await page.getByRole('button', { name: 'Sign in to the project' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();

    /** A breakdown's rows as [value, clicks], in the table's order. */
    const rows = async (groupBy: string): Promise<[string, string][]> => {
      const table = page.locator(`section[data-group-by="${groupBy}"]`);
      await table.locator('tbody tr').first().waitFor();
      await page.waitForFunction(
        `!document.querySelector('section[data-group-by="${groupBy}"] table[aria-busy="true"]')`,
      );
      const values = await table.locator('tbody tr th').allTextContents();
      const clicks = await table.locator('tbody tr td:first-of-type').allTextContents();
      return values.map((v, i) => [v, clicks[i]]);
    };
    await expect(rows('country')).resolves.toEqual([
      ['United States', '3'],
      ['Australia', '1'],
      ['United Kingdom', '1'],
      ['Netherlands', '1'],
    ]);
    // The countries' table has no shares: they belong to links, not to visitors.
    // (Soft hyphens let a narrow column break the long headings.)
    await expect(
      page
        .locator('section[data-group-by="country"] thead th')
        .allTextContents()
        .then((headings) => headings.map((h) => h.replace(/\u00ad/g, ''))),
    ).resolves.toEqual(['Country', 'Clicks ▼', 'Pageviews', 'Conversions', 'Value']);
    await expect(rows('device')).resolves.toEqual([
      ['Desktop', '3'],
      ['Mobile', '3'],
    ]);
    await expect(rows('browser')).resolves.toEqual([
      ['Chrome', '4'],
      ['Safari', '2'],
    ]);
    await expect(rows('os')).resolves.toEqual([
      ['Windows', '3'],
      ['iOS', '2'],
      ['Android', '1'],
    ]);
    // Ties by value, direct visits (no value) last among them.
    await expect(rows('referrer_host')).resolves.toEqual([
      ['(direct)', '3'],
      ['google.com', '2'],
      ['t.co', '1'],
    ]);
    // The map: every country with clicks shaded, the United States darkest, the rest not.
    const map = page.locator('section[data-group-by="country"] figure.world-map');
    await map.locator('svg').waitFor();
    await expect(map.getAttribute('data-shaded')).resolves.toBe('4');
    const shaded: [string | null, string | null, string | null][] = [];
    for (const path of await map.locator('path[data-country]:not([data-clicks="0"])').all()) {
      shaded.push([
        await path.getAttribute('data-country'),
        await path.getAttribute('data-clicks'),
        await path.getAttribute('fill'),
      ]);
    }
    expect(shaded.map(([code, clicks]) => [code, clicks]).sort()).toEqual([
      ['AU', '1'],
      ['GB', '1'],
      ['NL', '1'],
      ['US', '3'],
    ]);
    expect(shaded.find(([code]) => code === 'US')?.[2]).toBe('rgb(11, 60, 140)');
    await expect(map.locator('path[data-country="FR"]').getAttribute('fill')).resolves.toBe(
      '#e8eaed',
    );
    await expect(map.locator('svg').getAttribute('aria-label')).resolves.toBe(
      'World map of clicks by country: United States 3 clicks, Australia 1 click, United Kingdom 1 click, Netherlands 1 click',
    );
    await expect(
      page.getByRole('link', { name: 'IP geolocation by DB-IP' }).getAttribute('href'),
    ).resolves.toBe('https://db-ip.com');
    await check('dashboard-visitors');
    // Every column of the breakdowns beside the map and in the two columns, and on a phone.
    await tablesShowEveryColumn();
    await page.setViewportSize({ width: 390, height: 844 });
    await check('dashboard-visitors-phone');
    await tablesShowEveryColumn();
    await page.setViewportSize({ width: 1280, height: 900 });

    // Sortable: the browsers by clicks, fewest first.
    await page
      .locator('section[data-group-by="browser"]')
      .getByRole('button', { name: /^Clicks/ })
      .click();
    await eventually('the browsers', async () =>
      expect((await rows('browser')).map(([v]) => v)).toEqual(['Safari', 'Chrome']),
    );

    // The countries as CSV: every row of the query, as the API answers it.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV of Top countries' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(
      /^svc-country-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/,
    );
    const csv = readFileSync(await download.path(), 'utf8');
    const api = await t.http
      .get('/stats/range.json')
      .query({
        v: '3',
        key,
        ...defaultPeriod(),
        group_by: 'country',
        with_conversions: 'true',
        per_page: '1000',
      })
      .expect(200);
    const countries = api.body.groups as { country: string | null; clicks: number; shares: null }[];
    expect(countries.every((g) => g.shares === null)).toBe(true);
    expect(csv).toBe(
      'country,clicks,pageviews,goal_total_count,goal_total_value\n' +
        countries.map((g) => `${g.country},${g.clicks},0,0,0\n`).join(''),
    );
    expect(csv.split('\n').slice(1, 3)).toEqual(['US,3,0,0,0', 'AU,1,0,0,0']);

    // A country in the table filters the whole dashboard: totals, chart and every breakdown.
    await page
      .locator('section[data-group-by="country"]')
      .getByRole('button', { name: 'United Kingdom' })
      .click();
    await expect(
      page.getByRole('list', { name: 'Filters applied' }).textContent(),
    ).resolves.toMatch(/country: United Kingdom/);
    await eventually("the chart's totals", async () =>
      expect(await page.locator('figure.chart').getAttribute('data-totals')).toBe(
        '1 clicks, 0 conversions',
      ),
    );
    await eventually('the clicks total', async () =>
      expect(await page.locator('[data-total="Clicks"] dd').textContent()).toBe('1'),
    );
    await expect(page.locator('[data-total="Shares"] dd').textContent()).resolves.toBe('—');
    await eventually('the devices', async () =>
      expect(await rows('device')).toEqual([['Mobile', '1']]),
    );
    await expect(page.getByLabel('Country filter', { exact: true }).inputValue()).resolves.toBe(
      'GB',
    );
    // A device value adds its filter; removing the country's leaves it.
    await page
      .locator('section[data-group-by="device"]')
      .getByRole('button', { name: 'Mobile' })
      .click();
    await page.getByRole('button', { name: 'Remove the country filter' }).click();
    await eventually('the countries', async () =>
      expect(await rows('country')).toEqual([
        ['United Kingdom', '1'],
        ['Netherlands', '1'],
        ['United States', '1'],
      ]),
    );
    await page.getByRole('button', { name: 'Remove the device filter' }).click();
    // A shaded country on the map filters too.
    await eventually('the shaded countries', async () =>
      expect(await map.getAttribute('data-shaded')).toBe('4'),
    );
    await map.locator('path[data-country="US"]').dispatchEvent('click');
    await eventually('the clicks total', async () =>
      expect(await page.locator('[data-total="Clicks"] dd').textContent()).toBe('3'),
    );
    await eventually('the referrer hosts', async () =>
      expect(await rows('referrer_host')).toEqual([
        ['google.com', '1'],
        ['t.co', '1'],
        ['(direct)', '1'],
      ]),
    );
    await check('dashboard-filtered-by-country');

    // The link page: the same breakdowns of this link's clicks, filtering its chart.
    await page.goto(`${base}/console/links/${encodeURIComponent(link.svc_id)}`);
    await page.getByRole('heading', { name: /^Link / }).waitFor();
    await expect(rows('country')).resolves.toEqual([
      ['United States', '3'],
      ['Australia', '1'],
      ['United Kingdom', '1'],
      ['Netherlands', '1'],
    ]);
    await expect(rows('device')).resolves.toEqual([
      ['Desktop', '3'],
      ['Mobile', '3'],
    ]);
    await expect(
      page.locator('section[data-group-by="country"] figure.world-map').getAttribute('data-shaded'),
    ).resolves.toBe('4');
    await expect(page.getByRole('link', { name: 'IP geolocation by DB-IP' }).count()).resolves.toBe(
      1,
    );
    await check('link-visitors');
    await page
      .locator('section[data-group-by="browser"]')
      .getByRole('button', { name: 'Safari' })
      .click();
    await eventually("the chart's totals", async () =>
      expect(await page.locator('figure.chart').getAttribute('data-totals')).toBe(
        '2 clicks, 0 conversions',
      ),
    );
    await eventually('the operating systems', async () =>
      expect(await rows('os')).toEqual([['iOS', '2']]),
    );
    const [devices] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV of Devices' }).click(),
    ]);
    expect(readFileSync(await devices.path(), 'utf8')).toBe(
      'device,clicks,pageviews,goal_total_count,goal_total_value\nmobile,2,0,0,0\n',
    );
    await check('link-filtered-by-browser');
  }, 90_000);

  it('signs in with a project key, and refuses a wrong one with a clear message', async () => {
    const fresh = await context.newPage();
    const mine: string[] = [];
    fresh.on('console', (m) => m.type() === 'error' && mine.push(m.text()));
    await fresh.goto(`${base}/console/sign-in`);
    await fresh.getByLabel('Project API key').fill('0'.repeat(64));
    await fresh.getByRole('button', { name: 'Sign in to the project' }).click();
    await expect(fresh.getByRole('alert').textContent()).resolves.toMatch(
      /Invalid API key specified/,
    );
    expect(mine.every((m) => /403/.test(m))).toBe(true);
    await fresh.close();
  });

  it('with a project key: creates links in a batch, updates post information, finds a link', async () => {
    const { api_key: key } = await createProject(t);
    await page.goto(`${base}/console/sign-in`);
    // Signed in for administration by the test before (when run alone, nothing to sign out of).
    const signOut = page.getByRole('button', { name: 'Sign out' });
    if ((await signOut.count()) > 0) await signOut.click();
    await expect(page.evaluate<number>('sessionStorage.length')).resolves.toBe(0);
    await page.getByLabel('Project API key').fill(key);
    await page.getByRole('button', { name: 'Sign in to the project' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await expect(
      page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents(),
    ).resolves.toEqual(['Links', 'Dashboard']);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Links' })
      .click();

    await page
      .getByLabel('URLs, one a line')
      .fill(`${landingUrl}?a\n${landingUrl}?b\n\n${landingUrl}?c`);
    await page.locator('#batch-channel').selectOption('email');
    await page.getByRole('button', { name: 'Create links', exact: true }).click();
    const created = page.getByRole('table', { name: 'Links created' });
    await created.waitFor();
    await expect(created.locator('tbody tr td.break').allTextContents()).resolves.toEqual([
      `${landingUrl}?a`,
      `${landingUrl}?b`,
      `${landingUrl}?c`,
    ]);
    const links = await t.db.query<{ channel: string }>(
      `SELECT channel FROM links ORDER BY created_at DESC LIMIT 3`,
    );
    expect(links.rows.map((r) => r.channel)).toEqual(['email', 'email', 'email']);
    const first = (await created.locator('tbody tr th a').first().textContent())!;

    await page
      .getByLabel('Link (svc_id)', { exact: true })
      .fill(`127.0.0.1:${new URL(base).port}_${new URL(first).pathname.slice(1)}`);
    await page.getByLabel('Post (service:post_id)').fill('email:msg-42');
    await page.getByLabel('Reach (followers at share time)').fill('1200');
    await page.getByRole('button', { name: 'Update post information' }).click();
    await page.getByText(/^Updated 127\.0\.0\.1:\d+_\w+ at /).waitFor();
    await check('links-batch');

    await page.getByLabel('Short link').fill(first);
    await page.getByRole('button', { name: 'Open link' }).click();
    await page.getByRole('heading', { name: /^Link / }).waitFor();
    await expect(page.getByText('email:msg-42 (reach 1200)').count()).resolves.toBe(1);
    await check('link-found');
  }, 60_000);

  it('lists the links (search, filters, sort by clicks, pages), opens one and sets, checks and clears its controls', async () => {
    const { api_key: key } = await createProject(t);
    // Twelve links, oldest first: three channels, two campaigns, two with notes to search.
    const made: LinkRecord[] = [];
    for (let i = 1; i <= 12; i++) {
      made.push(
        await createLink(t, key, {
          url: `${landingUrl}?n=${i}`,
          channel: ['email', 'facebook', 'twitter'][i % 3],
          campaign: i <= 6 ? 'spring' : 'autumn',
          campaign_description: i <= 6 ? 'Spring posts' : 'Autumn posts',
          ...(i === 4 || i === 9 ? { notes: 'Weekly newsletter' } : {}),
        }),
      );
    }
    const [, , third, , , , seventh, , , tenth] = made;
    // A visitor clicks the third link three times, the seventh twice, the tenth once.
    const visitorContext = await browser.newContext({ userAgent: AGENTS.desktopChrome });
    const visitor = await visitorContext.newPage();
    for (const link of [third, third, third, seventh, seventh, tenth]) {
      await visitor.goto(link.svc_url);
      expect(visitor.url()).toMatch(/^http:\/\/localhost:\d+\/article\?n=/);
    }
    await visitorContext.close();
    await t.settle();
    /** A page of url/list.json as the API answers it. */
    const listed = async (query: Record<string, string>): Promise<ListedLink[]> =>
      (
        await t.http
          .get('/url/list.json')
          .query({ v: '3', key, ...query })
          .expect(200)
      ).body.links as ListedLink[];
    await eventually(
      'the links sorted by clicks',
      async () =>
        expect((await listed({ sort_type: 'clicks', per_page: '3' })).map((l) => l.clicks)).toEqual(
          [3, 2, 1],
        ),
      10_000,
    );

    await page.goto(`${base}/console/sign-in`);
    const signOut = page.getByRole('button', { name: 'Sign out' });
    if ((await signOut.count()) > 0) await signOut.click();
    await page.getByLabel('Project API key').fill(key);
    await page.getByRole('button', { name: 'Sign in to the project' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Links' })
      .click();

    const list = page.locator('section.link-list');
    const pager = list.getByRole('navigation', { name: 'Pages of links' });
    /**
     * The rows of the list once loaded: svc_id, clicks and badges of each, read in one step (a
     * page or a search asked just before may replace the rows between reads of one at a time).
     */
    const rows = async (): Promise<[string | null, string, string][]> => {
      await list.locator('tbody tr, .empty').first().waitFor();
      await page.waitForFunction(
        `!document.querySelector('section.link-list table[aria-busy="true"]')`,
      );
      return page.evaluate<[string | null, string, string][]>(`
        [...document.querySelectorAll('section.link-list tbody tr')].map((tr) => [
          tr.getAttribute('data-svc-id'),
          tr.querySelector('td.num')?.textContent ?? '',
          tr.querySelector('td[data-label="Controls"]')?.textContent ?? '',
        ])`);
    };
    const ids = async () => (await rows()).map(([id]) => id);
    const newest = (links: LinkRecord[]) => links.map((l) => l.svc_id).reverse();

    // Newest first, ten a page: "Page x of y (n in all)" as the stats tables say it.
    await eventually('the listed links', async () =>
      expect(await ids()).toEqual(newest(made.slice(2))),
    );
    await expect(pager.textContent()).resolves.toMatch(/Page 1 of 2 \(12 in all\)/);
    const firstRow = list.locator(`tr[data-svc-id="${made[11].svc_id}"]`);
    await expect(firstRow.locator('th').textContent()).resolves.toBe(
      made[11].svc_url.replace('http://', ''),
    );
    await expect(firstRow.locator('td[data-label="Goes to"]').textContent()).resolves.toBe(
      `${landingUrl}?n=12`,
    );
    await expect(firstRow.locator('td[data-label="Channel"]').textContent()).resolves.toBe('email');
    await expect(firstRow.locator('td[data-label="Campaign"]').textContent()).resolves.toBe(
      'autumn',
    );
    await check('links-list');
    await pager.getByRole('button', { name: 'Next' }).click();
    await eventually('the listed links', async () =>
      expect(await ids()).toEqual(newest(made.slice(0, 2))),
    );
    await expect(pager.textContent()).resolves.toMatch(/Page 2 of 2 \(12 in all\)/);
    await expect(pager.getByRole('button', { name: 'Next' }).isDisabled()).resolves.toBe(true);
    await pager.getByRole('button', { name: 'Previous' }).click();
    await eventually('the listed links', async () =>
      expect(await ids()).toEqual(newest(made.slice(2))),
    );

    // A search: every word in the URL, notes, tag or campaign.
    await list.getByLabel('Search', { exact: true }).fill('newsletter');
    await list.getByRole('button', { name: 'Search', exact: true }).click();
    await eventually('the listed links', async () =>
      expect(await ids()).toEqual([made[8].svc_id, made[3].svc_id]),
    );
    await expect(pager.textContent()).resolves.toMatch(/Page 1 of 1 \(2 in all\)/);
    await list.getByRole('button', { name: 'Clear search and filters' }).click();
    await eventually('the listed links', async () =>
      expect(await ids()).toEqual(newest(made.slice(2))),
    );
    await expect(list.getByLabel('Search', { exact: true }).inputValue()).resolves.toBe('');

    // Filters combine: facebook links (1, 4, 7, 10) of the autumn campaign (7 to 12).
    await list.getByText('Filters: channel, campaign, tag, domain').click();
    await list.getByLabel('Channel filter').fill('facebook');
    await list.getByLabel('Campaign filter').fill('autumn');
    await list.getByRole('button', { name: 'Search', exact: true }).click();
    await eventually('the listed links', async () =>
      expect(await ids()).toEqual([tenth.svc_id, seventh.svc_id]),
    );
    expect(new URL(page.url()).search).toBe('?channel=facebook&campaign=autumn');
    await list.getByLabel('Search', { exact: true }).fill('no-such-word');
    await list.getByRole('button', { name: 'Search', exact: true }).click();
    await list.getByText('No link matches this search and these filters.').waitFor();
    await list.getByRole('button', { name: 'Clear search and filters' }).click();

    // Most clicked first, by the sort choice or the column's heading (which turns it around).
    await list.getByLabel('Sort').selectOption({ label: 'Most clicked first' });
    await eventually('the links by clicks', async () =>
      expect((await rows()).slice(0, 4).map(([id, clicks]) => [id, clicks])).toEqual([
        [third.svc_id, '3'],
        [seventh.svc_id, '2'],
        [tenth.svc_id, '1'],
        [expect.any(String), '0'],
      ]),
    );
    await expect(
      list.getByRole('columnheader', { name: /^Clicks/ }).getAttribute('aria-sort'),
    ).resolves.toBe('descending');
    await list.getByRole('button', { name: /^Clicks/ }).click();
    // Nine links without clicks, then the tenth's one.
    await eventually('the links by clicks, fewest first', async () =>
      expect((await rows()).map(([, clicks]) => clicks)).toEqual([
        ...Array<string>(9).fill('0'),
        '1',
      ]),
    );
    await expect(list.getByLabel('Sort').inputValue()).resolves.toBe('clicks asc');
    await list.getByLabel('Sort').selectOption({ label: 'Most clicked first' });
    await eventually('the most clicked link first', async () =>
      expect((await ids())[0]).toBe(third.svc_id),
    );
    expect(new URL(page.url()).search).toBe('?sort=clicks');

    // A row's short link opens its link page.
    await list.locator(`tr[data-svc-id="${third.svc_id}"] th a`).click();
    await page.getByRole('heading', { name: `Link ${third.svc_id}`, level: 1 }).waitFor();
    const controls = page.locator('form.controls');
    await expect(controls.locator('.card-head').textContent()).resolves.toBe('Controls—');
    await expect(
      controls.getByRole('button', { name: 'Save controls' }).isDisabled(),
    ).resolves.toBe(true);

    // Expiry at a time and after 100 clicks, a password, a country target, disabled.
    await controls.getByLabel('Expires at').fill('2030-06-01T12:00');
    await controls.getByLabel('Maximum clicks').fill('100');
    await controls.getByLabel('Password', { exact: true }).fill('open sesame');
    await controls.getByRole('button', { name: 'Add a country' }).click();
    // The new row's country field takes the focus in an effect, after the row is painted.
    await page.waitForFunction(
      "(document.activeElement?.id ?? '').startsWith('geo-country-')",
      null,
      {
        timeout: 5000,
      },
    );
    await controls.getByLabel('Country of rule 1').fill('de');
    await controls.getByText('Germany').waitFor();
    await controls.getByLabel('Goes to (rule 1)').fill('https://example.com/de');
    await controls.getByRole('switch', { name: 'Disabled' }).check();
    await controls.getByRole('button', { name: 'Save controls' }).click();
    await controls.getByText(/^Controls saved at /).waitFor();
    const [record] = await listed({ svc_id: third.svc_id });
    expect(record).toEqual(
      expect.objectContaining({
        expires_at: '2030-06-01T12:00:00Z',
        max_clicks: 100,
        disabled: true,
        password_protected: true,
        geo: { DE: 'https://example.com/de' },
      }),
    );
    expect(record).not.toHaveProperty('expired_url');
    // The password is never shown; the disabled link answers as not found.
    await expect(controls.getByLabel('New password').inputValue()).resolves.toBe('');
    await expect(page.content()).resolves.not.toContain('open sesame');
    await expect(controls.locator('.card-head .badge').allTextContents()).resolves.toEqual([
      'Expires',
      'Disabled',
      'Password',
      'Targeted',
    ]);
    await t.http.get(`/${third.path}`).set('Host', third.domain).expect(404);
    await check('link-controls');

    // The API's refusal shows in the card; "Undo changes" goes back to the saved controls.
    await controls.getByLabel('Expires at').fill('2001-01-01T00:00');
    await controls.getByRole('button', { name: 'Save controls' }).click();
    await expect(controls.getByRole('alert').textContent()).resolves.toMatch(
      /expires_at.*must be in the future/,
    );
    // The browser reports the 400 answer as a console error: expected here.
    await eventually("the browser's console errors", async () =>
      expect([...errors]).toEqual([
        expect.stringMatching(/^400 POST .*\/url\/update\/.+\.json$/),
        expect.stringMatching(/status of 400/),
      ]),
    );
    errors.length = 0;
    await controls.getByRole('button', { name: 'Undo changes' }).click();
    await expect(controls.getByLabel('Expires at').inputValue()).resolves.toBe('2030-06-01T12:00');
    await expect(controls.getByRole('alert').count()).resolves.toBe(0);

    // Enabled again, the password and the expiry time removed: only what changed is sent.
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/url/update/')) sent.push(request.postData() ?? '');
    });
    await controls.getByRole('switch', { name: 'Disabled' }).uncheck();
    await controls.getByRole('button', { name: 'Remove the password' }).click();
    await controls.getByRole('button', { name: 'Clear the expiry time' }).click();
    await expect(page.evaluate('document.activeElement.id')).resolves.toBe('ctl-expires-at');
    await controls.getByRole('button', { name: 'Save controls' }).click();
    await controls.getByText(/^Controls saved at /).waitFor();
    expect(sent).toHaveLength(1);
    expect([...new URLSearchParams(sent[0]).entries()].filter(([name]) => name !== 'key')).toEqual([
      ['v', '3'],
      ['tool', 'console'],
      ['expires_at', ''],
      ['disabled', 'false'],
      ['password', ''],
    ]);
    const [cleared] = await listed({ svc_id: third.svc_id });
    expect(cleared).toEqual(
      expect.objectContaining({ max_clicks: 100, geo: { DE: 'https://example.com/de' } }),
    );
    for (const gone of ['expires_at', 'disabled', 'password_protected']) {
      expect(cleared).not.toHaveProperty(gone);
    }
    await t.http.get(`/${third.path}`).set('Host', third.domain).expect(302);
    await expect(controls.locator('.card-head .badge').allTextContents()).resolves.toEqual([
      'Expires',
      'Targeted',
    ]);

    // At phone width: the controls, then the list as left (most clicked first), nothing sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await check('link-controls-phone');
    await expect(
      page.evaluate<number>('document.documentElement.scrollWidth'),
    ).resolves.toBeLessThanOrEqual(390);
    await page.getByRole('link', { name: '← Links' }).click();
    await eventually('the most clicked link first', async () =>
      expect((await ids())[0]).toBe(third.svc_id),
    );
    expect(new URL(page.url()).search).toBe('?sort=clicks');
    await expect(
      list.locator(`tr[data-svc-id="${third.svc_id}"] td[data-label="Controls"]`).textContent(),
    ).resolves.toBe('ExpiresTargeted');
    await check('links-list-phone');
    await expect(
      page.evaluate<number>('document.documentElement.scrollWidth'),
    ).resolves.toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 90_000);

  it('serves client routes with the index page, assets with a long cache, and a link path "console" is refused', async () => {
    const route = await t.http.get('/console/dashboard').expect(200);
    expect(route.headers['cache-control']).toBe('no-cache');
    expect(route.headers['content-security-policy']).toContain("default-src 'self'");
    const asset = /\/console\/(assets\/[^"]+\.js)/.exec(route.text)![1];
    const js = await t.http.get(`/console/${asset}`).expect(200);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    await t.http.get('/console/assets/missing.js').expect(404);
    const { api_key: key } = await createProject(t);
    const refused = await t.http
      .get('/url.json')
      .query({
        v: '3',
        key,
        tool: 't',
        channel: 'email',
        url: 'https://example.com/',
        path: 'console',
      })
      .expect(400);
    expect(refused.body.error_message).toMatch(/path/);
  });
});
