import { ApiProperty } from '@nestjs/swagger';
import { adminTimestamp } from '../../common/time';
import { EVENT_TYPES } from '../../events/project-event';
import type { WebhookView } from '../webhooks.service';
import { PROJECT_KEY_EXAMPLE } from '../../common/dto/request-echo.dto';
import { WEBHOOK_ID_EXAMPLE, WEBHOOK_URL_EXAMPLE } from './webhook-params.dto';

/** The webhook record, as list and update answer it: without the secret. */
export class WebhookRecordDto {
  @ApiProperty({
    description: 'The webhook id (a uuid): its path in webhooks/{id}/….',
    example: WEBHOOK_ID_EXAMPLE,
  })
  id: string;

  @ApiProperty({
    description: 'API key of the project whose events are sent.',
    example: PROJECT_KEY_EXAMPLE,
  })
  project: string;

  @ApiProperty({ description: 'Where events are POSTed (https).', example: WEBHOOK_URL_EXAMPLE })
  url: string;

  @ApiProperty({
    description: 'The event types sent.',
    enum: EVENT_TYPES,
    isArray: true,
    example: ['link.clicked', 'conversion.created'],
  })
  events: string[];

  @ApiProperty({ type: String, nullable: true, example: 'CRM: clicks and sales' })
  description: string | null;

  @ApiProperty({
    description: 'svc_ids that `link.clicked` is limited to; null for every link.',
    type: [String],
    nullable: true,
    example: null,
  })
  links: string[] | null;

  @ApiProperty({
    description: '`conversion.created` for pageviews too (goals always).',
    example: false,
  })
  pageviews: boolean;

  @ApiProperty({ description: 'Whether events are sent.', example: true })
  enabled: boolean;

  @ApiProperty({
    description:
      'Why it is disabled: `manual` (update with enabled false), `gone` (the receiver answered 410) or ' +
      '`failing` (failing for 3 days: its last attempt, or most of its last 100, failed); null while enabled.',
    enum: ['manual', 'gone', 'failing'],
    nullable: true,
    example: null,
  })
  disabled_reason: 'manual' | 'gone' | 'failing' | null;

  @ApiProperty({
    description:
      'Since when the webhook has been failing (its last attempt failed, or more than half of its last 100 once it has 20), `YYYY-MM-DD HH:MM:SS` UTC; null while it is not.',
    type: String,
    nullable: true,
    example: null,
  })
  failing_since: string | null;

  @ApiProperty({
    description: 'Creation time, `YYYY-MM-DD HH:MM:SS` UTC.',
    example: '2026-11-23 09:30:00',
  })
  created_at: string;

  @ApiProperty({
    description: 'Last change, `YYYY-MM-DD HH:MM:SS` UTC.',
    example: '2026-11-24 16:05:12',
  })
  updated_at: string;
}

/** The webhook record with its secret, as new, show and rotate-secret answer it. */
export class WebhookSecretRecordDto extends WebhookRecordDto {
  @ApiProperty({
    description:
      'The signing secret (`whsec_` and base64), as Standard Webhooks libraries take it. Only new, show and rotate-secret show it.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret: string;
}

export function toWebhookRecord(view: WebhookView): WebhookRecordDto {
  const { webhook } = view;
  return {
    id: webhook.id,
    project: view.project,
    url: webhook.url,
    events: webhook.events,
    description: webhook.description,
    links: view.links,
    pageviews: webhook.pageviews,
    enabled: webhook.enabled,
    disabled_reason: webhook.disabledReason,
    failing_since: webhook.failingSince ? adminTimestamp(webhook.failingSince) : null,
    created_at: adminTimestamp(webhook.createdAt),
    updated_at: adminTimestamp(webhook.updatedAt),
  };
}

export function toWebhookSecretRecord(view: WebhookView): WebhookSecretRecordDto {
  return { ...toWebhookRecord(view), secret: view.webhook.secret };
}
