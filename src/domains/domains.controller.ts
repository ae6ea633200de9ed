import { Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Params } from '../common/params.decorator';
import { adminResponse } from '../common/request-echo';
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

/** Administration of custom link domains (SPEC.md 4.10). All POST; list and show also answer GET. */
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
  async list(
    @Req() req: Request,
    @Params() params: DomainParams,
  ): Promise<Envelope<{ domains: DomainRecordDto[] }>> {
    const views = await this.domains.list(params);
    return adminResponse(req, { domains: views.map(record) });
  }

  @Get('list')
  @ApiOperation({ ...LIST, summary: `${LIST.summary} (GET)` })
  @ApiDomainParams('keys', 'query')
  @ApiOkResponse({ type: DomainListResponseDto })
  @ApiDomainErrors('list')
  listByGet(
    @Req() req: Request,
    @Params() params: DomainParams,
  ): Promise<Envelope<{ domains: DomainRecordDto[] }>> {
    return this.list(req, params);
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
  async create(
    @Req() req: Request,
    @Params() params: DomainParams,
  ): Promise<Envelope<{ domain: DomainRecordDto }>> {
    return adminResponse(req, { domain: record(await this.domains.create(params)) });
  }

  @Post(':hostname/show')
  @HttpCode(200)
  @ApiOperation(SHOW)
  @ApiHostnameParam()
  @ApiDomainParams('keys', 'form')
  @ApiOkResponse({ type: DomainResponseDto })
  @ApiDomainErrors('show')
  async show(
    @Req() req: Request,
    @Param('hostname') hostname: string,
    @Params() params: DomainParams,
  ): Promise<Envelope<{ domain: DomainRecordDto }>> {
    return adminResponse(req, { domain: record(await this.domains.show(params, hostname)) });
  }

  @Get(':hostname/show')
  @ApiOperation({ ...SHOW, summary: `${SHOW.summary} (GET)` })
  @ApiHostnameParam()
  @ApiDomainParams('keys', 'query')
  @ApiOkResponse({ type: DomainResponseDto })
  @ApiDomainErrors('show')
  showByGet(
    @Req() req: Request,
    @Param('hostname') hostname: string,
    @Params() params: DomainParams,
  ): Promise<Envelope<{ domain: DomainRecordDto }>> {
    return this.show(req, hostname, params);
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
  async update(
    @Req() req: Request,
    @Param('hostname') hostname: string,
    @Params() params: DomainParams,
  ): Promise<Envelope<{ domain: DomainRecordDto }>> {
    return adminResponse(req, { domain: record(await this.domains.update(params, hostname)) });
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
  async destroy(
    @Req() req: Request,
    @Param('hostname') hostname: string,
    @Params() params: DomainParams,
  ): Promise<Envelope<{ deleted: true }>> {
    await this.domains.destroy(params, hostname);
    return adminResponse(req, { deleted: true as const });
  }
}

function record(view: DomainView): DomainRecordDto {
  return toDomainRecord(view.domain, view.projects);
}
