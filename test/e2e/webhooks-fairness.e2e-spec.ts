import { TestApp, createTestApp } from '../support/app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { eventually } from '../support/eventually';
import { adminCaller, projectWithId } from '../support/webhooks';
import { OutgoingEvent, eventId } from '../../src/events/project-event';
import { ProjectEvents } from '../../src/events/project-events';

/**
 * docs/api.md, "Events and their delivery": how long another project's event may wait behind a
 * project whose receivers hang with a backlog (docs/operations.md, "Webhooks").
 */
const FAIRNESS_BOUND_MS = 5000;

/** `n` link.created events of a project, as the link services publish them. */
function linkEvents(projectId: string, n: number): OutgoingEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    projectId,
    linkId: null,
    event: {
      id: eventId(),
      type: 'link.created' as const,
      created_at: new Date().toISOString(),
      data: { svc_id: `backlog_${i}` },
    },
  }));
}

/**
 * One tenant cannot stall another's webhooks (docs/architecture.md, "Webhooks and live events"):
 * project A's nine webhooks point at a receiver that never answers, with a backlog of 18 delivery
 * jobs (more than a worker's 16 slots); project B's event is still delivered within the stated
 * bound, on BullMQ and on the in-process queue alike.
 */
describe.each([
  ['BullMQ', true],
  ['the in-process queue', false],
])('webhook fairness on %s', (_name, redis) => {
  let t: TestApp;
  const hanging = new WebhookReceiver();
  const fast = new WebhookReceiver();
  let hangingUrl: string;
  let fastUrl: string;

  beforeAll(async () => {
    hanging.delayMs = 120_000;
    hangingUrl = await hanging.start();
    fastUrl = await fast.start();
    t = await createTestApp({
      redis,
      env: {
        WEBHOOK_ALLOW_LOOPBACK: 'true',
        WEBHOOK_TIMEOUT_MS: '30000',
        WEBHOOK_RETRY_DELAYS: '1h',
      },
    });
  }, 60_000);
  afterAll(async () => {
    // The hanging requests end (their deliveries fail) before the workers stop.
    await hanging.close();
    await t.close();
    await fast.close();
  });

  it("delivers B's event within the bound while A's receivers hang with a backlog", async () => {
    const admin = adminCaller(t);
    const a = await projectWithId(t);
    const b = await projectWithId(t);
    for (let i = 0; i < 9; i++) {
      await admin('/webhooks/new', {
        project: a.key,
        url: hangingUrl,
        events: ['link.created'],
      }).expect(200);
    }
    await admin('/webhooks/new', { project: b.key, url: fastUrl, events: ['link.created'] }).expect(
      200,
    );
    // 150 events for each of A's webhooks: two jobs each, 18 in all.
    await t.app.get(ProjectEvents).publish(linkEvents(a.id, 150));
    // A's deliveries are under way and hang (the sender keeps 64 connections to one origin).
    await eventually(
      'the hanging webhook holding its 64 requests',
      () => expect(hanging.received.length).toBeGreaterThanOrEqual(64),
      30_000,
    );

    const made = await t.http
      .get('/url.json')
      .query({ v: '3', key: b.key, tool: 't', channel: 'email', url: 'https://b.example/' })
      .expect(200);
    const queuedAt = Date.now();
    await eventually(
      "project B's webhook served",
      () =>
        expect(fast.of('link.created').map((r) => String(r.body.data.svc_id))).toEqual([
          (made.body as { svc_id: string }).svc_id,
        ]),
      FAIRNESS_BOUND_MS,
    );
    expect(Date.now() - queuedAt).toBeLessThan(FAIRNESS_BOUND_MS);
  }, 60_000);
});
