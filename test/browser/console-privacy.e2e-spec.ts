import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Browser, Page } from 'playwright-core';
import { CONSOLE_DIST } from '../../src/web-console/web-console';
import { TestApp, createTestApp } from '../support/app';
import { freePort, launchChromium, seriousAxeViolations } from '../support/browser';
import { waitForClicks } from '../support/clicks';
import { tracesOf } from '../support/traces';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';

/** Screenshots of the Privacy page, written by each run (gitignored). */
const SHOTS = path.join(__dirname, '..', '..', 'test-results', 'console');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A visitor of their own: an address in the test GeoIP data (GB, London), a user agent, a session. */
function visitor(last: number) {
  const mark = randomBytes(6).toString('hex');
  return {
    ip: `81.2.69.${last}`,
    agent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Privacy/${mark}`,
    session: `sess-${mark}`,
  };
}
type Visitor = ReturnType<typeof visitor>;

/** The cells of a CSV line (CSVWithNames: strings quoted, "" inside them). */
function csvCells(line: string): string[] {
  return [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)]
    .slice(0, -1)
    .map(([, cell]) => (cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell));
}

/**
 * A project's Privacy page in the web console (docs/api.md, "Addresses", "Retention", "Erasure"),
 * in Debian's Chromium against the real service: address storage and retention set on the page and
 * read back through the API; an erasure by session (a bad address first: the API's message naming
 * the parameter), its receipt against the audit and both stores; then the dashboard's Export of a
 * filtered period, which holds the erased click without its address or user agent.
 */
describe('in a real browser: the Privacy page of a project', () => {
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
    // TRUST_PROXY: the visitors' addresses come from X-Forwarded-For (public ones, to be placed).
    t = await createTestApp({ env: { DEFAULT_DOMAIN: `127.0.0.1:${port}`, TRUST_PROXY: 'true' } });
    await t.app.listen(port, '127.0.0.1');
    base = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    // bypassCSP: axe-core is injected as an inline script, which the console's policy refuses.
    const context = await browser.newContext({
      timezoneId: 'UTC',
      locale: 'en-US',
      bypassCSP: true,
      acceptDownloads: true,
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

  /** The project as the administration API shows it. */
  async function shown(key: string): Promise<Record<string, unknown>> {
    const res = await t.http
      .post(`/projects/${key}/show`)
      .type('form')
      .send({ subscription_key: t.subscriptionKey, application_key: t.applicationKey })
      .expect(200);
    return res.body.response.project as Record<string, unknown>;
  }

  /** The visitor's click on the link, stored, and (with a session) their conversion from the page. */
  async function visit(
    key: string,
    link: { path: string; domain: string; svc_id: string },
    v: Visitor,
    convert: boolean,
  ): Promise<void> {
    await t.http
      .get(`/${link.path}`)
      .set('Host', link.domain)
      .set('User-Agent', v.agent)
      .set('X-Forwarded-For', v.ip)
      .expect(302);
    await waitForClicks(t, { [link.svc_id]: { clicks: 1, bots: 0 } });
    if (!convert) return;
    await t.http
      .get('/conversions/new')
      .set('User-Agent', v.agent)
      .set('X-Forwarded-For', v.ip)
      .query({
        key,
        svc_url: link.svc_id,
        conversion_type: 'goal_1',
        conversion_value: '100',
        read_headers: 'true',
        session_id: v.session,
      })
      .expect(200);
  }

  it('sets address storage and retention, erases a visitor by session with its receipt, and exports the dashboard', async () => {
    const project = await createProject(t, {
      name: 'privacy-e2e',
      conversions: { enabled: true, domains: 'all', goal_1_label: 'Signup' },
    });
    const key = project.api_key;
    // The visitor to erase clicked a twitter link and converted; another clicked an e-mail link.
    const erased = visitor(142);
    const other = visitor(200);
    const tweet = await createLink(t, key, { url: 'https://shop.example/a', channel: 'twitter' });
    const mail = await createLink(t, key, { url: 'https://shop.example/b', channel: 'email' });
    await visit(key, tweet, erased, true);
    await visit(key, mail, other, false);
    // The conversion record keeps the whole address and user agent (ip_storage unset).
    const before = await tracesOf(t, erased.session);
    expect(before.postgresql.conversions).toBe(1);
    expect((await tracesOf(t, erased.agent)).analytics.clicks).toBe(1);

    await page.goto(`${base}/console/sign-in`);
    await page.getByLabel('Subscription key').fill(t.subscriptionKey);
    await page.getByLabel('Application key').fill(t.applicationKey);
    await page.getByRole('button', { name: 'Sign in for administration' }).click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Settings of privacy-e2e' }).click();
    await page.getByRole('heading', { name: 'Project privacy-e2e', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Privacy of privacy-e2e' }).click();
    await page.getByRole('heading', { name: 'Privacy of privacy-e2e', level: 1 }).waitFor();
    expect(page.url()).toBe(`${base}/console/projects/${key}/privacy`);
    await page.getByText('No erasure yet.').waitFor();

    // Address storage: the instance's default and full user agents at first, each with its sentence.
    const ips = page.getByRole('group', { name: 'IP addresses' });
    const agents = page.getByRole('group', { name: 'User agents' });
    await expect(ips.getByLabel('Instance default').isChecked()).resolves.toBe(true);
    await expect(agents.getByLabel('Full').isChecked()).resolves.toBe(true);
    await expect(ips.getByText('81.2.69.160 becomes 81.2.69.0').count()).resolves.toBe(1);
    await ips.getByLabel('Anonymised').check();
    await agents.getByLabel('Parsed').check();
    await page.getByRole('button', { name: 'Save address storage' }).click();
    await page.getByText('Address storage saved.').waitFor();
    // Retention: 30 days instead of the instance's default.
    const kept = page.getByRole('group', { name: 'Raw clicks and conversions are kept' });
    await expect(kept.getByLabel('Instance default').isChecked()).resolves.toBe(true);
    await expect(page.getByLabel('Days kept').isDisabled()).resolves.toBe(true);
    await kept.getByLabel('For a number of days').check();
    await page.getByLabel('Days kept').fill('30');
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.getByText('Retention saved.').waitFor();
    await expect(shown(key)).resolves.toMatchObject({
      ip_storage: 'anonymised',
      ua_storage: 'parsed',
      retention_days: 30,
    });
    // The page, loaded again, shows what the API holds.
    await page.reload();
    await page.locator('form[data-retention-days="30"]').waitFor();
    await expect(ips.getByLabel('Anonymised').isChecked()).resolves.toBe(true);
    await expect(agents.getByLabel('Parsed').isChecked()).resolves.toBe(true);
    await expect(kept.getByLabel('For a number of days').isChecked()).resolves.toBe(true);
    await expect(page.getByLabel('Days kept').inputValue()).resolves.toBe('30');
    await check('privacy-settings');

    // An address that is none: the API's message, naming the parameter, beside the form.
    const erase = page.locator('form.erase');
    await erase.getByLabel('Whose data').selectOption('ip');
    await erase.getByLabel('Identifier (ip)').fill('not-an-address');
    await erase.getByRole('button', { name: 'Erase…' }).click();
    await erase.getByRole('button', { name: 'Erase now' }).click();
    await expect(erase.getByRole('alert').textContent()).resolves.toMatch(
      /^Invalid parameter json\.ip: /,
    );
    expect(errors.filter((e) => !e.includes('status of 400'))).toEqual([
      `400 POST ${base}/projects/${key}/erase`,
    ]);
    errors.length = 0;

    // The visitor, by session: a confirmation naming it, then the receipt.
    await erase.getByLabel('Whose data').selectOption('session_id');
    await erase.getByLabel('Identifier (session_id)').fill(erased.session);
    await erase.getByRole('button', { name: 'Erase…' }).click();
    const confirmation = erase.getByRole('group', { name: /^Erase the visitor with session_id/ });
    await expect(confirmation.locator('code').textContent()).resolves.toBe(erased.session);
    await check('privacy-erase-confirm');
    await confirmation.getByRole('button', { name: 'Erase now' }).click();
    const receipt = page.locator('section.receipt');
    await receipt.waitFor();
    const id = (await receipt.getAttribute('data-erasure-id')) ?? '';
    expect(id).toMatch(UUID);
    await expect(erase.getByLabel('Identifier (session_id)').inputValue()).resolves.toBe('');

    // The receipt is the audit's record: id, kind, time, rows per store and table.
    const listed = await t.http
      .post(`/projects/${key}/erasures`)
      .type('form')
      .send({ subscription_key: t.subscriptionKey, application_key: t.applicationKey })
      .expect(200);
    expect(listed.body.response.total_results).toBe(1);
    const [record] = listed.body.response.erasures as {
      id: string;
      by: string;
      complete: boolean;
      erased_at: string;
      rows: Record<string, Record<string, number>>;
    }[];
    expect(record).toMatchObject({ id, by: 'session_id', complete: true });
    // The conversion record, and the click it was attributed to.
    expect(record.rows.postgresql.conversions).toBe(1);
    expect(record.rows.analytics.clicks).toBe(1);
    await expect(receipt.locator('[data-receipt="id"]').textContent()).resolves.toBe(id);
    await expect(receipt.locator('[data-receipt="by"]').textContent()).resolves.toBe('session_id');
    await expect(receipt.locator('[data-receipt="erased_at"]').textContent()).resolves.toBe(
      `${record.erased_at} UTC`,
    );
    await expect(receipt.locator('[data-receipt="complete"]').textContent()).resolves.toBe('yes');
    const cells = await page.evaluate<string[][]>(`
      [...document.querySelectorAll('section.receipt tbody tr')].map((tr) =>
        [tr.dataset.store, tr.dataset.table, tr.querySelector('td.num').textContent])`);
    expect(cells.sort()).toEqual(
      Object.entries(record.rows)
        .flatMap(([store, tables]) =>
          Object.entries(tables).map(([table, n]) => [store, table, String(n)]),
        )
        .sort(),
    );
    // Past erasures: the one row, with its kind and counts, never the session.
    const row = page.locator(`section.erasures tr[data-erasure-id="${id}"]`);
    await row.waitFor();
    await expect(row.locator('td').first().textContent()).resolves.toBe('session_id');
    await expect(page.locator('section.erasures').textContent()).resolves.not.toContain(
      erased.session,
    );
    // Neither store holds the session, the address or the user agent any more.
    const none = { postgresql: {}, analytics: {} };
    await expect(tracesOf(t, erased.session)).resolves.toEqual(none);
    await expect(tracesOf(t, erased.agent)).resolves.toEqual(none);
    await expect(tracesOf(t, erased.ip)).resolves.toEqual(none);
    await check('privacy-erasure');

    // The dashboard's Export: its period and filter, the erased click without address or agent.
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Projects' })
      .click();
    await page.getByRole('button', { name: 'Dashboard of privacy-e2e' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.getByLabel('Channel filter').fill('twitter');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('button', { name: 'Remove the channel filter' }).waitFor();
    const [exported] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export what the dashboard shows' }).click(),
    ]);
    expect(exported.suggestedFilename()).toMatch(/^svc-clicks-\d{8}-\d{8}\.csv$/);
    const [header, ...lines] = readFileSync((await exported.path()) ?? '', 'utf8')
      .trim()
      .split('\n')
      .map(csvCells);
    const column = (name: string) => header.indexOf(name);
    expect(lines.map((l) => [l[column('svc_id')], l[column('channel')]])).toEqual([
      [tweet.svc_id, 'twitter'],
    ]);
    expect([lines[0][column('ip')], lines[0][column('user_agent')]]).toEqual(['\\N', '\\N']);
    expect(lines[0][column('country')]).toBe('GB');
    expect(errors).toEqual([]);
  }, 120_000);
});
