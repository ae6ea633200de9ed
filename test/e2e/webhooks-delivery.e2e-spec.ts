import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { TestApp, createTestApp } from '../support/app';
import { BROWSER, GOOGLEBOT } from '../support/clicks';
import { WebhookReceiver } from '../support/webhook-receiver';
import { eventually } from '../support/eventually';
import { adminCaller } from '../support/webhooks';
import { createProject } from '../factories/projects';
import { EventOutbox } from '../../src/events/event-outbox';
import { ProjectEvents } from '../../src/events/project-events';

const EVENT_ID = /^evt_[0-9a-f]{32}$/;

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Webhook deliveries end to end (docs/api.md, "Webhooks and live events"): every event type from
 * the paths that make it, delivered to a real HTTP receiver that verifies each signature with the
 * Standard Webhooks verifier; retries on a short schedule; 410 and failing too long disable the
 * webhook and tell the project's admins; an SSRF target is refused at delivery; the test ping;
 * redelivery keeps the event id. On BullMQ (a worker in the test process).
 */
describe('webhook deliveries', () => {
  let t: TestApp;
  let key: string;
  let projectId: string;
  const receiver = new WebhookReceiver();
  let url: string;

  beforeAll(async () => {
    url = await receiver.start();
    t = await createTestApp({
      env: {
        WEBHOOK_ALLOW_LOOPBACK: 'true',
        CRAWLER_ALLOW_LOOPBACK: 'true',
        WEBHOOK_RETRY_DELAYS: '50ms,100ms,100ms',
        WEBHOOK_DISABLE_AFTER: '2s',
      },
    });
    const project = await createProject(t, {
      conversions: { enabled: true, domains: 'all', goal_1_label: 'Signup' },
    });
    key = project.api_key;
    projectId = (
      await t.db.query<{ id: string }>('SELECT id FROM projects WHERE api_key = $1', [key])
    ).rows[0].id;
    await t.db.query(
      `INSERT INTO users (id, email, username, name) VALUES (gen_random_uuid(), 'admin@example.com', 'admin', 'Admin')`,
    );
    await t.db.query(
      `INSERT INTO project_users (project_id, user_id, role)
       SELECT $1, id, 'admin' FROM users WHERE email = 'admin@example.com'`,
      [projectId],
    );
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.answer = () => 204;
  });

  const admin = (route: string, json?: unknown) => adminCaller(t)(route, json);

  async function webhook(
    events: string[],
    extra: Record<string, unknown> = {},
  ): Promise<{ id: string; secret: string }> {
    // One webhook at a time: the previous ones are removed.
    await t.db.query('DELETE FROM webhooks');
    const res = await admin('/webhooks/new', { project: key, url, events, ...extra }).expect(200);
    const { id, secret } = res.body.response.webhook as { id: string; secret: string };
    receiver.secrets = [secret];
    return { id, secret };
  }

  const link = async (extra: Record<string, string> = {}) =>
    (
      await t.http
        .get('/url.json')
        .query({ v: '3', key, tool: 't', channel: 'email', url: 'https://shop.example/', ...extra })
        .expect(200)
    ).body as { svc_id: string; path: string };

  const arrived = (type: string, count: number) =>
    eventually(`${count} ${type} deliveries`, async () => {
      await t.settle();
      expect(receiver.of(type)).toHaveLength(count);
    });

  it('sends link.created for every path that makes links, and link.updated, signed', async () => {
    await webhook(['link.created', 'link.updated']);
    const made = await link({ notes: 'one' });
    await t.http
      .post('/url/batch.json')
      .type('form')
      .send(
        `v=3&key=${key}&tool=t&channel=email&url[]=${encodeURIComponent('https://a.example/')}&url[]=${encodeURIComponent('https://b.example/')}`,
      )
      .expect(200);
    const staticParams = {
      v: '3',
      key,
      tool: 't',
      channel: 'email',
      url: 'https://static.example/',
    };
    await t.http.post('/url/static.json').type('form').send(staticParams).expect(200);
    // The same static again finds its link: no event.
    await t.http.post('/url/static.json').type('form').send(staticParams).expect(200);
    const retweeted = await t.http
      .post('/url/retweet.json')
      .set('User-Agent', BROWSER)
      .type('form')
      .send({
        v: '3',
        key,
        tool: 't',
        channel: 'twitter',
        text: `see ${receiver.page('/retweeted')}`,
      })
      .expect(200);
    expect(retweeted.body.svc_urls).toHaveLength(1);
    await t.http
      .get('/url/share')
      .set('User-Agent', BROWSER)
      .query({
        v: '3',
        key,
        tool: 't',
        channel: 'twitter',
        url: 'https://share.example/',
        destination: 'https://x.example/?u=SVC_URL',
      })
      .expect(302);
    await arrived('link.created', 6);
    const originals = receiver.of('link.created').map((r) => String(r.body.data.original_url));
    expect(originals.sort()).toEqual(
      [
        'https://shop.example/',
        'https://a.example/',
        'https://b.example/',
        'https://static.example/',
        receiver.page('/retweeted'),
        'https://share.example/',
      ].sort(),
    );
    for (const r of receiver.received) {
      expect(r.verified).toBe(true);
      expect(r.body.id).toMatch(EVENT_ID);
      expect(r.headers['webhook-id']).toBe(r.body.id);
      expect(r.body.created_at).toMatch(ISO_MS);
      expect(r.headers['content-type']).toBe('application/json');
    }
    const first = receiver.of('link.created').find((r) => r.body.data.svc_id === made.svc_id)!;
    expect(first.body.data).toMatchObject({ svc_id: made.svc_id, notes: 'one', channel: 'email' });
    expect(first.body.data).not.toHaveProperty('new');

    await t.http
      .post(`/url/update/${made.svc_id}.json`)
      .type('form')
      .send({ v: '3', key, tool: 't', notes: 'two' })
      .expect(200);
    await arrived('link.updated', 1);
    expect(receiver.of('link.updated')[0].body.data).toMatchObject({
      svc_id: made.svc_id,
      notes: 'two',
      updated_at: expect.any(String),
    });
  });

  it('sends link.clicked for human clicks only, with dimensions and without the address', async () => {
    const { path: linkPath, svc_id } = await link();
    const other = await link();
    const { id } = await webhook(['link.clicked'], { links: [svc_id] });
    await t.http
      .get(`/${linkPath}`)
      .set('Host', 'svc.test')
      .set('User-Agent', BROWSER)
      .set('Referer', 'https://news.example/a')
      .expect(302);
    await t.http
      .get(`/${linkPath}`)
      .set('Host', 'svc.test')
      .set('User-Agent', GOOGLEBOT)
      .expect(302);
    // Another link than the webhook's: not sent.
    await t.http
      .get(`/${other.path}`)
      .set('Host', 'svc.test')
      .set('User-Agent', BROWSER)
      .expect(302);
    await arrived('link.clicked', 1);
    const [click] = receiver.of('link.clicked');
    expect(click.verified).toBe(true);
    expect(click.body.data).toEqual({
      svc_id,
      click: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        clicked_at: expect.stringMatching(ISO_MS),
        country: null,
        region: null,
        city: null,
        device: 'desktop',
        browser: expect.any(String),
        os: expect.any(String),
        referrer_host: 'news.example',
      },
    });
    expect(click.body.id).toBe(`evt_${String(click.body.data.click.id).replace(/-/g, '')}`);
    expect(JSON.stringify(click.body)).not.toMatch(/127\.0\.0\.1|Mozilla/);
    // The delivery log has it.
    const log = await admin(`/webhooks/${id}/deliveries`).expect(200);
    expect(log.body.response.deliveries[0]).toMatchObject({
      event_id: click.body.id,
      event_type: 'link.clicked',
      attempt: 1,
      status_code: 204,
    });
  });

  it('sends conversion.created for goals, and for pageviews only when asked', async () => {
    const { svc_id } = await link();
    await webhook(['conversion.created']);
    const convert = (type: string, value?: string) =>
      t.http
        .get('/conversions/new')
        .query({
          key,
          svc_url: svc_id,
          conversion_type: type,
          ...(value ? { conversion_value: value } : {}),
          ip: '203.0.113.9',
          user_agent: BROWSER,
        })
        .expect(200);
    const goal = await convert('goal_1', '1999');
    await convert('pageview', '0');
    await arrived('conversion.created', 1);
    const [event] = receiver.of('conversion.created');
    expect(event.body.data.conversion).toMatchObject({
      id: goal.body.response.conversion.id,
      svc_url: svc_id,
      type: 'goal_1',
      value: 1999,
      converted_at: expect.stringMatching(ISO_MS),
    });
    expect(event.body.data.conversion).not.toHaveProperty('ip_address');
    expect(event.body.data.conversion).not.toHaveProperty('user_agent');

    await webhook(['conversion.created'], { pageviews: true });
    receiver.received.length = 0;
    await convert('pageview', '0');
    await arrived('conversion.created', 1);
    expect(receiver.of('conversion.created')[0].body.data.conversion.type).toBe('pageview');
  });

  it('keeps the events of requests in the outbox until queued, and sweeps what was left', async () => {
    const outbox = t.app.get(EventOutbox);
    const events = t.app.get(ProjectEvents);
    const kept = async () =>
      (
        await t.db.query<{ id: string; events: { event: { id: string; type: string } }[] }>(
          'SELECT id::text, events FROM event_outbox ORDER BY id',
        )
      ).rows;
    // A project without such a webhook keeps nothing.
    const none = await webhook(['link.clicked']);
    await link();
    expect(await kept()).toEqual([]);
    await admin(`/webhooks/${none.id}/destroy`).expect(200);

    await webhook(['link.created', 'link.updated', 'conversion.created']);
    // Queued at once after the commit: the row goes.
    await link();
    await arrived('link.created', 1);
    await eventually('the outbox row gone', async () => expect(await kept()).toEqual([]));

    // The queue refuses them (as a process killed after the commit would never queue them): the
    // answers are the same, and every request's events stay in the outbox.
    receiver.received.length = 0;
    const refused = jest.spyOn(events, 'publish').mockRejectedValue(new Error('queue unreachable'));
    let made: { svc_id: string };
    try {
      made = await link({ notes: 'kept' });
      await t.http
        .post('/url/static.json')
        .type('form')
        .send({ v: '3', key, tool: 't', channel: 'email', url: 'https://outbox.example/' })
        .expect(200);
      await t.http
        .post(`/url/update/${made.svc_id}.json`)
        .type('form')
        .send({ v: '3', key, tool: 't', notes: 'kept again' })
        .expect(200);
      await t.http
        .get('/conversions/new')
        .query({
          key,
          svc_url: made.svc_id,
          conversion_type: 'goal_1',
          conversion_value: '5',
          ip: '203.0.113.9',
          user_agent: BROWSER,
        })
        .expect(200);
    } finally {
      refused.mockRestore();
    }
    const left = await kept();
    expect(left.flatMap((row) => row.events.map((e) => e.event.type))).toEqual([
      'link.created',
      'link.created',
      'link.updated',
      'conversion.created',
    ]);
    // Not before they are due (30 s after the commit); then with the ids the requests gave them.
    expect(await outbox.sweep()).toBe(0);
    await t.db.query("UPDATE event_outbox SET due_at = now() - interval '1 second'");
    // (The app's own sweep, every 10 s, may take some of them first.)
    await outbox.sweep();
    await arrived('link.created', 2);
    await arrived('link.updated', 1);
    await arrived('conversion.created', 1);
    expect(receiver.received.map((r) => r.body.id).sort()).toEqual(
      left.flatMap((row) => row.events.map((e) => e.event.id)).sort(),
    );
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    expect(receiver.of('link.updated')[0].body.data).toMatchObject({
      svc_id: made.svc_id,
      notes: 'kept again',
    });
    expect(await kept()).toEqual([]);
  });

  it('retries a failed delivery with the same id until it succeeds, logging every attempt', async () => {
    const { id } = await webhook(['link.created']);
    receiver.answer = (i) => (i < 2 ? 500 : 200);
    await link();
    await arrived('link.created', 3);
    const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    expect(receiver.received.map((r) => r.status)).toEqual([500, 500, 200]);
    const log = await admin(`/webhooks/${id}/deliveries`).expect(200);
    const attempts = (
      log.body.response.deliveries as {
        attempt: number;
        status_code: number;
        next_retry_at: string | null;
        response: string;
      }[]
    )
      .map((d) => [d.attempt, d.status_code, d.next_retry_at === null])
      .reverse();
    expect(attempts).toEqual([
      [1, 500, false],
      [2, 500, false],
      [3, 200, true],
    ]);
    expect(log.body.response.deliveries[2].response).toBe('no thanks');
    const row = await t.db.query('SELECT enabled, failing_since FROM webhooks WHERE id = $1', [id]);
    expect(row.rows[0]).toEqual({ enabled: true, failing_since: null });
  });

  it('gives up after the last delay', async () => {
    const { id } = await webhook(['link.created']);
    receiver.answer = () => 503;
    await link();
    // Three delays: four tries.
    await arrived('link.created', 4);
    // Given up: the fourth attempt is logged with no retry to come.
    await eventually('the last attempt logged', async () => {
      const log = await admin(`/webhooks/${id}/deliveries`).expect(200);
      const [last] = log.body.response.deliveries as {
        attempt: number;
        next_retry_at: string | null;
      }[];
      expect([last.attempt, last.next_retry_at]).toEqual([4, null]);
    });
    await t.settle();
    expect(receiver.received).toHaveLength(4);
  });

  it('disables a webhook answered 410 and tells the project admins', async () => {
    const { id } = await webhook(['link.created']);
    receiver.answer = () => 410;
    await link();
    await link();
    await eventually('the webhook disabled as gone', async () => {
      const row = await t.db.query('SELECT enabled, disabled_reason FROM webhooks WHERE id = $1', [
        id,
      ]);
      expect(row.rows[0]).toEqual({ enabled: false, disabled_reason: 'gone' });
    });
    await t.settle();
    // No retry after a 410; the second link's delivery may have been dropped as disabled.
    expect(receiver.received.length).toBeLessThanOrEqual(2);
    const before = receiver.received.length;
    await link();
    await t.settle();
    expect(receiver.received).toHaveLength(before);
    await eventually('the mail to the admins', () => {
      const outbox = path.join(t.config.outboxDir);
      const mails = readdirSync(outbox)
        .map((f) => readFileSync(path.join(outbox, f), 'utf8'))
        .filter((m) => m.includes(id));
      expect(mails).toHaveLength(1);
      expect(mails[0]).toContain('admin@example.com');
      expect(mails[0]).toContain('410 Gone');
    });
  });

  it('disables a webhook failing longer than WEBHOOK_DISABLE_AFTER', async () => {
    const { id } = await webhook(['link.created']);
    receiver.answer = () => 500;
    await link();
    await arrived('link.created', 4);
    // The next failure disables it once the webhook has been failing for WEBHOOK_DISABLE_AFTER.
    await eventually('the webhook failing for WEBHOOK_DISABLE_AFTER', async () => {
      const row = await t.db.query<{ long: boolean }>(
        `SELECT failing_since <= now() - interval '2 seconds' AS long FROM webhooks WHERE id = $1`,
        [id],
      );
      expect(row.rows[0]).toEqual({ long: true });
    });
    await link();
    await eventually('the webhook disabled as failing', async () => {
      const row = await t.db.query('SELECT enabled, disabled_reason FROM webhooks WHERE id = $1', [
        id,
      ]);
      expect(row.rows[0]).toEqual({ enabled: false, disabled_reason: 'failing' });
    });
  });

  it('refuses to deliver to an address that is not public, checked at delivery', async () => {
    const { id } = await webhook(['link.created']);
    await t.db.query(`UPDATE webhooks SET url = 'https://169.254.169.254/latest' WHERE id = $1`, [
      id,
    ]);
    await t.app
      .get((await import('../../src/webhooks/webhook-targets')).WebhookTargets)
      .changed(projectId);
    await link();
    await eventually('the refused delivery logged', async () => {
      const log = await admin(`/webhooks/${id}/deliveries`).expect(200);
      expect(log.body.response.deliveries[0]).toMatchObject({
        status_code: null,
        error: 'forbidden_address',
      });
    });
  });

  it('sends a test ping, and redelivers an event with its id', async () => {
    const { id } = await webhook(['link.created']);
    const ping = await admin(`/webhooks/${id}/test`).expect(200);
    expect(ping.body.response.delivery).toMatchObject({
      event_type: 'ping',
      status_code: 204,
      error: null,
    });
    expect(receiver.of('ping')).toHaveLength(1);
    expect(receiver.of('ping')[0].verified).toBe(true);
    expect(receiver.of('ping')[0].body.data).toEqual({ webhook_id: id });

    await link();
    await arrived('link.created', 1);
    const eventId = receiver.of('link.created')[0].body.id;
    await admin(`/webhooks/${id}/redeliver`, { event_id: eventId }).expect(200);
    await arrived('link.created', 2);
    expect(receiver.of('link.created')[1].headers['webhook-id']).toBe(eventId);
    expect(receiver.of('link.created')[1].body).toEqual(receiver.of('link.created')[0].body);
    // An unknown event is 404; a malformed id 400.
    await admin(`/webhooks/${id}/redeliver`, { event_id: 'evt_' + '0'.repeat(32) }).expect(404);
    await admin(`/webhooks/${id}/redeliver`, { event_id: 'nope' }).expect(400);

    // Another webhook of the project may be sent an event the log holds for this one, when it
    // takes the event's type.
    const updatesOnly = await admin('/webhooks/new', {
      project: key,
      url,
      events: ['link.updated'],
    }).expect(200);
    const refused = await admin(`/webhooks/${updatesOnly.body.response.webhook.id}/redeliver`, {
      event_id: eventId,
    }).expect(400);
    expect(refused.body.error).toEqual({
      code: 1002,
      message: `Invalid parameter json.event_id: ${eventId} is a link.created event, which this webhook does not take (its events)`,
    });
    const other = await admin('/webhooks/new', {
      project: key,
      url,
      events: ['link.updated', 'link.created'],
    }).expect(200);
    receiver.secrets.push(other.body.response.webhook.secret as string);
    const otherId = other.body.response.webhook.id as string;
    await admin(`/webhooks/${otherId}/redeliver`, { event_id: eventId }).expect(200);
    await arrived('link.created', 3);
    expect(receiver.of('link.created')[2].headers['webhook-id']).toBe(eventId);
    expect(receiver.of('link.created')[2].verified).toBe(true);
    const log = await admin(`/webhooks/${otherId}/deliveries`).expect(200);
    expect(log.body.response.deliveries).toEqual([
      expect.objectContaining({ event_id: eventId, event_type: 'link.created', status_code: 204 }),
    ]);

    // A webhook of another project may not: its project never had the event.
    const foreign = await createProject(t);
    const theirs = await admin('/webhooks/new', {
      project: foreign.api_key,
      url,
      events: ['link.created'],
    }).expect(200);
    await admin(`/webhooks/${theirs.body.response.webhook.id}/redeliver`, {
      event_id: eventId,
    }).expect(404);
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const { id, secret } = await webhook(['link.created']);
    const rotated = await admin(`/webhooks/${id}/rotate-secret`).expect(200);
    const fresh = rotated.body.response.webhook.secret as string;
    expect(fresh).not.toBe(secret);
    await link();
    await arrived('link.created', 1);
    const signature = receiver.received[0].headers['webhook-signature'] as string;
    expect(signature.split(' ')).toHaveLength(2);
    // Each secret alone verifies it.
    for (const only of [secret, fresh]) {
      receiver.secrets = [only];
      receiver.received.length = 0;
      await admin(`/webhooks/${id}/test`).expect(200);
      expect(receiver.received[0].verified).toBe(true);
    }
  });
});
