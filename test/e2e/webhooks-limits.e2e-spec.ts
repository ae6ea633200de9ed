import { TestApp, createTestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { WebhookReceiver } from '../support/webhook-receiver';
import { addProjectAdmin, adminCaller, outboxMails, projectWithId } from '../support/webhooks';
import { OutgoingEvent, ProjectEvent, eventId } from '../../src/events/project-event';
import { ProjectEvents } from '../../src/events/project-events';

interface Delivery {
  event_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
}

/**
 * What keeps one webhook from wearing out the service (docs/api.md, "Events and their delivery",
 * "Test and redeliver"; docs/operations.md, "Webhooks"): the breaker disables a webhook that
 * mostly fails though some deliveries succeed, and its mail names the URL's origin only; the
 * backlog cap drops the newest events and logs them; each event body is stored once; the
 * deliveries page reads a kept count; redeliver obeys the webhook's filters; test and redeliver
 * have a budget per webhook.
 */
describe('webhook limits', () => {
  let t: TestApp;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        WEBHOOK_ALLOW_LOOPBACK: 'true',
        WEBHOOK_RETRY_DELAYS: '50ms,50ms,50ms',
        WEBHOOK_DISABLE_AFTER: '1s',
        WEBHOOK_BACKLOG: '100',
        WEBHOOK_REPLAY_RATE_LIMIT: '5',
      },
    });
  }, 60_000);
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
    await t.close();
  });

  async function receiver(answer: WebhookReceiver['answer'] = () => 204, delayMs = 0) {
    const r = new WebhookReceiver();
    r.answer = answer;
    r.delayMs = delayMs;
    receivers.push(r);
    return { r, url: await r.start() };
  }

  const admin = (route: string, json?: unknown) => adminCaller(t)(route, json);
  const project = () => projectWithId(t);

  async function webhook(key: string, url: string, extra: Record<string, unknown>) {
    const res = await admin('/webhooks/new', { project: key, url, ...extra }).expect(200);
    return res.body.response.webhook as { id: string; secret: string };
  }

  const link = async (key: string, url = 'https://shop.example/') =>
    (
      await t.http
        .get('/url.json')
        .query({ v: '3', key, tool: 't', channel: 'email', url })
        .expect(200)
    ).body as { svc_id: string };

  const deliveries = async (id: string) =>
    (await admin(`/webhooks/${id}/deliveries`).query({ per_page: 1000 }).expect(200)).body
      .response as { deliveries: Delivery[]; total_results: number };

  const event = (type: ProjectEvent['type'], data: ProjectEvent['data']): ProjectEvent => ({
    id: eventId(),
    type,
    created_at: new Date().toISOString(),
    data,
  });

  /** The one mail about the webhook, once written; its file is named from ids, never the address. */
  async function disabledMail(webhookId: string): Promise<string> {
    let mails: { file: string; mail: string }[] = [];
    await eventually('the disabled-webhook mail', () => {
      mails = outboxMails(t, webhookId);
      expect(mails).toHaveLength(1);
    });
    expect(mails[0].file).not.toContain('@');
    return mails[0].mail;
  }

  it('disables a webhook that succeeds one time in four, and mails its origin, not its URL', async () => {
    const p = await project();
    await addProjectAdmin(t, p.id, 'breaker-admin@example.com');
    const { url } = await receiver((i) => (i % 4 === 3 ? 204 : 500));
    const secretUrl = `${url}/t0ken-s3cret?signature=s3cret-query`;
    const { id } = await webhook(p.key, secretUrl, { events: ['link.created'] });
    const state = async () =>
      (
        await t.db.query<{ enabled: boolean; disabled_reason: string | null }>(
          'SELECT enabled, disabled_reason FROM webhooks WHERE id = $1',
          [id],
        )
      ).rows[0];
    // Events keep coming; some deliveries succeed all along.
    await eventually(
      'the webhook disabled',
      async () => {
        if (!(await state()).enabled) return true;
        await link(p.key);
        return false;
      },
      20_000,
    );
    expect(await state()).toEqual({ enabled: false, disabled_reason: 'failing' });
    const log = await deliveries(id);
    expect(log.deliveries.filter((d) => d.status_code === 204).length).toBeGreaterThan(0);

    const mail = await disabledMail(id);
    expect(mail).toContain(
      `, to ${new URL(url).origin}, was disabled: most of its deliveries have failed`,
    );
    expect(mail).not.toContain('s3cret');
    expect(mail).not.toContain('/hook');
  }, 30_000);

  it('names the origin of a webhook disabled by a 410, never its path or query', async () => {
    const p = await project();
    await addProjectAdmin(t, p.id, 'gone-admin@example.com');
    const { url } = await receiver(() => 410);
    const { id } = await webhook(p.key, `${url}/k3y-in-path?token=k3y-in-query`, {
      events: ['link.created'],
    });
    await link(p.key);
    const mail = await disabledMail(id);
    expect(mail).toContain(
      `, to ${new URL(url).origin}, was disabled: its endpoint answered 410 Gone.`,
    );
    expect(mail).not.toContain('k3y');
  });

  it('drops the newest events past the backlog cap, and logs them', async () => {
    const p = await project();
    // A receiver that never answers: what is queued stays queued.
    const { url } = await receiver(() => 204, 120_000);
    const { id } = await webhook(p.key, url, { events: ['link.created'] });
    const events: OutgoingEvent[] = Array.from({ length: 250 }, (_, i) => ({
      projectId: p.id,
      linkId: null,
      event: event('link.created', { svc_id: `s${i}` }),
    }));
    await t.app.get(ProjectEvents).publish(events);
    let log = await deliveries(id);
    expect(log.total_results).toBe(150);
    expect(log.deliveries.map((d) => d.event_id).sort()).toEqual(
      events
        .slice(100)
        .map((e) => e.event.id)
        .sort(),
    );
    expect(log.deliveries[0]).toMatchObject({
      attempt: 0,
      status_code: null,
      error: 'backlog_full',
    });
    // Still full: the next events are dropped too.
    await t.app
      .get(ProjectEvents)
      .publish(events.slice(0, 10).map((e) => ({ ...e, event: event('link.created', {}) })));
    log = await deliveries(id);
    expect(log.total_results).toBe(160);
  });

  it('stores each event body once, whatever the attempts and webhooks', async () => {
    const p = await project();
    const failing = await receiver((i) => (i < 2 ? 500 : 204));
    const other = await receiver();
    const first = await webhook(p.key, failing.url, { events: ['link.created'] });
    await webhook(p.key, other.url, { events: ['link.created'] });
    await link(p.key);
    await eventually('the retried and the other deliveries', () => {
      expect(failing.r.received.map((r) => r.status)).toEqual([500, 500, 204]);
      expect(other.r.received).toHaveLength(1);
    });
    const eventIdSent = other.r.received[0].body.id;
    await eventually('the attempts logged', async () => {
      const { rows } = await t.db.query<{ attempts: number; bodies: number }>(
        `SELECT count(*)::int AS attempts, count(u.body)::int AS bodies
         FROM webhook_delivery_log l, unnest(l.event_ids, l.bodies) AS u(id, body)
         WHERE u.id = $1`,
        [eventIdSent],
      );
      expect(rows[0]).toEqual({ attempts: 4, bodies: 1 });
    });
    // The page's total is the webhook's kept count, not a sum over its log.
    expect((await deliveries(first.id)).total_results).toBe(3);
    await t.db.query('UPDATE webhooks SET delivery_count = 42 WHERE id = $1', [first.id]);
    expect((await deliveries(first.id)).total_results).toBe(42);
  });

  it("refuses to redeliver an event past the webhook's events, links and pageviews", async () => {
    const p = await project();
    const wide = await receiver();
    const narrow = await receiver();
    const kept = await link(p.key, 'https://kept.example/');
    const other = await link(p.key, 'https://other.example/');
    const { rows } = await t.db.query<{ id: string; svc_id: string }>(
      'SELECT id::text, svc_id FROM links WHERE svc_id = ANY($1)',
      [[kept.svc_id, other.svc_id]],
    );
    const linkId = (svcId: string) => rows.find((r) => r.svc_id === svcId)!.id;
    await webhook(p.key, wide.url, {
      events: ['link.created', 'link.clicked', 'conversion.created'],
      pageviews: true,
    });
    const { id } = await webhook(p.key, narrow.url, {
      events: ['link.clicked', 'conversion.created'],
      links: [kept.svc_id],
    });
    const created = event('link.created', { svc_id: 'x' });
    const otherClick = event('link.clicked', { svc_id: other.svc_id });
    const keptClick = event('link.clicked', { svc_id: kept.svc_id });
    const pageview = event('conversion.created', { conversion: { type: 'pageview' } });
    await t.app.get(ProjectEvents).publish([
      { projectId: p.id, linkId: null, event: created },
      { projectId: p.id, linkId: linkId(other.svc_id), event: otherClick },
      { projectId: p.id, linkId: linkId(kept.svc_id), event: keptClick },
      { projectId: p.id, linkId: null, event: pageview },
    ]);
    await eventually("the wide webhook's deliveries", () =>
      expect(wide.r.received).toHaveLength(4),
    );
    await eventually("the narrow webhook's delivery", () =>
      expect(narrow.r.received).toHaveLength(1),
    );
    const refused = async (evt: ProjectEvent, message: string) => {
      const res = await admin(`/webhooks/${id}/redeliver`, { event_id: evt.id }).expect(400);
      expect(res.body.error).toEqual({ code: 1002, message });
    };
    await refused(
      created,
      `Invalid parameter json.event_id: ${created.id} is a link.created event, which this webhook does not take (its events)`,
    );
    await refused(
      otherClick,
      `Invalid parameter json.event_id: ${otherClick.id} is a click of a link this webhook is not limited to (its links)`,
    );
    await refused(
      pageview,
      `Invalid parameter json.event_id: ${pageview.id} is a pageview conversion, which this webhook does not take (pageviews: false)`,
    );
    await admin(`/webhooks/${id}/redeliver`, { event_id: keptClick.id }).expect(200);
    await eventually('the redelivery', () =>
      expect(narrow.r.received.map((r) => r.body.id)).toEqual([keptClick.id, keptClick.id]),
    );
  });

  it('limits test and redeliver together per webhook, with Retry-After', async () => {
    const p = await project();
    const { r, url } = await receiver();
    const { id } = await webhook(p.key, url, { events: ['link.created'] });
    const spare = await webhook(p.key, url, { events: ['link.created'] });
    for (let i = 0; i < 5; i++) await admin(`/webhooks/${id}/test`).expect(200);
    expect(r.of('ping')).toHaveLength(5);
    const over = await admin(`/webhooks/${id}/test`).expect(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(3600);
    expect(over.body.error).toEqual({
      code: 1006,
      message: 'Rate limit exceeded: at most 5 test and redeliver requests per hour per webhook',
    });
    const pingId = r.of('ping')[0].body.id;
    await admin(`/webhooks/${id}/redeliver`, { event_id: pingId }).expect(429);
    expect(r.of('ping')).toHaveLength(5);
    // Another webhook has its own budget.
    await admin(`/webhooks/${spare.id}/test`).expect(200);
  });
});
