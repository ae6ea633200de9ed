import { ApiProperty } from '@nestjs/swagger';
import { ADMIN_KEY_EXAMPLES, RequestEcho } from '../../common/dto/request-echo.dto';
import { WebhookDeliveriesBodyDto, WebhookDeliveryDto } from './webhook-delivery.dto';
import { CREATE_JSON_EXAMPLE, UPDATE_JSON_EXAMPLE, WEBHOOK_ID_EXAMPLE } from './webhook-params.dto';
import { WebhookRecordDto, WebhookSecretRecordDto } from './webhook-record.dto';

/** The `request` echo of a webhooks answer, with the example of one method. */
const WebhookEcho = (example: Record<string, unknown>): PropertyDecorator =>
  RequestEcho(
    ADMIN_KEY_EXAMPLES,
    example,
    'Echo of the parameters as strings, plus `id` (from the path), `method` (new, update, show, list, delete, ' +
      'rotate-secret, deliveries) and `object` (webhook).',
  );

const ID = { id: WEBHOOK_ID_EXAMPLE };

export class WebhookSecretBodyDto {
  @ApiProperty({ type: WebhookSecretRecordDto })
  webhook: WebhookSecretRecordDto;
}

export class WebhookBodyDto {
  @ApiProperty({ type: WebhookRecordDto })
  webhook: WebhookRecordDto;
}

export class WebhookListBodyDto {
  @ApiProperty({ type: [WebhookRecordDto] })
  webhooks: WebhookRecordDto[];
}

export class WebhookDeletedBodyDto {
  @ApiProperty({ description: 'Always true.', example: true })
  deleted: true;
}

/** new, show and rotate-secret: the record with its secret. */
export class WebhookSecretResponseDto {
  @WebhookEcho({ json: CREATE_JSON_EXAMPLE, method: 'new', object: 'webhook' })
  request: Record<string, unknown>;

  @ApiProperty({ type: WebhookSecretBodyDto })
  response: WebhookSecretBodyDto;
}

/** update: the record without the secret. */
export class WebhookResponseDto {
  @WebhookEcho({ json: UPDATE_JSON_EXAMPLE, ...ID, method: 'update', object: 'webhook' })
  request: Record<string, unknown>;

  @ApiProperty({ type: WebhookBodyDto })
  response: WebhookBodyDto;
}

export class WebhookListResponseDto {
  @WebhookEcho({ method: 'list', object: 'webhook' })
  request: Record<string, unknown>;

  @ApiProperty({ type: WebhookListBodyDto })
  response: WebhookListBodyDto;
}

export class WebhookDeletedResponseDto {
  @WebhookEcho({ ...ID, method: 'delete', object: 'webhook' })
  request: Record<string, unknown>;

  @ApiProperty({ type: WebhookDeletedBodyDto })
  response: WebhookDeletedBodyDto;
}

export class WebhookDeliveriesResponseDto {
  @WebhookEcho({ ...ID, page: '1', method: 'deliveries', object: 'webhook' })
  request: Record<string, unknown>;

  @ApiProperty({ type: WebhookDeliveriesBodyDto })
  response: WebhookDeliveriesBodyDto;
}

export class WebhookTestBodyDto {
  @ApiProperty({
    type: WebhookDeliveryDto,
    description: "The ping's attempt, as the delivery log keeps it.",
  })
  delivery: WebhookDeliveryDto;
}

export class WebhookTestResponseDto {
  @WebhookEcho({ ...ID, method: 'test', object: 'webhook' })
  request: Record<string, unknown>;

  @ApiProperty({ type: WebhookTestBodyDto })
  response: WebhookTestBodyDto;
}

export class WebhookRedeliveryDto {
  @ApiProperty({
    description: 'The event queued again.',
    example: 'evt_5f0c6a1e9d2b4c7a8e3f1b0d2c4a6e8f',
  })
  event_id: string;

  @ApiProperty({
    description: 'Always true: the delivery is queued, its attempt shows in the log.',
    example: true,
  })
  queued: true;
}

export class WebhookRedeliverBodyDto {
  @ApiProperty({ type: WebhookRedeliveryDto })
  redelivery: WebhookRedeliveryDto;
}

export class WebhookRedeliverResponseDto {
  @WebhookEcho({
    ...ID,
    json: '{"event_id":"evt_5f0c6a1e9d2b4c7a8e3f1b0d2c4a6e8f"}',
    method: 'redeliver',
    object: 'webhook',
  })
  request: Record<string, unknown>;

  @ApiProperty({ type: WebhookRedeliverBodyDto })
  response: WebhookRedeliverBodyDto;
}
