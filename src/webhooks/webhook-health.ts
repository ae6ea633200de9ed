import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { MailService } from '../mail/mail.service';
import type { DisabledReason } from './webhook.entity';
import { WebhookTarget, WebhookTargets } from './webhook-targets';

/** Attempts the breaker looks back on (webhooks.recent_outcomes). */
export const BREAKER_WINDOW = 100;
/** Attempts known before their failure rate counts: fewer, and a success ends the streak. */
export const BREAKER_MIN = 20;

/**
 * The row's last outcomes with the job's ($2) after them. Written out in each place, so that
 * every reference reads the row as locked (a sub-select would read it as of the statement's start).
 */
const RECENT = `right(recent_outcomes || $2, ${BREAKER_WINDOW})`;

/**
 * The breaker and the disabling of webhooks (docs/api.md, "Events and their delivery"). A webhook
 * is failing (`failing_since`: since when) while its last attempt failed, or while more than half
 * of its last BREAKER_WINDOW attempts failed once it has BREAKER_MIN of them; failing for
 * WEBHOOK_DISABLE_AFTER, it is disabled. So a receiver that takes one delivery in many is disabled
 * as one that takes none: a success alone no longer ends the streak.
 * A 410 disables it at once. Its project's admins are told by e-mail, naming its origin only.
 */
@Injectable()
export class WebhookHealth {
  private readonly logger = new Logger('WebhookDeliveries');

  constructor(
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly targets: WebhookTargets,
    private readonly mail: MailService,
  ) {}

  /**
   * Notes a job's outcomes (true: a success), in order, in one statement (the row's lock orders
   * concurrent jobs); disables the webhook when it has been failing for WEBHOOK_DISABLE_AFTER.
   * Whether it was disabled.
   */
  async note(webhook: WebhookTarget, outcomes: boolean[]): Promise<boolean> {
    if (outcomes.length === 0) return false;
    const rows: { failing_since: Date | null }[] = await this.dataSource.query(
      // A data-modifying statement inside a SELECT: the driver answers its rows, not a count.
      `WITH noted AS (
         UPDATE webhooks SET
           recent_outcomes = ${RECENT},
           failing_since = CASE
             WHEN right(${RECENT}, 1) = 'f'
               OR (length(${RECENT}) >= ${BREAKER_MIN}
                   AND 2 * (length(${RECENT}) - length(replace(${RECENT}, 'f', ''))) > length(${RECENT}))
             THEN coalesce(failing_since, now()) END
         WHERE id = $1 RETURNING failing_since)
       SELECT failing_since FROM noted`,
      [webhook.id, outcomes.map((ok) => (ok ? 's' : 'f')).join('')],
    );
    const since = rows[0]?.failing_since;
    if (!since || Date.now() - new Date(since).getTime() < this.config.webhookDisableAfterMs) {
      return false;
    }
    await this.disable(webhook, 'failing');
    return true;
  }

  async disable(webhook: WebhookTarget, reason: DisabledReason): Promise<void> {
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

  /**
   * The project's admins learn that a webhook was disabled (the mail queue, or the outbox). The
   * message names the URL's origin only (a URL may carry a token: docs/api.md, "Security"), and
   * the mail's id is made of ids only (the outbox names its files after it).
   */
  private async tellAdmins(webhook: WebhookTarget, reason: DisabledReason): Promise<void> {
    const admins: { user_id: string; email: string; name: string }[] = await this.dataSource.query(
      `SELECT u.id AS user_id, u.email, p.name FROM project_users pu
       JOIN users u ON u.id = pu.user_id JOIN projects p ON p.id = pu.project_id
       WHERE pu.project_id = $1 AND pu.role = 'admin'`,
      [webhook.projectId],
    );
    const why =
      reason === 'gone'
        ? 'its endpoint answered 410 Gone'
        : 'most of its deliveries have failed for longer than the service allows';
    const at = Date.now();
    for (const { user_id: userId, email, name } of admins) {
      await this.mail.enqueue({
        id: `webhook-disabled-${webhook.id}-${at}-${userId}`,
        to: email,
        subject: `A webhook of ${name} was disabled`,
        text: [
          'Hello,',
          '',
          `the webhook ${webhook.id} of the project "${name}", to ${originOf(webhook.url)}, was disabled: ${why}.`,
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

/** scheme://host[:port] of a URL: never its path, query or credentials. */
export function originOf(url: string): string {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? 'an address that is not a URL' : origin;
  } catch {
    return 'an address that is not a URL';
  }
}
