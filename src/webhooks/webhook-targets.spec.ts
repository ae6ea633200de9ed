import { webhookTarget } from '../../test/factories/webhook-target';
import { OutgoingEvent, ProjectEvent } from '../events/project-event';
import { originOf } from './webhook-health';
import { refusal } from './webhook-targets';
import type { WebhookTarget } from './webhooks.repository';

const target = (over: Partial<WebhookTarget>): WebhookTarget =>
  webhookTarget({ events: new Set(['link.clicked', 'conversion.created']), ...over });

const outgoing = (
  type: ProjectEvent['type'],
  data: ProjectEvent['data'],
  linkId: string | null = null,
): OutgoingEvent => ({
  projectId: 'p',
  linkId,
  event: { id: 'evt_1', type, created_at: '2026-11-28T00:00:00.000Z', data },
});

describe('refusal', () => {
  it('names the filter that leaves an event out: events, links, pageviews', () => {
    expect(refusal(target({}), outgoing('link.created', {}))).toBe('type');
    expect(refusal(target({ linkIds: new Set(['1']) }), outgoing('link.clicked', {}, '2'))).toBe(
      'link',
    );
    expect(refusal(target({ linkIds: new Set(['1']) }), outgoing('link.clicked', {}, null))).toBe(
      'link',
    );
    const pageview = outgoing('conversion.created', { conversion: { type: 'pageview' } });
    expect(refusal(target({}), pageview)).toBe('pageview');
  });

  it('takes what the webhook asks for', () => {
    expect(refusal(target({ linkIds: new Set(['1']) }), outgoing('link.clicked', {}, '1'))).toBe(
      null,
    );
    expect(refusal(target({}), outgoing('link.clicked', {}, '9'))).toBe(null);
    const pageview = outgoing('conversion.created', { conversion: { type: 'pageview' } });
    expect(refusal(target({ pageviews: true }), pageview)).toBe(null);
    const goal = outgoing('conversion.created', { conversion: { type: 'goal_1' } });
    expect(refusal(target({}), goal)).toBe(null);
  });
});

describe('originOf', () => {
  it('keeps the scheme, host and port only', () => {
    expect(originOf('https://hooks.example/t0ken?sig=s3cret#x')).toBe('https://hooks.example');
    expect(originOf('http://127.0.0.1:8080/hook?token=a')).toBe('http://127.0.0.1:8080');
    expect(originOf('https://[::1]:8443/a')).toBe('https://[::1]:8443');
    expect(originOf('not a url')).toBe('an address that is not a URL');
  });
});
