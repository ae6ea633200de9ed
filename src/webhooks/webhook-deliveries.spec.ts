import { webhookTarget } from '../../test/factories/webhook-target';
import type { AppConfig } from '../config/app-config';
import type { ProjectEvent } from '../events/project-event';
import type { LinkLookupsService } from '../links/link-lookups.service';
import type { AttemptRecord, DeliveryLog } from './delivery-log';
import type { DeliverySlots } from './delivery-slots';
import { WebhookDeliveries } from './webhook-deliveries';
import type { WebhookHealth } from './webhook-health';
import { DeliveryResult, WebhookSender } from './webhook-sender';
import type { DeliveryJob, WebhookSink } from './webhook-sink';
import type { WebhookTargets } from './webhook-targets';
import type { WebhookTarget } from './webhooks.repository';

const RETRY_DELAYS = [5_000, 300_000];

const webhook: WebhookTarget & { enabled: boolean } = { ...webhookTarget(), enabled: true };

const event = (n: number): ProjectEvent => ({
  id: `evt_${n.toString(16).padStart(32, '0')}`,
  type: 'link.created',
  created_at: '2026-01-01T00:00:00.000Z',
  data: { n },
});

/** The collaborators of the engine, each recording what it was asked. */
class Fakes {
  stored: (WebhookTarget & { enabled: boolean }) | null = webhook;
  slotFree = true;
  /** What WebhookHealth.note answers: whether the breaker disabled the webhook. */
  breakerTrips = false;
  readonly appended: { attempt: number; sent: AttemptRecord[]; nextRetryAt: Date | null }[] = [];
  readonly enqueued: { job: DeliveryJob; delayMs: number }[] = [];
  readonly settled: number[] = [];
  readonly released: string[] = [];
  readonly noted: boolean[][] = [];
  readonly disabled: string[] = [];

  readonly targets = { byId: () => Promise.resolve(this.stored) };
  readonly sink = {
    enqueue: (job: DeliveryJob, delayMs = 0) => {
      this.enqueued.push({ job, delayMs });
      return Promise.resolve();
    },
  };
  readonly deliveryLog = {
    append: (_id: string, attempt: number, sent: AttemptRecord[], nextRetryAt: Date | null) => {
      this.appended.push({ attempt, sent, nextRetryAt });
      return Promise.resolve([]);
    },
  };
  readonly slots = {
    take: () => Promise.resolve(this.slotFree),
    release: (_owner: unknown, jobId: string) => {
      this.released.push(jobId);
      return Promise.resolve();
    },
    settle: (_id: string, n: number) => {
      this.settled.push(n);
      return Promise.resolve();
    },
  };
  readonly health = {
    note: (_webhook: WebhookTarget, outcomes: boolean[]) => {
      this.noted.push(outcomes);
      return Promise.resolve(this.breakerTrips);
    },
    disable: (_webhook: WebhookTarget, reason: string) => {
      this.disabled.push(reason);
      return Promise.resolve();
    },
  };

  engine(): WebhookDeliveries {
    const config = {
      webhookTimeoutMs: 1_000,
      webhookAllowLoopback: false,
      webhookRetryDelaysMs: RETRY_DELAYS,
    } as AppConfig;
    return new WebhookDeliveries(
      config,
      this.targets as unknown as WebhookTargets,
      this.sink as unknown as WebhookSink,
      this.deliveryLog as unknown as DeliveryLog,
      this.slots as unknown as DeliverySlots,
      this.health as unknown as WebhookHealth,
      {} as LinkLookupsService,
    );
  }
}

/** The receiver's answers, by event id; a 200 when none is given. Records what was sent. */
function receiver(answers: Record<string, number> = {}) {
  const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
  jest
    .spyOn(WebhookSender.prototype, 'send')
    .mockImplementation((url, headers, body): Promise<DeliveryResult> => {
      sent.push({ url, headers, body });
      const statusCode = answers[headers['webhook-id']] ?? 200;
      return Promise.resolve({ statusCode, durationMs: 3, response: '', error: null });
    });
  return sent;
}

