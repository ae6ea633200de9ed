import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { ProjectEvent, eventId } from '../events/project-event';
import { MailService } from '../mail/mail.service';
import { DeliveryJob, ProjectEvents } from './project-events';
import { webhookHeaders } from './signature';
import { WebhookSender } from './webhook-sender';
import { AttemptRecord, DeliveryLog, DeliveryRow, succeeded } from './delivery-log';
import { WebhookTarget, WebhookTargets, signingSecrets } from './webhook-targets';

/** Requests of one job in flight at once. */
const PARALLEL_SENDS = 32;

/** Why a webhook was turned off: by its owner, a 410 answer, or failing too long. */
export type DisabledReason = 'manual' | 'gone' | 'failing';

/**
 * Delivers events to webhooks (docs/api.md, "Webhooks and live events"), the Standard Webhooks
 * way: each event one POST of its JSON body with webhook-id (the event id, the same on every
 * attempt), webhook-timestamp and webhook-signature (the secret's, and during a rotation also the
 * previous secret's). A 2xx answer is a success. A failure is tried again after the next delay of
 * WEBHOOK_RETRY_DELAYS, each with ±20% jitter; a 410 disables the webhook at once; a webhook
 * without a success for WEBHOOK_DISABLE_AFTER is disabled and its project's admins are told by
 * e-mail. Every attempt is logged (DeliveryLog).
 */
@Injectable()
export class WebhookDeliveries implements OnApplicationShutdown {
  private readonly logger = new Logger('WebhookDeliveries');
  private readonly sender: WebhookSender;

  constructor(
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly targets: WebhookTargets,
    private readonly events: ProjectEvents,
    private readonly mail: MailService,
    private readonly deliveryLog: DeliveryLog,
  ) {
    this.sender = new WebhookSender({
      timeoutMs: config.webhookTimeoutMs,
      allowLoopback: config.webhookAllowLoopback,
    });
  }

  onApplicationShutdown(): void {
    this.sender.close();
  }

  /** Runs one delivery job: its events sent, logged, and the failed ones queued again. */
  async run(job: DeliveryJob): Promise<void> {
    const webhook = await this.targets.byId(job.webhookId);
    // A webhook deleted or disabled since: its pending deliveries are dropped.
    if (!webhook || !webhook.enabled) return;
    const sent = await this.sendAll(webhook, job.events);
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
      await this.disable(webhook, 'gone');
      return;
    }
    if (failed.length < job.events.length) await this.endFailingStreak(webhook.id);
    if (failed.length > 0 && (await this.failingTooLong(webhook.id))) {
      await this.disable(webhook, 'failing');
      return;
    }
    if (retryIn !== null) {
      await this.events.enqueue({ ...job, attempt: job.attempt + 1, events: failed }, retryIn);
    }
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
      await this.sendAll(webhook, [event]),
      null,
    );
    return row;
  }

  /**
   * /webhooks/{id}/redeliver: an event the delivery log holds for a webhook of the project, queued
   * again to this one as a first attempt with its id (webhook-id) unchanged. False when the log
   * holds no such event.
   */
  async redeliver(webhookId: string, projectId: string, id: string): Promise<boolean> {
    const body = await this.deliveryLog.body(projectId, id);
    if (body === null) return false;
    const event = JSON.parse(body) as ProjectEvent;
    // Its own job id: a redelivery asked again is sent again.
    await this.events.enqueue({ webhookId, attempt: 1, events: [event] }, 0, `r${Date.now()}`);
    return true;
  }

  /** Sends the events side by side; each with its body as sent and the outcome, in order. */
  private async sendAll(webhook: WebhookTarget, events: ProjectEvent[]): Promise<AttemptRecord[]> {
    const secrets = signingSecrets(webhook);
    const sent = new Array<AttemptRecord>(events.length);
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < events.length) {
        const i = next++;
        const event = events[i];
        const body = JSON.stringify(event);
        const headers = webhookHeaders(secrets, event.id, Math.floor(Date.now() / 1000), body);
        sent[i] = { event, body, result: await this.sender.send(webhook.url, headers, body) };
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_SENDS, events.length) }, lane));
    return sent;
  }

  /** A success ends a failing streak. */
  private async endFailingStreak(webhookId: string): Promise<void> {
    await this.dataSource.query(
      'UPDATE webhooks SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL',
      [webhookId],
    );
  }

  /** Notes a failure; whether the webhook has failed without a success for WEBHOOK_DISABLE_AFTER. */
  private async failingTooLong(webhookId: string): Promise<boolean> {
    const rows: { failing_since: Date }[] = await this.dataSource.query(
      // A data-modifying statement inside a SELECT: the driver answers its rows, not a count.
      `WITH noted AS (
         UPDATE webhooks SET failing_since = coalesce(failing_since, now())
         WHERE id = $1 RETURNING failing_since)
       SELECT failing_since FROM noted`,
      [webhookId],
    );
    if (rows.length === 0) return false;
    return (
      Date.now() - new Date(rows[0].failing_since).getTime() >= this.config.webhookDisableAfterMs
    );
  }

  private async disable(webhook: WebhookTarget, reason: DisabledReason): Promise<void> {
    const rows: unknown[] = await this.dataSource.query(
      `WITH off AS (
         UPDATE webhooks SET enabled = false, disabled_reason = $2, updated_at = now()
         WHERE id = $1 AND enabled RETURNING id)
       SELECT id FROM off`,
      [webhook.id, reason],
    );
    await this.targets.changed(webhook.projectId);
    // Another job may have disabled it first: one message.
    if (rows.length === 0) return;
    this.logger.warn({ webhook: webhook.id, reason }, 'webhook disabled');
    await this.tellAdmins(webhook, reason);
  }

  /** The project's admins learn that a webhook was disabled (the mail queue, or the outbox). */
  private async tellAdmins(webhook: WebhookTarget, reason: DisabledReason): Promise<void> {
    const admins: { userId: string; email: string; name: string }[] = await this.dataSource.query(
      `SELECT u.id AS "userId", u.email, p.name FROM project_users pu
       JOIN users u ON u.id = pu.user_id JOIN projects p ON p.id = pu.project_id
       WHERE pu.project_id = $1 AND pu.role = 'admin'`,
      [webhook.projectId],
    );
    const why =
      reason === 'gone'
        ? 'its endpoint answered 410 Gone'
        : 'its endpoint has failed every delivery for longer than the service allows';
    for (const { userId, email, name } of admins) {
      await this.mail.enqueue({
        // Ids only: the id names the outbox file and the job (docs/operations.md, "Mail").
        id: `webhook-disabled-${webhook.id}-${Date.now()}-${userId}`,
        to: email,
        subject: `A webhook of ${name} was disabled`,
        text: [
          'Hello,',
          '',
          `the webhook ${webhook.id} of the project "${name}", to ${webhook.url}, was disabled: ${why}.`,
          'Events are no longer sent to it. Once the endpoint works again, enable it with',
          `/webhooks/${webhook.id}/update (enabled: true) or from the console, and redeliver what it missed.`,
          '',
          '— svc',
        ].join('\n'),
      });
    }
    if (admins.length === 0) {
      this.logger.warn(
        { webhook: webhook.id },
        'webhook disabled; its project has no admin to tell',
      );
    }
  }
}

/** A delay ±20%, so that retries of many failed deliveries do not arrive together. */
function jitter(ms: number): number {
  return Math.max(1, Math.round(ms * (0.8 + Math.random() * 0.4)));
}
