import { Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Params } from '../common/params.decorator';
import type { RawParams } from '../common/params';
import { adminResponse } from '../common/request-echo';
import { CurrentSubscription, SubscriptionAuth } from '../subscriptions/subscription.decorators';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import { toWebhookDeliveriesBody } from './dto/webhook-delivery.dto';
import {
  WebhookRecordDto,
  WebhookSecretRecordDto,
  toWebhookRecord,
  toWebhookSecretRecord,
} from './dto/webhook-record.dto';
import {
  WebhookDeletedResponseDto,
  WebhookDeliveriesBodyDto,
  WebhookDeliveriesResponseDto,
  WebhookListResponseDto,
  WebhookResponseDto,
  WebhookSecretResponseDto,
} from './dto/webhook-responses.dto';
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
  constructor(private readonly webhooks: WebhooksService) {}

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
}
