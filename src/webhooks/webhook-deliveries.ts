import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ProjectEvent, eventId } from '../events/project-event';
import { LinkLookupsService } from '../links/link-lookups.service';
import { webhookHeaders } from './signature';
import { WebhookSender } from './webhook-sender';
import { AttemptRecord, DeliveryLog, DeliveryRow, succeeded } from './delivery-log';
import { DeliverySlots, PARALLEL_SENDS } from './delivery-slots';
import { WebhookHealth } from './webhook-health';
import { Refusal, WebhookTargets, refusal, signingSecrets } from './webhook-targets';
import { DeliveryJob, WebhookSink } from './webhook-sink';
import type { WebhookTarget } from './webhooks.repository';

/** What a delivery job did: ran, or was parked until one of its slots frees (DeliverySlots). */
export type RunOutcome = 'done' | 'parked';

/** What a redelivery asked for came to. */
export type Redelivery =
  | { kind: 'queued' }
  | { kind: 'not_found' }
  | { kind: 'refused'; why: Refusal; event: ProjectEvent };

/**
 * Delivers events to webhooks (docs/api.md, "Webhooks and live events"), the Standard Webhooks
 * way: each event one POST of its JSON body with webhook-id (the event id, the same on every
 * attempt), webhook-timestamp and webhook-signature (the secret's, and during a rotation also the
 * previous secret's). A 2xx answer is a success. A failure is tried again after the next delay of
 * WEBHOOK_RETRY_DELAYS, each with ±20% jitter; a 410 disables the webhook at once, and so does a
 * webhook that mostly fails (WebhookHealth). A job runs only with its project's and webhook's
 * slots (DeliverySlots). Every attempt is logged (DeliveryLog).
 */
@Injectable()
export class WebhookDeliveries implements OnApplicationShutdown {
  private readonly sender: WebhookSender;

  constructor(
    private readonly config: AppConfig,
    private readonly targets: WebhookTargets,
    private readonly sink: WebhookSink,
    private readonly deliveryLog: DeliveryLog,
    private readonly slots: DeliverySlots,
    private readonly health: WebhookHealth,
    private readonly links: LinkLookupsService,
  ) {
    this.sender = new WebhookSender({
      timeoutMs: config.webhookTimeoutMs,
      allowLoopback: config.webhookAllowLoopback,
    });
  }

  onApplicationShutdown(): void {
    this.sender.close();
  }

  /** Runs one delivery job (`jobId`: the queue's): its events sent, logged, the failed ones queued again. */
  async run(job: DeliveryJob, jobId: string): Promise<RunOutcome> {
    const webhook = await this.targets.byId(job.webhookId);
    // A webhook deleted or disabled since: its pending deliveries are dropped.
    if (!webhook || !webhook.enabled) {
      await this.slots.settle(job.webhookId, job.events.length);
      return 'done';
    }
    if (!(await this.slots.take(webhook, jobId))) return 'parked';
    // The slots bound the requests in flight: they are freed as soon as the answers are in.
    let sent: AttemptRecord[];
    try {
      // A job queued before bodies were kept once names none: it keeps them all.
      sent = await this.sendAll(webhook, job.events, job.keep ?? job.events.map((_, i) => i));
    } finally {
      await this.slots.release(webhook, jobId);
    }
    const requeued = await this.record(webhook, job, sent);
    await this.slots.settle(webhook.id, job.events.length - requeued);
    return 'done';
  }

  /** Whether a parked job could run now (DeliverySlots.hasRoom); false when its webhook is gone. */
  async mayRun(job: DeliveryJob): Promise<boolean> {
    const webhook = await this.targets.byId(job.webhookId);
    return webhook !== null && (await this.slots.hasRoom(webhook));
  }

