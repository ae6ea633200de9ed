import { randomBytes } from 'node:crypto';
import { TestApp, createTestApp } from '../support/app';
import { waitForClicks } from '../support/clicks';
import { eventually } from '../support/eventually';
import { WebhookReceiver } from '../support/webhook-receiver';
import { inPostgresOf, tracesOf } from '../support/traces';
import { adminCaller } from '../support/webhooks';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';

/**
 * Erasure (docs/api.md, "Erasure"): `POST /projects/{api_key}/erase` blanks a visitor's (session,
 * clicker, address) or a sharer's personal fields in PostgreSQL and the analytics store before it
 * answers, keeps a receipt without the identifier in the audit, and changes no count. Every check
 * reads both stores directly, every table of each, right after the answer.
 */

/** A test's own visitor: an address in the test GeoIP data (GB, London) and a user agent of its own. */
function visitor(last: number) {
  const mark = randomBytes(6).toString('hex');
  return {
    ip: `81.2.69.${last}`,
    agent: `Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) Erasure/${mark}`,
    referrer: `https://mail.example/inbox?for=${mark}`,
    session: `sess-${mark}`,
    clicker: `clicker-${mark}`,
  };
}
type Visitor = ReturnType<typeof visitor>;

interface Project {
  key: string;
  id: string;
  /** Its sharers' user ids. */
  sharers: string[];
}

