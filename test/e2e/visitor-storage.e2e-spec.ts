import { TestApp, createTestApp } from '../support/app';
import { waitForClicks } from '../support/clicks';
import { eventually } from '../support/eventually';
import { logCapture } from '../support/log-capture';
import { WebhookReceiver } from '../support/webhook-receiver';
import { adminCaller } from '../support/webhooks';
import { createLink } from '../factories/links';
import { createProject, updateProject } from '../factories/projects';

/**
 * How much of a visitor a project keeps (docs/api.md, "Addresses"): `ip_storage` and `ua_storage`,
 * set and shown through the project objects, applied to every copy of a click and a conversion —
 * the analytics store's clicks, the conversion record in PostgreSQL and conversions/new's answer —
 * while places and devices are taken from the whole address and user agent first, so statistics
 * count the same. Logs and webhook bodies never carry either. A project that never set them keeps
 * what it kept before: clicks as CLICK_IP says (anonymised, the default), conversion records the
 * address given.
 */

const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1';
/** In the test GeoIP data: GB, England, London (as test/e2e/stats-dimensions places 81.2.69.142). */
const LONDON = '81.2.69.160';
const DE6 = '2a00:1450:4001:80b::200e';

interface Project {
  key: string;
  id: string;
}

interface StoredClick {
  id: string;
  ip: string | null;
  user_agent: string | null;
  country: string | null;
  city: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
}

