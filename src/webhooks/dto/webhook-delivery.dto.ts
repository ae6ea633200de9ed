import { ApiProperty } from '@nestjs/swagger';
import { adminTimestamp } from '../../common/time';
import type { DeliveryRow } from '../delivery-log';
import type { DeliveryPage } from '../webhooks.service';

/** One attempt to deliver an event, as the delivery log shows it. */
export class WebhookDeliveryDto {
  @ApiProperty({
    type: 'integer',
    description: 'The attempt id: later attempts have larger ids.',
    example: 4182,
  })
  id: number;

  @ApiProperty({
    description: 'The event id (`evt_…`): its `webhook-id` header on every attempt.',
    example: 'evt_5f0c6a1e9d2b4c7a8e3f1b0d2c4a6e8f',
  })
  event_id: string;

  @ApiProperty({ description: 'The event type.', example: 'link.clicked' })
  event_type: string;

  @ApiProperty({ type: 'integer', description: 'The attempt of this event, from 1.', example: 1 })
  attempt: number;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "The receiver's HTTP status; null when none came (timeout, connection refused).",
    example: 200,
  })
  status_code: number | null;

  @ApiProperty({ type: 'integer', description: 'How long the attempt took, in ms.', example: 87 })
  duration_ms: number;

  @ApiProperty({ description: "The first 1 KB of the receiver's answer.", example: 'ok' })
  response: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the attempt failed without an answer; null otherwise.',
    example: null,
  })
  error: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'When the next attempt is due, `YYYY-MM-DD HH:MM:SS` UTC; null after a success or the last attempt.',
    example: null,
  })
  next_retry_at: string | null;

  @ApiProperty({
    description: 'When the attempt was made, `YYYY-MM-DD HH:MM:SS` UTC.',
    example: '2026-11-24 16:05:12',
  })
  created_at: string;
}

export class WebhookDeliveriesBodyDto {
  @ApiProperty({
    type: [WebhookDeliveryDto],
    description: 'The attempts of the page, newest first.',
  })
  deliveries: WebhookDeliveryDto[];

  @ApiProperty({
    type: 'integer',
    description: "The webhook's attempts over every page.",
    example: 42,
  })
  total_results: number;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'The page asked for (1 by default); null when offset was given, which overrides it.',
    example: 1,
  })
  page: number | null;

  @ApiProperty({ type: 'integer', example: 10 })
  per_page: number;

  @ApiProperty({ type: 'integer', example: 0 })
  offset: number;

  @ApiProperty({
    type: 'integer',
    description: 'offset plus the attempts of this page: the offset of the next page.',
    example: 10,
  })
  last_offset: number;
}

export function toWebhookDelivery(delivery: DeliveryRow): WebhookDeliveryDto {
  return {
    id: delivery.id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    attempt: delivery.attempt,
    status_code: delivery.status_code,
    duration_ms: delivery.duration_ms,
    response: delivery.response,
    error: delivery.error,
    next_retry_at: delivery.next_retry_at ? adminTimestamp(delivery.next_retry_at) : null,
    created_at: adminTimestamp(delivery.created_at),
  };
}

/** A page of the delivery log with its paging fields, as the other paged lists answer them. */
export function toWebhookDeliveriesBody(page: DeliveryPage): WebhookDeliveriesBodyDto {
  const deliveries = page.deliveries.map(toWebhookDelivery);
  return {
    deliveries,
    total_results: page.total,
    page: page.page,
    per_page: page.perPage,
    offset: page.offset,
    last_offset: page.offset + deliveries.length,
  };
}