  /**
   * /webhooks/{id}/test: a `ping` event sent now, enabled or not, logged as attempt 1 and never
   * retried; its log row. Null when the webhook is gone.
   */
  async ping(webhookId: string): Promise<DeliveryRow | null> {
    const webhook = await this.targets.byId(webhookId);
    if (!webhook) return null;
    const event: ProjectEvent = {
      id: eventId(),
      type: 'ping',
      created_at: new Date().toISOString(),
      data: { webhook_id: webhook.id },
    };
    const [row] = await this.deliveryLog.append(
      webhook.id,
      1,
      await this.sendAll(webhook, [event], [0]),
      null,
    );
    return row;
  }

  /**
   * /webhooks/{id}/redeliver: an event the delivery log holds for a webhook of the project, queued
   * again to this one as a first attempt with its id (webhook-id) unchanged, when the webhook
   * takes it (its events, links and pageviews, as at publication).
   */
  async redeliver(webhookId: string, projectId: string, id: string): Promise<Redelivery> {
    const webhook = await this.targets.byId(webhookId);
    const body = webhook ? await this.deliveryLog.body(projectId, id) : null;
    if (!webhook || body === null) return { kind: 'not_found' };
    const event = JSON.parse(body) as ProjectEvent;
    const why = refusal(webhook, { projectId, linkId: await this.linkOf(projectId, event), event });
    if (why !== null) return { kind: 'refused', why, event };
    await this.slots.admitAlways(webhookId);
    // Its own job id: a redelivery asked again is sent again.
    await this.sink.enqueue(
      { webhookId, attempt: 1, events: [event], keep: [] },
      0,
      `r${Date.now()}`,
    );
    return { kind: 'queued' };
  }

  /** Logs the attempts and notes their outcomes; the failed events queued again: how many. */
  private async record(
    webhook: WebhookTarget,
    job: DeliveryJob,
    sent: AttemptRecord[],
  ): Promise<number> {
    const delays = this.config.webhookRetryDelaysMs;
    const gone = sent.some((r) => r.result.statusCode === 410);
    const failed = sent.filter((r) => !succeeded(r.result.statusCode)).map((r) => r.event);
    const retryIn =
      failed.length > 0 && !gone && job.attempt <= delays.length
        ? jitter(delays[job.attempt - 1])
        : null;
    const nextRetryAt = retryIn === null ? null : new Date(Date.now() + retryIn);
    await this.deliveryLog.append(webhook.id, job.attempt, sent, nextRetryAt);
    if (gone) {
      await this.health.disable(webhook, 'gone');
      return 0;
    }
    const outcomes = sent.map((r) => succeeded(r.result.statusCode));
    const disabled = await this.health.note(webhook, outcomes);
    if (disabled || retryIn === null) return 0;
    await this.sink.enqueue(
      { ...job, attempt: job.attempt + 1, events: failed, keep: [] },
      retryIn,
    );
    return failed.length;
  }

  /** The link a link.clicked event names (its svc_id), for a webhook's `links`; null otherwise. */
  private async linkOf(projectId: string, event: ProjectEvent): Promise<string | null> {
    const svcId = event.data.svc_id;
    if (event.type !== 'link.clicked' || typeof svcId !== 'string') return null;
    return (await this.links.linkIds(projectId, [svcId])).get(svcId) ?? null;
  }

  /**
   * Sends the events side by side; each with its body as sent and the outcome, in order; the
   * bodies at the places `keep` names are stored with the attempt.
   */
  private async sendAll(
    webhook: WebhookTarget,
    events: ProjectEvent[],
    keep: number[],
  ): Promise<AttemptRecord[]> {
    const secrets = signingSecrets(webhook);
    const kept = new Set(keep);
    const sent = new Array<AttemptRecord>(events.length);
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < events.length) {
        const i = next++;
        const event = events[i];
        const body = JSON.stringify(event);
        const headers = webhookHeaders(secrets, event.id, Math.floor(Date.now() / 1000), body);
        const result = await this.sender.send(webhook.url, headers, body);
        sent[i] = { event, body, keepBody: kept.has(i), result };
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_SENDS, events.length) }, lane));
    return sent;
  }
}

/** A delay ±20%, so that retries of many failed deliveries do not arrive together. */
function jitter(ms: number): number {
  return Math.max(1, Math.round(ms * (0.8 + Math.random() * 0.4)));
}