describe('erasure', () => {
  let t: TestApp;
  let receiverUrl: string;
  const receiver = new WebhookReceiver();
  const start_date = new Date(Date.now() - 86_400_000).toISOString();
  const end_date = new Date(Date.now() + 3_600_000).toISOString();

  beforeAll(async () => {
    receiverUrl = await receiver.start();
    t = await createTestApp({ env: { TRUST_PROXY: 'true', WEBHOOK_ALLOW_LOOPBACK: 'true' } });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const admin = (route: string, json?: unknown) => adminCaller(t)(route, json);

  /** A project with conversions, sharers if given, and a webhook of its events: the delivery log. */
  async function project(settings: Record<string, unknown> = {}): Promise<Project> {
    const created = (await createProject(t, {
      conversions: { enabled: true, domains: 'all', goal_1_label: 'Signup' },
      ...settings,
    })) as unknown as { api_key: string; sharers?: { sharer_id: string }[] };
    const key = created.api_key;
    const { rows } = await t.db.query<{ id: string }>(
      'SELECT id FROM projects WHERE api_key = $1',
      [key],
    );
    const hook = await admin('/webhooks/new', {
      project: key,
      url: receiverUrl,
      events: ['link.created', 'link.clicked', 'conversion.created'],
    }).expect(200);
    receiver.secrets.push(hook.body.response.webhook.secret as string);
    return { key, id: rows[0].id, sharers: (created.sharers ?? []).map((s) => s.sharer_id) };
  }

  /** The visitor's click on the link, stored. */
  async function click(svcId: string, path: string, v: Visitor): Promise<void> {
    const before = await clicksOf(svcId);
    await t.http
      .get(`/${path}`)
      .set('Host', 'svc.test')
      .set('X-Forwarded-For', v.ip)
      .set('User-Agent', v.agent)
      .set('Referer', v.referrer)
      .expect(302);
    await waitForClicks(t, { [svcId]: { clicks: before + 1, bots: 0 } });
  }

  async function clicksOf(svcId: string): Promise<number> {
    const rows = await t.analytics.query<{ n: string }>(
      `SELECT toString(count()) AS n FROM ${t.analytics.database}.clicks
       WHERE link_id = toUInt64({id:String})`,
      { id: await linkId(svcId) },
    );
    return Number(rows[0].n);
  }

  const linkId = async (svcId: string) =>
    (await t.db.query<{ id: string }>('SELECT id::text FROM links WHERE svc_id = $1', [svcId]))
      .rows[0].id;

  /** A conversion from the visitor's page: address, user agent and referrer from the request. */
  async function convert(p: Project, svcId: string, v: Visitor): Promise<string> {
    const res = await t.http
      .get('/conversions/new')
      .set('X-Forwarded-For', v.ip)
      .set('User-Agent', v.agent)
      .set('Referer', v.referrer)
      .query({
        key: p.key,
        svc_url: svcId,
        conversion_type: 'goal_1',
        conversion_value: '100',
        read_headers: 'true',
        session_id: v.session,
        clicker_id: v.clicker,
        href: `https://shop.example/thanks?who=${v.clicker}`,
      })
      .expect(200);
    return res.body.response.conversion.id as string;
  }

  const traces = (text: string) => tracesOf(t, text);
  const inPostgres = (text: string) => inPostgresOf(t, text);

  const range = async (p: Project, group_by: string) =>
    (
      await t.http
        .get('/stats/range.json')
        .query({ v: '3', key: p.key, start_date, end_date, with_conversions: 'true', group_by })
        .expect(200)
    ).body.groups as Record<string, unknown>[];

  /** Waits until the delivery log of the project's webhooks holds a body containing `text`. */
  async function logged(text: string): Promise<void> {
    await eventually(`a delivery of ${text} logged`, async () => {
      await t.settle();
      expect((await inPostgres(text)).webhook_delivery_log).toBeGreaterThanOrEqual(1);
    });
  }

  it('by session: no trace of its address, user agent or session in either store at the answer; counts unchanged; idempotent', async () => {
    const p = await project({ ip_storage: 'full' });
    const a = visitor(160);
    const b = visitor(161);
    const link = await createLink(t, p.key);
    await click(link.svc_id, link.path, a);
    await click(link.svc_id, link.path, b);
    await convert(p, link.svc_id, a);
    await convert(p, link.svc_id, b);
    await logged(a.session);
    await logged(b.session);

    // Before: the visitor is in both stores (the record, the click, the delivery log).
    const before = await traces(a.agent);
    expect(before.postgresql).toMatchObject({ conversions: 1 });
    expect(before.analytics).toMatchObject({ clicks: 1 });
    expect((await traces(a.ip)).analytics).toMatchObject({ clicks: 1 });
    expect((await inPostgres(a.session)).webhook_delivery_log).toBe(1);
    const countries = await range(p, 'country');
    const referrers = await range(p, 'referrer_host');

    const res = await admin(`/projects/${p.key}/erase`, { session_id: a.session }).expect(200);
    expect(res.body.request).toMatchObject({
      json: JSON.stringify({ session_id: a.session }),
      apikey: p.key,
      method: 'erase',
      object: 'project',
    });
    const erasure = res.body.response.erasure;
    expect(erasure).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      by: 'session_id',
      rows: {
        postgresql: { conversions: 1, clicks: 0, webhook_delivery_log: 1, event_outbox: 0 },
        analytics: { clicks: 1, conversions: 0 },
      },
      complete: true,
      erased_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    });

    // At the answer, nothing of the visitor anywhere; the other visitor as they were.
    for (const text of [a.ip, a.agent, a.session, a.clicker, a.referrer])
      expect({ text, ...(await traces(text)) }).toEqual({ text, postgresql: {}, analytics: {} });
    expect((await traces(b.agent)).analytics).toMatchObject({ clicks: 1 });
    expect((await traces(b.ip)).postgresql).toMatchObject({ conversions: 1 });
    expect((await inPostgres(b.session)).webhook_delivery_log).toBe(1);
    // Every count and statistic stays: places and referring hosts were taken before.
    expect(await range(p, 'country')).toEqual(countries);
    expect(await range(p, 'referrer_host')).toEqual(referrers);

    // Idempotent: the same erasure answers zeros; the audit lists both, without the session.
    const again = await admin(`/projects/${p.key}/erase`, { session_id: a.session }).expect(200);
    expect(again.body.response.erasure.rows).toEqual({
      postgresql: { conversions: 0, clicks: 0, webhook_delivery_log: 0, event_outbox: 0 },
      analytics: { clicks: 0, conversions: 0 },
    });
    const listed = await t.http
      .get(`/projects/${p.key}/erasures`)
      .query({ subscription_key: t.subscriptionKey, application_key: t.applicationKey })
      .expect(200);
    expect(listed.body.response).toMatchObject({ total_results: 2, page: 1, per_page: 10 });
    expect(listed.body.response.erasures).toEqual([again.body.response.erasure, erasure]);
    const { rows: audit } = await t.db.query('SELECT * FROM erasures WHERE project_id = $1', [
      p.id,
    ]);
    expect(JSON.stringify(audit)).not.toContain(a.session);
  });

  it('by address: the clicks and records stored anonymised (its /24) are blanked too', async () => {
    const p = await project({ ip_storage: 'anonymised' });
    const a = visitor(170);
    const link = await createLink(t, p.key);
    await click(link.svc_id, link.path, a);
    await convert(p, link.svc_id, a);
    await logged(a.session);
    expect((await traces('81.2.69.0')).analytics).toMatchObject({ clicks: 1 });
    expect((await traces(a.agent)).postgresql).toMatchObject({ conversions: 1 });

    const res = await admin(`/projects/${p.key}/erase`, { ip: a.ip }).expect(200);
    expect(res.body.response.erasure).toMatchObject({
      by: 'ip',
      rows: {
        postgresql: { conversions: 1 },
        analytics: { clicks: 1, conversions: 0 },
      },
    });
    for (const text of [a.agent, a.session, a.referrer])
      expect({ text, ...(await traces(text)) }).toEqual({ text, postgresql: {}, analytics: {} });
    const stored = await t.analytics.query<{ ip: string | null }>(
      `SELECT ip FROM ${t.analytics.database}.clicks WHERE project_id = {p:UUID}`,
      { p: p.id },
    );
    expect(stored).toEqual([{ ip: null }]);
  });

  it("by sharer: the identity leaves the links, their stamps and the events' bodies; their visitors too", async () => {
    const p = await project({ sharers: [`ann-${randomBytes(3).toString('hex')}@example.com`] });
    const { key } = p;
    const [sharerId] = p.sharers;
    const userId = `crm-${randomBytes(4).toString('hex')}`;
    const handle = `${randomBytes(5).toString('hex')}`;
    const shared = await createLink(t, key, {
      sharer_id: sharerId,
      user_id: userId,
      user_id_username: `${handle}-name`,
      service_userid: `twitter:${handle}`,
    });
    const other = await createLink(t, key);
    const a = visitor(180);
    await click(shared.svc_id, shared.path, a);
    await click(other.svc_id, other.path, visitor(181));
    await convert(p, shared.svc_id, a);
    await logged(a.session);
    await logged(handle);
    const channels = await range(p, 'channel');
    expect(await traces(handle)).toMatchObject({
      postgresql: { links: 1, user_identities: 1, webhook_delivery_log: expect.any(Number) },
      analytics: { links: 1, clicks: 1, conversions: 1 },
    });

    const res = await admin(`/projects/${key}/erase`, { sharer_id: sharerId }).expect(200);
    expect(res.body.response.erasure).toMatchObject({
      by: 'sharer_id',
      rows: {
        postgresql: {
          links: 1,
          user_identities: 1,
          conversions: 1,
          clicks: 0,
          webhook_delivery_log: expect.any(Number),
          event_outbox: 0,
        },
        analytics: { links: 1, clicks: 1, conversions: 1 },
      },
      complete: true,
    });
    // Their handle, their user_id and the visitor of their link: nowhere. Their sharer_id is their
    // user's id: they stay a member of the project (remove_user removes them).
    for (const text of [handle, userId, a.ip, a.agent, a.session, a.referrer])
      expect({ text, ...(await traces(text)) }).toEqual({ text, postgresql: {}, analytics: {} });
    expect(await traces(sharerId)).toEqual({
      postgresql: { users: 1, project_users: 1 },
      analytics: {},
    });
    const versions = await t.analytics.query<Record<string, unknown>>(
      `SELECT sharer_id, username, service_userid, user_id FROM ${t.analytics.database}.links
       WHERE link_id = toUInt64({id:String})`,
      { id: await linkId(shared.svc_id) },
    );
    // Every version the mirror holds (a new one written, the old ones blanked in place).
    expect(versions.length).toBeGreaterThanOrEqual(2);
    for (const version of versions)
      expect(version).toEqual({
        sharer_id: null,
        username: null,
        service_userid: null,
        user_id: null,
      });
    const { rows: links } = await t.db.query(
      'SELECT sharer_id, username, service_userid, user_id FROM links WHERE svc_id = $1',
      [shared.svc_id],
    );
    expect(links).toEqual([
      { sharer_id: null, username: null, service_userid: null, user_id: null },
    ]);
    // Counts stay; the other link's click is untouched.
    expect(await range(p, 'channel')).toEqual(channels);
    expect(await clicksOf(other.svc_id)).toBe(1);
    expect(
      (await admin(`/projects/${key}/erase`, { sharer_id: sharerId }).expect(200)).body.response
        .erasure.rows,
    ).toEqual({
      postgresql: {
        links: 0,
        user_identities: 0,
        conversions: 0,
        clicks: 0,
        webhook_delivery_log: 0,
        event_outbox: 0,
      },
      analytics: { links: 0, clicks: 0, conversions: 0, clicks_retired: 0, conversions_retired: 0 },
    });

    // By user_id: the links carrying it, and the identity kept for it.
    const crm = `crm-${randomBytes(4).toString('hex')}`;
    const tagged = await createLink(t, key, { user_id: crm, user_id_username: `${crm}-name` });
    const byUser = await admin(`/projects/${key}/erase`, { user_id: crm }).expect(200);
    expect(byUser.body.response.erasure).toMatchObject({
      by: 'user_id',
      rows: { postgresql: { links: 1, user_identities: 1 }, analytics: { links: 1 } },
    });
    expect(await traces(crm)).toEqual({ postgresql: {}, analytics: {} });
    expect(tagged.user_id).toBe(crm);
  });

  it('answers 400 naming the parameter, 404 for an unknown project, 400 without application_key', async () => {
    const p = await project();
    const erase = (json?: unknown) => admin(`/projects/${p.key}/erase`, json);
    expect((await erase().expect(400)).body.error).toEqual({
      code: 1001,
      message: 'Missing required parameter: json',
    });
    expect((await erase({ session_id: 'a', clicker_id: 'b' }).expect(400)).body.error.message).toBe(
      'Invalid parameter json: give exactly one of session_id, clicker_id, ip, sharer_id, user_id (got session_id, clicker_id): one erasure per request',
    );
    expect((await erase({ ip: 'localhost' }).expect(400)).body.error.message).toBe(
      'Invalid parameter json.ip: must be an IPv4 or IPv6 address',
    );
    const missing = await admin(`/projects/${'0'.repeat(64)}/erase`, { ip: '1.2.3.4' }).expect(404);
    expect(missing.body.error).toEqual({
      code: 1003,
      message: 'Project not found: no live project has this api_key',
    });
    const noApp = await t.http
      .post(`/projects/${p.key}/erase`)
      .type('form')
      .send({ subscription_key: t.subscriptionKey, json: '{"ip":"1.2.3.4"}' })
      .expect(400);
    expect(noApp.body.error.message).toBe('Missing required parameter: application_key');
    const bad = await t.http
      .post(`/projects/${p.key}/erasures`)
      .type('form')
      .send({
        subscription_key: t.subscriptionKey,
        application_key: t.applicationKey,
        per_page: '0',
      })
      .expect(400);
    expect(bad.body.error.message).toBe(
      'Invalid parameter per_page: must be an integer from 1 to 1000',
    );
  });
});
