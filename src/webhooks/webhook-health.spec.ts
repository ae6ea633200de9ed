import { webhookTarget } from '../../test/factories/webhook-target';
import { Logger } from '@nestjs/common';
import type { ProjectLookupsService } from '../projects/project-lookups.service';
import type { AppConfig } from '../config/app-config';
import type { MailService } from '../mail/mail.service';
import { BREAKER_MIN, BREAKER_WINDOW, WebhookHealth } from './webhook-health';
import type { WebhookTargets } from './webhook-targets';
import type { WebhooksRepository } from './webhooks.repository';

const DISABLE_AFTER_MS = 3 * 86_400_000;

const webhook = webhookTarget({ url: 'https://user:token@hooks.example/in?secret=1' });

/** The webhooks table as far as the breaker goes: its failing_since, and whether it is enabled. */
class FakeWebhooks {
  failingSince: Date | null = null;
  enabled = true;
  readonly noted: [string, number, number][] = [];

  noteOutcomes(_id: string, outcomes: string, window: number, min: number) {
    this.noted.push([outcomes, window, min]);
    return Promise.resolve(this.failingSince);
  }

  disableIfEnabled() {
    const was = this.enabled;
    this.enabled = false;
    return Promise.resolve(was);
  }
}

function setUp() {
  const webhooks = new FakeWebhooks();
  const changed: string[] = [];
  const mails: { id: string; to: string; subject: string; text: string }[] = [];
  const admins = [{ userId: 'u1', email: 'admin@example.com', projectName: 'Shop' }];
  const health = new WebhookHealth(
    { webhookDisableAfterMs: DISABLE_AFTER_MS } as AppConfig,
    { admins: () => Promise.resolve(admins) } as unknown as ProjectLookupsService,
    webhooks as unknown as WebhooksRepository,
    {
      changed: (projectId: string) => {
        changed.push(projectId);
        return Promise.resolve();
      },
    } as unknown as WebhookTargets,
    {
      enqueue: (mail: (typeof mails)[number]) => {
        mails.push(mail);
        return Promise.resolve();
      },
    } as unknown as MailService,
  );
  return { health, webhooks, changed, mails };
}

describe('WebhookHealth', () => {
  beforeEach(() => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('notes a job’s outcomes in order, with the breaker’s window, and keeps a webhook that is not failing', async () => {
    const { health, webhooks, mails } = setUp();
    expect(await health.note(webhook, [true, false, true])).toBe(false);
    expect(webhooks.noted).toEqual([['sfs', BREAKER_WINDOW, BREAKER_MIN]]);
    expect(webhooks.enabled).toBe(true);
    expect(mails).toEqual([]);
  });

  it('notes nothing for no outcomes', async () => {
    const { health, webhooks } = setUp();
    expect(await health.note(webhook, [])).toBe(false);
    expect(webhooks.noted).toEqual([]);
  });

  it('keeps a webhook failing for less than WEBHOOK_DISABLE_AFTER', async () => {
    const { health, webhooks } = setUp();
    webhooks.failingSince = new Date(Date.now() - DISABLE_AFTER_MS + 60_000);
    expect(await health.note(webhook, [false])).toBe(false);
    expect(webhooks.enabled).toBe(true);
  });

  it('disables a webhook failing for longer, and tells its admins naming its origin only', async () => {
    const { health, webhooks, changed, mails } = setUp();
    webhooks.failingSince = new Date(Date.now() - DISABLE_AFTER_MS - 1);
    // Whether it is failing is the statement's answer (WebhooksRepository.noteOutcomes).
    expect(await health.note(webhook, [true])).toBe(true);
    expect(webhooks.enabled).toBe(false);
    expect(changed).toEqual(['p1']);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({
      to: 'admin@example.com',
      subject: 'A webhook of Shop was disabled',
    });
    expect(mails[0].id).toMatch(/^webhook-disabled-wh1-\d+-u1$/);
    expect(mails[0].text).toContain('to https://hooks.example, was disabled');
    expect(mails[0].text).toContain('most of its deliveries have failed');
    expect(mails[0].text).not.toContain('token');
    expect(mails[0].text).not.toContain('secret=');
  });

  it('tells the admins once when two jobs disable the same webhook', async () => {
    const { health, changed, mails } = setUp();
    await health.disable(webhook, 'gone');
    await health.disable(webhook, 'gone');
    expect(changed).toEqual(['p1', 'p1']);
    expect(mails).toHaveLength(1);
    expect(mails[0].text).toContain('its endpoint answered 410 Gone');
  });
});
