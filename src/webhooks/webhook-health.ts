import { Injectable, Logger } from '@nestjs/common';
import { ProjectLookupsService } from '../projects/project-lookups.service';
import { AppConfig } from '../config/app-config';
import { MailService } from '../mail/mail.service';
import type { DisabledReason } from './webhook.entity';
import { WebhookTargets } from './webhook-targets';
import { WebhookTarget, WebhooksRepository } from './webhooks.repository';

/** Attempts the breaker looks back on (webhooks.recent_outcomes). */
export const BREAKER_WINDOW = 100;
/** Attempts known before their failure rate counts: fewer, and a success ends the streak. */
export const BREAKER_MIN = 20;

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
  private readonly logger = new Logger('WebhookHealth');

  constructor(
    private readonly config: AppConfig,
    private readonly projects: ProjectLookupsService,
    private readonly repository: WebhooksRepository,
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
    const since = await this.repository.noteOutcomes(
      webhook.id,
      outcomes.map((ok) => (ok ? 's' : 'f')).join(''),
      BREAKER_WINDOW,
      BREAKER_MIN,
    );
    if (!since || Date.now() - since.getTime() < this.config.webhookDisableAfterMs) {
      return false;
    }
    await this.disable(webhook, 'failing');
    return true;
  }

  async disable(webhook: WebhookTarget, reason: DisabledReason): Promise<void> {
    const disabled = await this.repository.disableIfEnabled(webhook.id, reason);
    await this.targets.changed(webhook.projectId);
    // Another job may have disabled it first: one message.
    if (!disabled) return;
    this.logger.warn({ webhook: webhook.id, reason }, 'webhook disabled');
    await this.tellAdmins(webhook, reason);
  }

  /**
   * The project's admins learn that a webhook was disabled (the mail queue, or the outbox). The
   * message names the URL's origin only (a URL may carry a token: docs/api.md, "Security"), and
   * the mail's id is made of ids only (the outbox names its files after it).
   */
  private async tellAdmins(webhook: WebhookTarget, reason: DisabledReason): Promise<void> {
    const admins = await this.projects.admins(webhook.projectId);
    const why =
      reason === 'gone'
        ? 'its endpoint answered 410 Gone'
        : 'most of its deliveries have failed for longer than the service allows';
    const at = Date.now();
    for (const { userId, email, projectName: name } of admins) {
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
