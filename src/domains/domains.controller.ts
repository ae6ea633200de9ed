import { Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Params } from '../common/params.decorator';
import { adminResponse } from '../common/request-echo';
import { CurrentSubscription, SubscriptionAuth } from '../subscriptions/subscription.decorators';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import { DomainParams, DomainView, DomainsService } from './domains.service';
import { ApiDomainErrors, ApiDomainParams, ApiHostnameParam } from './domains.swagger';
import { DomainRecordDto, toDomainRecord } from './dto/domain-record.dto';
import {
  DomainDeletedResponseDto,
  DomainListResponseDto,
  DomainResponseDto,
} from './dto/domain-responses.dto';

type Envelope<T> = ReturnType<typeof adminResponse<T>>;

const LIST = {
  summary: 'List domains',
  description: 'The domains connected to the subscription, by hostname.',
};
const SHOW = { summary: 'Show a domain', description: 'One domain connected to the subscription.' };

/**
 * Administration of custom link domains (docs/api.md, "Administration"). All POST; list and show
 * also answer GET. Every operation requires both keys (SubscriptionGuard).
 */
@ApiTags('domains')
@Controller('domains')
export class DomainsController {
  constructor(private readonly domains: DomainsService) {}

  @Post('list')
  @HttpCode(200)
  @ApiOperation(LIST)
  @ApiDomainParams('keys', 'form')
  @ApiOkResponse({ type: DomainListResponseDto })
  @ApiDomainErrors('list')
  @SubscriptionAuth({ application: 'required' })
  async list(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
  ): Promise<Envelope<{ domains: DomainRecordDto[] }>> {
    const views = await this.domains.list(subscription);
    return adminResponse(req, { domains: views.map(record) });
  }

  @Get('list')
  @ApiOperation({ ...LIST, summary: `${LIST.summary} (GET)` })
  @ApiDomainParams('keys', 'query')
  @ApiOkResponse({ type: DomainListResponseDto })
  @ApiDomainErrors('list')
  @SubscriptionAuth({ application: 'required' })
  listByGet(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
  ): Promise<Envelope<{ domains: DomainRecordDto[] }>> {
    return this.list(req, subscription);
  }

  @Post('new')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Connect a domain',
    description:
      'Connects a hostname already pointed to the service and authorises the listed projects of the subscription on it.',
  })
  @ApiDomainParams('new', 'form')
  @ApiOkResponse({ type: DomainResponseDto })
  @ApiDomainErrors('new')
  @SubscriptionAuth({ application: 'required' })
  async create(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Params() params: DomainParams,
  ): Promise<Envelope<{ domain: DomainRecordDto }>> {
    return adminResponse(req, {
      domain: record(await this.domains.create(subscription, params.json)),
    });
  }

  @Post(':hostname/show')
  @HttpCode(200)
  @ApiOperation(SHOW)
  @ApiHostnameParam()
  @ApiDomainParams('keys', 'form')
  @ApiOkResponse({ type: DomainResponseDto })
  @ApiDomainErrors('show')
  @SubscriptionAuth({ application: 'required' })
  async show(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('hostname') hostname: string,
  ): Promise<Envelope<{ domain: DomainRecordDto }>> {
    return adminResponse(req, { domain: record(await this.domains.show(subscription, hostname)) });
  }

  @Get(':hostname/show')
  @ApiOperation({ ...SHOW, summary: `${SHOW.summary} (GET)` })
  @ApiHostnameParam()
  @ApiDomainParams('keys', 'query')
  @ApiOkResponse({ type: DomainResponseDto })
  @ApiDomainErrors('show')
  @SubscriptionAuth({ application: 'required' })
  showByGet(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('hostname') hostname: string,
  ): Promise<Envelope<{ domain: DomainRecordDto }>> {
    return this.show(req, subscription, hostname);
  }

  @Post(':hostname/update')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Update a domain',
    description:
      'Changes only the given fields: the redirects, projects to authorise in addition, and remove_projects to withdraw.',
  })
  @ApiHostnameParam()
  @ApiDomainParams('update', 'form')
  @ApiOkResponse({ type: DomainResponseDto })
  @ApiDomainErrors('update')
  @SubscriptionAuth({ application: 'required' })
  async update(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('hostname') hostname: string,
    @Params() params: DomainParams,
  ): Promise<Envelope<{ domain: DomainRecordDto }>> {
    return adminResponse(req, {
      domain: record(await this.domains.update(subscription, hostname, params.json)),
    });
  }

  @Post(':hostname/destroy')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Disconnect a domain',
    description:
      'Deletes the domain and its project authorisations; refused while a live project has it as default_domain.',
  })
  @ApiHostnameParam()
  @ApiDomainParams('keys', 'form')
  @ApiOkResponse({ type: DomainDeletedResponseDto })
  @ApiDomainErrors('destroy')
  @SubscriptionAuth({ application: 'required' })
  async destroy(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('hostname') hostname: string,
  ): Promise<Envelope<{ deleted: true }>> {
    await this.domains.destroy(subscription, hostname);
    return adminResponse(req, { deleted: true as const });
  }
}

function record(view: DomainView): DomainRecordDto {
  return toDomainRecord(view.domain, view.projects);
}
