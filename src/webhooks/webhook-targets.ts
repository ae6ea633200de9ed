import { Injectable } from '@nestjs/common';
import { OutgoingEvent } from '../events/project-event';
import { InvalidationBus } from '../queue/invalidation-bus';
import { WebhookTarget, WebhooksRepository } from './webhooks.repository';

/** How long a project's webhooks are kept without a change being heard (a missed invalidation's bound). */
const TTL_MS = 60_000;

/**
 * The enabled webhooks of each project, cached: every click batch asks for them, and most projects
 * have none. A change of a project's webhooks (WebhooksService) drops its entry here and on every
 * other instance (InvalidationBus, kind `webhooks`).
 */
@Injectable()
export class WebhookTargets {
  private readonly byProject = new Map<string, { at: number; targets: Promise<WebhookTarget[]> }>();

  constructor(
    private readonly repository: WebhooksRepository,
    private readonly bus: InvalidationBus,
  ) {
    bus.register({
      kinds: ['webhooks'],
      drop: (_kind, keys) => keys.forEach((key) => this.byProject.delete(key)),
      dropAll: () => this.byProject.clear(),
    });
  }

  /** The project's enabled webhooks. */
  forProject(projectId: string): Promise<WebhookTarget[]> {
    const cached = this.byProject.get(projectId);
    if (cached && Date.now() - cached.at < TTL_MS) return cached.targets;
    const targets = this.repository.findEnabledTargets(projectId);
    this.byProject.set(projectId, { at: Date.now(), targets });
    // A failed read is not kept.
    targets.catch(() => this.byProject.delete(projectId));
    return targets;
  }

  /** After a change of a project's webhooks: every instance reads them again. */
  async changed(projectId: string): Promise<void> {
    await this.bus.changed('webhooks', [projectId]);
  }

  /** One webhook as stored now, enabled or not (null when gone). */
  byId(id: string): Promise<(WebhookTarget & { enabled: boolean }) | null> {
    return this.repository.findTarget(id);
  }
}

/** The secrets that sign a delivery now: the webhook's, and the previous one for 24 h after a rotation. */
export function signingSecrets(target: WebhookTarget, now = Date.now()): string[] {
  const previous =
    target.previousSecret &&
    target.previousSecretExpiresAt &&
    target.previousSecretExpiresAt.getTime() > now
      ? [target.previousSecret]
      : [];
  return [target.secret, ...previous];
}

/** Why a webhook does not take an event: its type, its link (`links`) or a pageview (`pageviews`). */
export type Refusal = 'type' | 'link' | 'pageview';

/**
 * Why a webhook does not take this event, or null when it does: one of its types; for
 * link.clicked, one of its links when it names some; for conversion.created, a pageview only when
 * it asks for pageviews.
 */
export function refusal(target: WebhookTarget, outgoing: OutgoingEvent): Refusal | null {
  const { type, data } = outgoing.event;
  if (!target.events.has(type)) return 'type';
  if (type === 'link.clicked' && target.linkIds) {
    return outgoing.linkId !== null && target.linkIds.has(outgoing.linkId) ? null : 'link';
  }
  if (type === 'conversion.created' && !target.pageviews) {
    return (data.conversion as { type?: string } | undefined)?.type === 'pageview'
      ? 'pageview'
      : null;
  }
  return null;
}

/** Whether a webhook wants this event (refusal: none). */
export function wants(target: WebhookTarget, outgoing: OutgoingEvent): boolean {
  return refusal(target, outgoing) === null;
}
