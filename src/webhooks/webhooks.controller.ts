import { Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Params } from '../common/params.decorator';
import type { RawParams } from '../common/params';
import { adminResponse } from '../common/request-echo';
import { CurrentSubscription, SubscriptionAuth } from '../subscriptions/subscription.decorators';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import { Errors } from '../common/app-error';
import { parseJsonObject } from '../common/json-parameter';
import { isEventId } from '../events/project-event';
import {
  WebhookDeliveriesBodyDto,
  WebhookDeliveryDto,
  toWebhookDeliveriesBody,
  toWebhookDelivery,
} from './dto/webhook-delivery.dto';
import {
  WebhookRecordDto,
  WebhookSecretRecordDto,
  toWebhookRecord,
  toWebhookSecretRecord,
} from './dto/webhook-record.dto';
import {
  WebhookDeletedResponseDto,
  WebhookDeliveriesResponseDto,
  WebhookListResponseDto,
  WebhookResponseDto,
  WebhookSecretResponseDto,
  WebhookRedeliverResponseDto,
  WebhookTestResponseDto,
} from './dto/webhook-responses.dto';
import { ReplayBudget } from './replay-budget';
import { Redelivery, WebhookDeliveries } from './webhook-deliveries';
import { WebhookParams, WebhooksService } from './webhooks.service';
import { ApiWebhookErrors, ApiWebhookIdParam, ApiWebhookParams } from './webhooks.swagger';

type Envelope<T> = ReturnType<typeof adminResponse<T>>;

const LIST = {
  summary: 'List webhooks',
  description:
    "The subscription's webhooks, oldest first, without their secrets; `project` keeps one project's.",
};
const SHOW = {
  summary: 'Show a webhook',
  description: 'One webhook of the subscription, with its secret.',
};
const DELIVERIES = {
  summary: "A webhook's delivery log",
  description:
    'Every attempt to deliver an event to the webhook, newest first, paged: event, attempt, status, duration, next retry and the first 1 KB of the answer.',
};

/**
 * Administration of webhooks (docs/api.md, "Administration of webhooks"). All POST; list, show and
 * deliveries also answer GET. Every operation requires both keys (SubscriptionGuard).
 */
