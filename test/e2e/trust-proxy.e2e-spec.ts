import { TestApp, createTestApp } from '../support/app';
import { createProject } from '../factories/projects';
import { createLink } from '../factories/links';
import { BROWSER, linkRow } from '../support/clicks';

/**
 * TRUST_PROXY (docs/operations.md, "Proxies"): the client is the rightmost X-Forwarded-For entry
 * that no trusted proxy sent. Entries a client writes itself on the left are never its address:
 * not for the country of geo rules and of the click's statistics, not for password attempts, not
 * for conversions/new with read_headers. The test's connection comes from loopback.
 */

const US = '8.8.8.8';
const GB = '81.2.69.142';
const GEO = JSON.stringify({ GB: 'https://example.com/gb', US: 'https://example.com/us' });

/** One wrong password per X-Forwarded-For value, posted in turn: the statuses answered. */
async function passwordStatuses(
  t: TestApp,
  path: string,
  tries: { xff: string; password: string }[],
): Promise<number[]> {
  const statuses: number[] = [];
  for (const { xff, password } of tries) {
    const res = await t.http
      .post(`/${path}`)
      .set('Host', 'svc.test')
      .set('X-Forwarded-For', xff)
      .type('form')
      .send({ password });
    statuses.push(res.status);
  }
  return statuses;
}

/** conversions/new with read_headers, through X-Forwarded-For `xff` (answered 200). */
const newConversion = (t: TestApp, key: string, svcId: string, xff: string) =>
  t.http
    .get('/conversions/new')
    .set('X-Forwarded-For', xff)
    .query({
      key,
      svc_url: svcId,
      conversion_type: 'pageview',
      conversion_value: '0',
      read_headers: 'true',
    })
    .expect(200);

describe.each([
  ['TRUST_PROXY=1 (one proxy: the connection)', '1', (forged: string) => `${forged}, ${GB}`],
  ['TRUST_PROXY=true (one hop)', 'true', (forged: string) => `${forged}, ${GB}`],
  [
    'TRUST_PROXY as a list of addresses and CIDRs',
    'loopback, 10.0.0.0/8, 2001:db8::/32',
    (forged: string) => `${forged}, ${GB}, 2001:db8::7, 10.0.0.9`,
  ],
])('%s', (_label, trustProxy, forwarded) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: trustProxy } });
    key = (await createProject(t, { conversions: { enabled: true, domains: 'all' } })).api_key;
  });
  afterAll(() => t.close());

  const visit = (path: string, xff: string) =>
    t.http
      .get(`/${path}`)
      .set('Host', 'svc.test')
      .set('User-Agent', BROWSER)
      .set('X-Forwarded-For', xff);

  it('a forged leftmost entry does not pick the geo rule nor the click’s country', async () => {
    const link = await createLink(t, key, { geo: GEO });
    const res = await visit(link.path, forwarded(US)).expect(302);
    expect(res.headers.location).toBe(`https://example.com/gb?svc=${link.svc_id}`);
    await t.settle();
    const { linkId } = await linkRow(t, link.svc_id);
    const rows = await t.analytics.query<{ country: string | null; ip: string | null }>(
      `SELECT country, ip FROM ${t.analytics.database}.clicks WHERE link_id = {link:UInt64}`,
      { link: Number(linkId) },
    );
    expect(rows).toEqual([{ country: 'GB', ip: '81.2.69.0' }]);
  });

  it('forged leftmost entries get no fresh password tries', async () => {
    const link = await createLink(t, key, { password: 'right' });
    const statuses = await passwordStatuses(
      t,
      link.path,
      Array.from({ length: 12 }, (_, i) => ({
        xff: forwarded(`203.0.113.${i + 1}`),
        password: `wrong ${i + 1}`,
      })),
    );
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 429, 429]);
  });

  it('conversions/new with read_headers takes the same address (Express’s req.ip)', async () => {
    const link = await createLink(t, key);
    const res = await newConversion(t, key, link.svc_id, forwarded('198.51.100.77'));
    expect(res.body.response.conversion.ip_address).toBe(GB);
  });
});

describe('TRUST_PROXY as a list: an untrusted hop ends the walk', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: '127.0.0.1, ::1, 10.0.0.0/8' } });
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  it('the address left of an untrusted one is the client’s own claim and is not read', async () => {
    const link = await createLink(t, key, { geo: GEO });
    const res = await t.http
      .get(`/${link.path}`)
      .set('Host', 'svc.test')
      .set('X-Forwarded-For', `${GB}, ${US}, 10.1.2.3`)
      .expect(302);
    expect(res.headers.location).toBe('https://example.com/us');
  });
});

describe('TRUST_PROXY=false (the default)', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: 'false' } });
    key = (await createProject(t, { conversions: { enabled: true, domains: 'all' } })).api_key;
  });
  afterAll(() => t.close());

  it('ignores X-Forwarded-For: no country from it, one password budget, conversions use the connection', async () => {
    const link = await createLink(t, key, { geo: GEO });
    const res = await t.http
      .get(`/${link.path}`)
      .set('Host', 'svc.test')
      .set('X-Forwarded-For', GB)
      .expect(302);
    expect(res.headers.location).toBe(`https://example.com/page?svc=${link.svc_id}`);
    const protectedLink = await createLink(t, key, { password: 'right' });
    const statuses = await passwordStatuses(
      t,
      protectedLink.path,
      Array.from({ length: 11 }, (_, i) => ({ xff: `203.0.113.${i + 1}`, password: 'wrong' })),
    );
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 429]);
    const conversion = await newConversion(t, key, link.svc_id, GB);
    expect(conversion.body.response.conversion.ip_address).toBe('127.0.0.1');
  });
});