describe('visitor storage: ip_storage and ua_storage', () => {
  let t: TestApp;
  let receiverUrl: string;
  const log = logCapture();
  const receiver = new WebhookReceiver();
  const start_date = new Date(Date.now() - 86_400_000).toISOString();
  const end_date = new Date(Date.now() + 3_600_000).toISOString();

  beforeAll(async () => {
    receiverUrl = await receiver.start();
    t = await createTestApp({
      env: { TRUST_PROXY: 'true', WEBHOOK_ALLOW_LOOPBACK: 'true', LOG_LEVEL: 'info' },
      logDestination: log.destination,
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const admin = (route: string, json?: unknown) => adminCaller(t)(route, json);

  async function project(settings: Record<string, unknown> = {}): Promise<Project> {
    const { api_key: key } = await createProject(t, {
      conversions: { enabled: true, domains: 'all', goal_1_label: 'Signup' },
      ...settings,
    });
    const { rows } = await t.db.query<{ id: string }>(
      'SELECT id FROM projects WHERE api_key = $1',
      [key],
    );
    return { key, id: rows[0].id };
  }

  const show = async (key: string) =>
    (await admin(`/projects/${key}/show`).expect(200)).body.response.project as Record<
      string,
      unknown
    >;

  /** A click of a new link of the project from `ip`; the link's svc_id once the click is stored. */
  async function click(p: Project, ip: string): Promise<string> {
    const link = await createLink(t, p.key);
    await t.http
      .get(`/${link.path}`)
      .set('Host', 'svc.test')
      .set('X-Forwarded-For', ip)
      .set('User-Agent', SAFARI_IPHONE)
      .expect(302);
    await waitForClicks(t, { [link.svc_id]: { clicks: 1, bots: 0 } });
    return link.svc_id;
  }

  /** The project's clicks in the analytics store. */
  const storedClicks = (p: Project) =>
    t.analytics.query<StoredClick>(
      `SELECT toString(click_id) AS id, ip, user_agent, country, city, device, browser, os
       FROM ${t.analytics.database}.clicks WHERE project_id = {project:UUID} ORDER BY clicked_at`,
      { project: p.id },
    );

  /** A conversion from the visitor's page (read_headers: its address and user agent from the request). */
  async function convert(p: Project, svcId: string, ip: string) {
    const res = await t.http
      .get('/conversions/new')
      .set('X-Forwarded-For', ip)
      .set('User-Agent', SAFARI_IPHONE)
      .query({
        key: p.key,
        svc_url: svcId,
        conversion_type: 'goal_1',
        conversion_value: '100',
        read_headers: 'true',
      })
      .expect(200);
    const answer = res.body.response.conversion as Record<string, unknown> & { id: string };
    const { rows } = await t.db.query<{ ip: string | null; user_agent: string | null }>(
      'SELECT host(ip) AS ip, user_agent FROM conversions WHERE id = $1',
      [answer.id],
    );
    return { answer, record: rows[0] };
  }

  const range = (p: Project, query: Record<string, string>) =>
    t.http
      .get('/stats/range.json')
      .query({ v: '3', key: p.key, start_date, end_date, with_conversions: 'true', ...query })
      .expect(200);

  it('sets and shows both settings through the project objects; a bad value is a 400 naming it', async () => {
    const unset = await project();
    expect(await show(unset.key)).toMatchObject({ ip_storage: null, ua_storage: 'full' });
    const set = await project({ ip_storage: 'none', ua_storage: 'parsed' });
    expect(await show(set.key)).toMatchObject({ ip_storage: 'none', ua_storage: 'parsed' });
    const listed = (await admin('/projects/list').expect(200)).body.response.projects as {
      api_key: string;
      ip_storage: unknown;
      ua_storage: unknown;
    }[];
    expect(listed.find((p) => p.api_key === set.key)).toMatchObject({
      ip_storage: 'none',
      ua_storage: 'parsed',
    });

    await updateProject(t, set.key, { ip_storage: 'anonymised' });
    expect(await show(set.key)).toMatchObject({ ip_storage: 'anonymised', ua_storage: 'parsed' });
    await updateProject(t, set.key, { ip_storage: null, ua_storage: 'full' });
    expect(await show(set.key)).toMatchObject({ ip_storage: null, ua_storage: 'full' });

    const bad = await admin(`/projects/${set.key}/update`, { ip_storage: 'partial' }).expect(400);
    expect(bad.body.error).toEqual({
      code: 1002,
      message:
        "Invalid parameter json.ip_storage: must be one of full, anonymised, none, or null for the instance's default",
    });
    const badAgent = await admin('/projects/new', { name: 'bad_ua', ua_storage: 'none' }).expect(
      400,
    );
    expect(badAgent.body.error).toEqual({
      code: 1002,
      message: 'Invalid parameter json.ua_storage: must be one of full, parsed',
    });
  });

  it('anonymised: the click and the conversion keep 81.2.69.0, and still count in GB and London', async () => {
    const p = await project({ ip_storage: 'anonymised' });
    const svcId = await click(p, LONDON);
    const [stored] = await storedClicks(p);
    expect(stored).toEqual({
      id: expect.any(String),
      ip: '81.2.69.0',
      user_agent: SAFARI_IPHONE,
      country: 'GB',
      city: 'London',
      device: 'mobile',
      browser: 'Safari',
      os: 'iOS',
    });

    const { answer, record } = await convert(p, svcId, LONDON);
    expect(answer).toMatchObject({
      ip_address: '81.2.69.0',
      user_agent: SAFARI_IPHONE,
      // The visitor's click, found by its address as stored.
      redirection_id: stored.id,
    });
    expect(record).toEqual({ ip: '81.2.69.0', user_agent: SAFARI_IPHONE });

    const countries = await range(p, { group_by: 'country' });
    expect(countries.body.groups).toEqual([
      expect.objectContaining({
        country: 'GB',
        clicks: 1,
        conversions: expect.objectContaining({ goal_1: expect.objectContaining({ count: 1 }) }),
      }),
    ]);
    const cities = await range(p, { group_by: 'city' });
    expect(cities.body.groups).toEqual([
      expect.objectContaining({
        city: 'London',
        clicks: 1,
        conversions: expect.objectContaining({ goal_1: expect.objectContaining({ count: 1 }) }),
      }),
    ]);
  });

  it('anonymised keeps an IPv6 address to its /48, placed from the whole address', async () => {
    const p = await project({ ip_storage: 'anonymised' });
    await click(p, DE6);
    expect(await storedClicks(p)).toEqual([
      expect.objectContaining({ ip: '2a00:1450:4001::', country: 'DE' }),
    ]);
  });

  it('none and parsed: no address and no user agent string anywhere, the same place and device', async () => {
    const p = await project({ ip_storage: 'none', ua_storage: 'parsed' });
    const svcId = await click(p, LONDON);
    const [stored] = await storedClicks(p);
    expect(stored).toEqual({
      id: expect.any(String),
      ip: null,
      user_agent: null,
      country: 'GB',
      city: 'London',
      device: 'mobile',
      browser: 'Safari',
      os: 'iOS',
    });
    const { answer, record } = await convert(p, svcId, LONDON);
    expect(answer).toMatchObject({ ip_address: null, user_agent: null, redirection_id: stored.id });
    expect(record).toEqual({ ip: null, user_agent: null });
    const res = await range(p, { group_by: 'device' });
    expect(res.body.groups).toEqual([expect.objectContaining({ device: 'mobile', clicks: 1 })]);
  });

  it('full keeps the whole address even where CLICK_IP anonymises', async () => {
    const p = await project({ ip_storage: 'full' });
    const svcId = await click(p, LONDON);
    expect(await storedClicks(p)).toEqual([
      expect.objectContaining({ ip: LONDON, city: 'London' }),
    ]);
    expect((await convert(p, svcId, LONDON)).record).toEqual({
      ip: LONDON,
      user_agent: SAFARI_IPHONE,
    });
  });

  it('without the settings, as before: clicks as CLICK_IP says (anonymised), conversion records the address given', async () => {
    const p = await project();
    const svcId = await click(p, LONDON);
    const [stored] = await storedClicks(p);
    expect(stored).toMatchObject({ ip: '81.2.69.0', user_agent: SAFARI_IPHONE, city: 'London' });
    const { answer, record } = await convert(p, svcId, LONDON);
    expect(answer).toMatchObject({
      ip_address: LONDON,
      user_agent: SAFARI_IPHONE,
      redirection_id: stored.id,
    });
    expect(record).toEqual({ ip: LONDON, user_agent: SAFARI_IPHONE });
  });

  it("a change of the setting reaches the clicks worker at once (the project's cached setting is dropped)", async () => {
    const p = await project({ ip_storage: 'full' });
    await click(p, LONDON);
    await updateProject(t, p.key, { ip_storage: 'none', ua_storage: 'parsed' });
    await click(p, LONDON);
    expect((await storedClicks(p)).map((c) => [c.ip, c.user_agent])).toEqual([
      [LONDON, SAFARI_IPHONE],
      [null, null],
    ]);
  });

  it('webhook bodies and the log carry neither the address nor the user agent', async () => {
    const p = await project({ ip_storage: 'full' });
    const created = await admin('/webhooks/new', {
      project: p.key,
      url: receiverUrl,
      events: ['link.clicked', 'conversion.created'],
    }).expect(200);
    receiver.secrets = [created.body.response.webhook.secret as string];
    const svcId = await click(p, LONDON);
    await convert(p, svcId, LONDON);
    await eventually('both deliveries', async () => {
      await t.settle();
      expect(receiver.of('link.clicked')).toHaveLength(1);
      expect(receiver.of('conversion.created')).toHaveLength(1);
    });
    for (const { body } of receiver.received) {
      const text = JSON.stringify(body);
      expect(text).not.toContain('81.2.69');
      expect(text).not.toContain('iPhone');
    }
    expect(receiver.of('link.clicked')[0].body.data.click).toMatchObject({
      country: 'GB',
      city: 'London',
      device: 'mobile',
    });
    // The log has a line for each conversion, and no address of the visitor in any line.
    const conversions = log
      .lines()
      .filter((line) => (line.req as { path?: string } | undefined)?.path === '/conversions/new');
    expect(conversions.length).toBeGreaterThanOrEqual(1);
    expect(log.text()).not.toContain('81.2.69');
    expect(log.text()).not.toContain('2a00:1450');
  });
});

describe('visitor storage on an instance with CLICK_IP=none', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: 'true', CLICK_IP: 'none' }, redis: false });
  });
  afterAll(() => t.close());

  const clickOf = async (settings: Record<string, unknown>) => {
    const { api_key: key } = await createProject(t, settings);
    const link = await createLink(t, key);
    await t.http
      .get(`/${link.path}`)
      .set('Host', 'svc.test')
      .set('X-Forwarded-For', LONDON)
      .set('User-Agent', SAFARI_IPHONE)
      .expect(302);
    await waitForClicks(t, { [link.svc_id]: { clicks: 1, bots: 0 } });
    const { rows } = await t.db.query<{ id: string }>(
      'SELECT id::text FROM links WHERE svc_id = $1',
      [link.svc_id],
    );
    return t.analytics.query<{ ip: string | null; city: string | null }>(
      `SELECT ip, city FROM ${t.analytics.database}.clicks WHERE link_id = {link:UInt64}`,
      { link: rows[0].id },
    );
  };

  it("a project's ip_storage wins over the instance's; a project without one follows it", async () => {
    expect(await clickOf({ ip_storage: 'anonymised' })).toEqual([
      { ip: '81.2.69.0', city: 'London' },
    ]);
    expect(await clickOf({})).toEqual([{ ip: null, city: 'London' }]);
  });
});
