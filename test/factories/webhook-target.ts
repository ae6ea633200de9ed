import type { WebhookTarget } from '../../src/webhooks/webhooks.repository';

/**
 * A webhook as the delivery engine reads it (wh1 of project p1, link.created only, every link,
 * no pageviews, one secret); `over` changes it.
 */
export function webhookTarget(over: Partial<WebhookTarget> = {}): WebhookTarget {
  return {
    id: 'wh1',
    projectId: 'p1',
    url: 'https://hooks.example/in',
    events: new Set(['link.created']),
    linkIds: null,
    secret: 'whsec_current',
    previousSecret: null,
    previousSecretExpiresAt: null,
    pageviews: false,
    ...over,
  };
}
