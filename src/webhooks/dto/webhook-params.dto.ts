import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PROJECT_KEY_EXAMPLE } from '../../common/dto/request-echo.dto';
import { AdminKeysParams } from '../../common/dto/admin-keys.dto';
import { EVENT_TYPES } from '../../events/project-event';

export const WEBHOOK_ID_EXAMPLE = '0b8e6a52-3c1f-4d7e-9a25-6f4c8d1e2b37';
export const WEBHOOK_URL_EXAMPLE = 'https://hooks.example.com/svc';

/** The webhook creation object, sent as the JSON string `json` of webhooks/new. */
export class WebhookCreationObjectDto {
  @ApiProperty({
    description:
      'API key of a live project of this subscription: the project whose events are sent.',
    example: PROJECT_KEY_EXAMPLE,
  })
  project: string;

  @ApiProperty({
    description:
      'Where events are POSTed: an https URL (at most 2,048 characters) whose host resolves to public addresses only ' +
      '(no private, loopback, link-local or reserved address). Checked again at each delivery.',
    example: WEBHOOK_URL_EXAMPLE,
  })
  url: string;

  @ApiProperty({
    description:
      'The event types to send, at least one, each once (a single string is taken as one).',
    enum: EVENT_TYPES,
    isArray: true,
    example: ['link.clicked', 'conversion.created'],
  })
  events: string[];

  @ApiPropertyOptional({
    description: 'Free text, at most 500 characters.',
    nullable: true,
    type: String,
    example: 'CRM: clicks and sales',
  })
  description?: string | null;

  @ApiPropertyOptional({
    description:
      'svc_ids of links of the project, at most 1,000, each once: `link.clicked` is sent for these links only. ' +
      'Null or absent: every link. The other events are not limited.',
    nullable: true,
    type: [String],
    example: ['go.example.com_a1B2c3'],
  })
  links?: string[] | null;

  @ApiPropertyOptional({
    description: '`conversion.created` for pageviews too (goals always). Default false.',
    example: false,
  })
  pageviews?: boolean;
}

/** The webhook update object, sent as the JSON string `json` of webhooks/{id}/update. */
export class WebhookUpdateObjectDto {
  @ApiPropertyOptional({
    description: 'A new https URL, checked as on creation.',
    example: WEBHOOK_URL_EXAMPLE,
  })
  url?: string;

  @ApiPropertyOptional({
    description: 'The event types to send from now on (replaces the list).',
    enum: EVENT_TYPES,
    isArray: true,
    example: ['link.clicked'],
  })
  events?: string[];

  @ApiPropertyOptional({
    description: 'New description; null or empty removes it.',
    nullable: true,
    type: String,
    example: 'CRM',
  })
  description?: string | null;

  @ApiPropertyOptional({
    description:
      'svc_ids that `link.clicked` is limited to (replaces the list); null for every link.',
    nullable: true,
    type: [String],
    example: null,
  })
  links?: string[] | null;

  @ApiPropertyOptional({ description: '`conversion.created` for pageviews too.', example: true })
  pageviews?: boolean;

  @ApiPropertyOptional({
    description:
      'false disables the webhook (disabled_reason `manual`); true enables it again, whatever disabled it, ' +
      'and forgets disabled_reason and failing_since.',
    example: true,
  })
  enabled?: boolean;
}

export const CREATE_JSON_EXAMPLE = JSON.stringify({
  project: PROJECT_KEY_EXAMPLE,
  url: WEBHOOK_URL_EXAMPLE,
  events: ['link.clicked', 'conversion.created'],
  description: 'CRM: clicks and sales',
});

export const UPDATE_JSON_EXAMPLE = JSON.stringify({ events: ['link.clicked'], enabled: true });

/** subscription_key and application_key: required on every webhook operation. */
export class WebhookKeysParamsDto extends AdminKeysParams('webhooks') {}

export class ListWebhooksParamsDto extends WebhookKeysParamsDto {
  @ApiPropertyOptional({
    description: "A project's API key: only that project's webhooks.",
    example: PROJECT_KEY_EXAMPLE,
  })
  project?: string;
}

export class CreateWebhookParamsDto extends WebhookKeysParamsDto {
  @ApiProperty({
    description:
      'JSON string: the webhook creation object {project, url, events, description, links, pageviews} ' +
      '(schema WebhookCreationObjectDto). Unknown fields are refused.',
    example: CREATE_JSON_EXAMPLE,
  })
  json: string;
}

export class UpdateWebhookParamsDto extends WebhookKeysParamsDto {
  @ApiProperty({
    description:
      'JSON string: the webhook update object with only what changes {url, events, description, links, ' +
      'pageviews, enabled} (schema WebhookUpdateObjectDto). Unknown fields are refused.',
    example: UPDATE_JSON_EXAMPLE,
  })
  json: string;
}

export class WebhookDeliveriesParamsDto extends WebhookKeysParamsDto {
  @ApiPropertyOptional({
    description: 'Deliveries per page, 1 to 1000 (default 10).',
    example: '10',
  })
  per_page?: string;

  @ApiPropertyOptional({ description: 'The page, from 1 (default 1).', example: '1' })
  page?: string;

  @ApiPropertyOptional({
    description: "Deliveries to skip (overrides page): the previous answer's last_offset.",
    example: '10',
  })
  offset?: string;
}

export const REDELIVER_JSON_EXAMPLE = JSON.stringify({
  event_id: 'evt_5f0c6a1e9d2b4c7a8e3f1b0d2c4a6e8f',
});

export class RedeliverWebhookParamsDto extends WebhookKeysParamsDto {
  @ApiProperty({
    description:
      "JSON string: {event_id}, the id of an event of the webhook's project kept in the log (WEBHOOK_LOG_DAYS).",
    example: REDELIVER_JSON_EXAMPLE,
  })
  json: string;
}