describe('WebhookDeliveries', () => {
  afterEach(() => jest.restoreAllMocks());

  it('sends each event signed, logs the attempt, notes its success and settles the backlog', async () => {
    const fakes = new Fakes();
    const sent = receiver();
    const job = { webhookId: 'wh1', attempt: 1, events: [event(1), event(2)], keep: [1] };
    expect(await fakes.engine().run(job, 'job-1')).toBe('done');

    expect(sent.map((s) => [s.url, s.headers['webhook-id'], s.body])).toEqual([
      [webhook.url, event(1).id, JSON.stringify(event(1))],
      [webhook.url, event(2).id, JSON.stringify(event(2))],
    ]);
    expect(sent[0].headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(fakes.appended).toHaveLength(1);
    expect(fakes.appended[0].attempt).toBe(1);
    expect(fakes.appended[0].nextRetryAt).toBeNull();
    expect(
      fakes.appended[0].sent.map((r) => [r.event.id, r.keepBody, r.result.statusCode]),
    ).toEqual([
      [event(1).id, false, 200],
      [event(2).id, true, 200],
    ]);
    expect(fakes.noted).toEqual([[true, true]]);
    expect(fakes.enqueued).toEqual([]);
    expect(fakes.released).toEqual(['job-1']);
    expect(fakes.settled).toEqual([2]);
  });

  it('queues the failed events again as the next attempt, after the next delay ±20%', async () => {
    const fakes = new Fakes();
    receiver({ [event(2).id]: 500 });
    const before = Date.now();
    await fakes.engine().run({ webhookId: 'wh1', attempt: 1, events: [event(1), event(2)] }, 'j');

    expect(fakes.enqueued).toHaveLength(1);
    const { job, delayMs } = fakes.enqueued[0];
    expect(job).toEqual({ webhookId: 'wh1', attempt: 2, events: [event(2)], keep: [] });
    expect(delayMs).toBeGreaterThanOrEqual(RETRY_DELAYS[0] * 0.8);
    expect(delayMs).toBeLessThanOrEqual(RETRY_DELAYS[0] * 1.2);
    const retryAt = fakes.appended[0].nextRetryAt!.getTime();
    expect(retryAt).toBeGreaterThanOrEqual(before + RETRY_DELAYS[0] * 0.8);
    expect(retryAt).toBeLessThanOrEqual(Date.now() + RETRY_DELAYS[0] * 1.2);
    expect(fakes.noted).toEqual([[true, false]]);
    // The retried event stays in the backlog.
    expect(fakes.settled).toEqual([1]);
  });

  it('gives up after the last delay: logged with no next retry, the backlog settled', async () => {
    const fakes = new Fakes();
    receiver({ [event(1).id]: 503 });
    const attempt = RETRY_DELAYS.length + 1;
    await fakes.engine().run({ webhookId: 'wh1', attempt, events: [event(1)] }, 'j');
    expect(fakes.appended.map((a) => [a.attempt, a.nextRetryAt])).toEqual([[attempt, null]]);
    expect(fakes.noted).toEqual([[false]]);
    expect(fakes.enqueued).toEqual([]);
    expect(fakes.settled).toEqual([1]);
  });

  it('retries nothing once the breaker disabled the webhook', async () => {
    const fakes = new Fakes();
    fakes.breakerTrips = true;
    receiver({ [event(1).id]: 500 });
    await fakes.engine().run({ webhookId: 'wh1', attempt: 1, events: [event(1)] }, 'j');
    expect(fakes.noted).toEqual([[false]]);
    expect(fakes.enqueued).toEqual([]);
    expect(fakes.settled).toEqual([1]);
  });

  it('disables the webhook at once on a 410, and retries nothing', async () => {
    const fakes = new Fakes();
    receiver({ [event(1).id]: 410, [event(2).id]: 500 });
    await fakes.engine().run({ webhookId: 'wh1', attempt: 1, events: [event(1), event(2)] }, 'j');
    expect(fakes.appended[0].nextRetryAt).toBeNull();
    expect(fakes.disabled).toEqual(['gone']);
    expect(fakes.noted).toEqual([]);
    expect(fakes.enqueued).toEqual([]);
    expect(fakes.settled).toEqual([2]);
  });

  it('drops the job of a webhook deleted or disabled since, and sends nothing', async () => {
    for (const stored of [null, { ...webhook, enabled: false }]) {
      const fakes = new Fakes();
      fakes.stored = stored;
      const sent = receiver();
      const job = { webhookId: 'wh1', attempt: 1, events: [event(1), event(2)] };
      expect(await fakes.engine().run(job, 'j')).toBe('done');
      expect(sent).toEqual([]);
      expect(fakes.appended).toEqual([]);
      expect(fakes.settled).toEqual([2]);
      jest.restoreAllMocks();
    }
  });

  it('parks a job without a free slot: nothing sent, logged or settled', async () => {
    const fakes = new Fakes();
    fakes.slotFree = false;
    const sent = receiver();
    expect(
      await fakes.engine().run({ webhookId: 'wh1', attempt: 1, events: [event(1)] }, 'j'),
    ).toBe('parked');
    expect(sent).toEqual([]);
    expect(fakes.appended).toEqual([]);
    expect(fakes.settled).toEqual([]);
    expect(fakes.released).toEqual([]);
  });
});