@ApiTags('webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly sending: WebhookDeliveries,
    private readonly budget: ReplayBudget,
  ) {}

  @Post('list')
  @HttpCode(200)
  @ApiOperation(LIST)
  @ApiWebhookParams('list', 'form')
  @ApiOkResponse({ type: WebhookListResponseDto })
  @ApiWebhookErrors('list')
  @SubscriptionAuth({ application: 'required' })
  async list(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Params() params: WebhookParams,
  ): Promise<Envelope<{ webhooks: WebhookRecordDto[] }>> {
    const views = await this.webhooks.list(subscription, params);
    return adminResponse(req, { webhooks: views.map(toWebhookRecord) });
  }

  @Get('list')
  @ApiOperation({ ...LIST, summary: `${LIST.summary} (GET)` })
  @ApiWebhookParams('list', 'query')
  @ApiOkResponse({ type: WebhookListResponseDto })
  @ApiWebhookErrors('list')
  @SubscriptionAuth({ application: 'required' })
  listByGet(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Params() params: WebhookParams,
  ): Promise<Envelope<{ webhooks: WebhookRecordDto[] }>> {
    return this.list(req, subscription, params);
  }

  @Post('new')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a webhook',
    description:
      'Makes a webhook in a project of the subscription: the events to send, to an https URL. The answer carries its new secret.',
  })
  @ApiWebhookParams('new', 'form')
  @ApiOkResponse({ type: WebhookSecretResponseDto })
  @ApiWebhookErrors('new')
  @SubscriptionAuth({ application: 'required' })
  async create(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Params() params: WebhookParams,
  ): Promise<Envelope<{ webhook: WebhookSecretRecordDto }>> {
    const view = await this.webhooks.create(subscription, params.json);
    return adminResponse(req, { webhook: toWebhookSecretRecord(view) });
  }

  @Post(':id/show')
  @HttpCode(200)
  @ApiOperation(SHOW)
  @ApiWebhookIdParam()
  @ApiWebhookParams('keys', 'form')
  @ApiOkResponse({ type: WebhookSecretResponseDto })
  @ApiWebhookErrors('show')
  @SubscriptionAuth({ application: 'required' })
  async show(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('id') id: string,
  ): Promise<Envelope<{ webhook: WebhookSecretRecordDto }>> {
    const view = await this.webhooks.show(subscription, id);
    return adminResponse(req, { webhook: toWebhookSecretRecord(view) });
  }

  @Get(':id/show')
  @ApiOperation({ ...SHOW, summary: `${SHOW.summary} (GET)` })
  @ApiWebhookIdParam()
  @ApiWebhookParams('keys', 'query')
  @ApiOkResponse({ type: WebhookSecretResponseDto })
  @ApiWebhookErrors('show')
  @SubscriptionAuth({ application: 'required' })
  showByGet(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('id') id: string,
  ): Promise<Envelope<{ webhook: WebhookSecretRecordDto }>> {
    return this.show(req, subscription, id);
  }

  @Post(':id/update')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Update a webhook',
    description:
      'Changes only the given fields: url, events, description, links, pageviews; enabled false disables it, true enables it again.',
  })
  @ApiWebhookIdParam()
  @ApiWebhookParams('update', 'form')
  @ApiOkResponse({ type: WebhookResponseDto })
  @ApiWebhookErrors('update')
  @SubscriptionAuth({ application: 'required' })
  async update(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('id') id: string,
    @Params() params: WebhookParams,
  ): Promise<Envelope<{ webhook: WebhookRecordDto }>> {
    const view = await this.webhooks.update(subscription, id, params.json);
    return adminResponse(req, { webhook: toWebhookRecord(view) });
  }

  @Post(':id/destroy')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Destroy a webhook',
    description: 'Deletes the webhook and its delivery log; nothing more is sent to it.',
  })
  @ApiWebhookIdParam()
  @ApiWebhookParams('keys', 'form')
  @ApiOkResponse({ type: WebhookDeletedResponseDto })
  @ApiWebhookErrors('destroy')
  @SubscriptionAuth({ application: 'required' })
  async destroy(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('id') id: string,
  ): Promise<Envelope<{ deleted: true }>> {
    await this.webhooks.destroy(subscription, id);
    return adminResponse(req, { deleted: true as const });
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({
    summary: "Rotate a webhook's secret",
    description:
      'Gives the webhook a new secret, in the answer. The old one still signs deliveries for 24 hours (each delivery then carries both signatures).',
  })
  @ApiWebhookIdParam()
  @ApiWebhookParams('keys', 'form')
  @ApiOkResponse({ type: WebhookSecretResponseDto })
  @ApiWebhookErrors('rotate-secret')
  @SubscriptionAuth({ application: 'required' })
  async rotateSecret(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('id') id: string,
  ): Promise<Envelope<{ webhook: WebhookSecretRecordDto }>> {
    const view = await this.webhooks.rotateSecret(subscription, id);
    return adminResponse(req, { webhook: toWebhookSecretRecord(view) });
  }

  @Post(':id/deliveries')
  @HttpCode(200)
  @ApiOperation(DELIVERIES)
  @ApiWebhookIdParam()
  @ApiWebhookParams('deliveries', 'form')
  @ApiOkResponse({ type: WebhookDeliveriesResponseDto })
  @ApiWebhookErrors('deliveries')
  @SubscriptionAuth({ application: 'required' })
  async deliveries(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('id') id: string,
    @Params() params: RawParams,
  ): Promise<Envelope<WebhookDeliveriesBodyDto>> {
    const page = await this.webhooks.deliveries(subscription, id, params);
    return adminResponse(req, toWebhookDeliveriesBody(page));
  }

  @Get(':id/deliveries')
  @ApiOperation({ ...DELIVERIES, summary: `${DELIVERIES.summary} (GET)` })
  @ApiWebhookIdParam()
  @ApiWebhookParams('deliveries', 'query')
  @ApiOkResponse({ type: WebhookDeliveriesResponseDto })
  @ApiWebhookErrors('deliveries')
  @SubscriptionAuth({ application: 'required' })
  deliveriesByGet(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('id') id: string,
    @Params() params: RawParams,
  ): Promise<Envelope<WebhookDeliveriesBodyDto>> {
    return this.deliveries(req, subscription, id, params);
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send a test ping',
    description:
      "Sends a `ping` event to the webhook now, enabled or not, signed like every delivery, and answers its attempt (also in the delivery log; never retried). Counts in the webhook's budget of test and redeliver calls (429 past it).",
  })
  @ApiWebhookIdParam()
  @ApiWebhookParams('keys', 'form')
  @ApiOkResponse({ type: WebhookTestResponseDto })
  @ApiWebhookErrors('test')
  @SubscriptionAuth({ application: 'required' })
  async test(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('id') id: string,
  ): Promise<Envelope<{ delivery: WebhookDeliveryDto }>> {
    const webhook = await this.webhooks.find(subscription, id);
    await this.budget.spend(webhook.id, req.res);
    const row = await this.sending.ping(webhook.id);
    if (!row) throw Errors.notFound(`Webhook not found: ${id}`);
    return adminResponse(req, { delivery: toWebhookDelivery(row) });
  }

  @Post(':id/redeliver')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Redeliver an event',
    description:
      "Queues an event again, as a first attempt with its id unchanged (the same webhook-id): any event the delivery log holds for a webhook of the project, delivered or not, that this webhook's events, links and pageviews take (else 400). Counts in the webhook's budget of test and redeliver calls (429 past it).",
  })
  @ApiWebhookIdParam()
  @ApiWebhookParams('redeliver', 'form')
  @ApiOkResponse({ type: WebhookRedeliverResponseDto })
  @ApiWebhookErrors('redeliver')
  @SubscriptionAuth({ application: 'required' })
  async redeliver(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('id') id: string,
    @Params() params: WebhookParams,
  ): Promise<Envelope<{ redelivery: { event_id: string; queued: true } }>> {
    const input = parseJsonObject(params.json);
    const eventId = input.event_id;
    if (typeof eventId !== 'string' || !isEventId(eventId)) {
      throw Errors.invalid('json.event_id', 'must be an event id (evt_ and 32 hex digits)');
    }
    const webhook = await this.webhooks.find(subscription, id);
    await this.budget.spend(webhook.id, req.res);
    const outcome = await this.sending.redeliver(webhook.id, webhook.projectId, eventId);
    switch (outcome.kind) {
      case 'queued':
        break;
      case 'not_found':
        throw Errors.notFound(`Event not found: ${eventId}`);
      case 'refused':
        throw Errors.invalid('json.event_id', refusalMessage(eventId, outcome));
    }
    return adminResponse(req, { redelivery: { event_id: eventId, queued: true as const } });
  }
}

/** Why a redelivery was refused: the webhook's filter that leaves the event out. */
function refusalMessage(
  eventId: string,
  { why, event }: Extract<Redelivery, { kind: 'refused' }>,
): string {
  switch (why) {
    case 'type':
      return `${eventId} is a ${event.type} event, which this webhook does not take (its events)`;
    case 'link':
      return `${eventId} is a click of a link this webhook is not limited to (its links)`;
    case 'pageview':
      return `${eventId} is a pageview conversion, which this webhook does not take (pageviews: false)`;
  }
}
