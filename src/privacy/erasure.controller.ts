import { Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { RawParams, readPaging } from '../common/params';
import { Params } from '../common/params.decorator';
import { adminResponse } from '../common/request-echo';
import { ProjectLookupsService } from '../projects/project-lookups.service';
import { CurrentSubscription, SubscriptionAuth } from '../subscriptions/subscription.decorators';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import { parseErasure } from './erasure-input';
import { ErasureService } from './erasure.service';
import {
  ApiErase,
  ApiErasures,
  EraseBodyDto,
  ErasuresBodyDto,
  toErasureRecord,
} from './erasure.swagger';

type Envelope<T> = { request: Record<string, unknown> | null; response: T };

/**
 * `POST /projects/{api_key}/erase` and `GET|POST /projects/{api_key}/erasures` (docs/api.md,
 * "Erasure"): administration operations (both keys, the admin shape) on a project of the
 * subscription.
 */
@ApiTags('projects')
@Controller('projects')
export class ErasureController {
  constructor(
    private readonly erasures: ErasureService,
    private readonly projects: ProjectLookupsService,
  ) {}

  @Post(':api_key/erase')
  @HttpCode(200)
  @ApiErase()
  @SubscriptionAuth({ application: 'required' })
  async erase(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('api_key') apiKey: string,
    @Params() params: RawParams,
  ): Promise<Envelope<EraseBodyDto>> {
    const target = parseErasure(params.json);
    const project = await this.projects.findOwned(subscription.id, apiKey);
    const erasure = await this.erasures.erase(project, target);
    return adminResponse(req, { erasure: toErasureRecord(erasure) });
  }

  @Post(':api_key/erasures')
  @HttpCode(200)
  @ApiErasures('form')
  @SubscriptionAuth({ application: 'required' })
  list(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('api_key') apiKey: string,
    @Params() params: RawParams,
  ): Promise<Envelope<ErasuresBodyDto>> {
    return this.page(req, subscription, apiKey, params);
  }

  @Get(':api_key/erasures')
  @ApiErasures('query')
  @SubscriptionAuth({ application: 'required' })
  listByGet(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('api_key') apiKey: string,
    @Params() params: RawParams,
  ): Promise<Envelope<ErasuresBodyDto>> {
    return this.page(req, subscription, apiKey, params);
  }

  private async page(
    req: Request,
    subscription: SubscriptionEntity,
    apiKey: string,
    params: RawParams,
  ): Promise<Envelope<ErasuresBodyDto>> {
    const paging = readPaging(params);
    const project = await this.projects.findOwned(subscription.id, apiKey);
    const { erasures, total } = await this.erasures.list(project, paging.perPage, paging.offset);
    return adminResponse(req, {
      erasures: erasures.map(toErasureRecord),
      total_results: total,
      page: paging.page,
      per_page: paging.perPage,
      offset: paging.offset,
      last_offset: paging.offset + erasures.length,
    });
  }
}
