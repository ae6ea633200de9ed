import { Controller, Get, Param, Post, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiFormatted, FormattedResult } from '../common/api-format';
import { Errors } from '../common/app-error';
import { Params } from '../common/params.decorator';
import { ProjectThrottlerGuard } from '../common/rate-limit/project-throttler.guard';
import { readBatchInputs, readLinkInput, requireKey, requireVersion } from './link-input';
import { LinkRecord } from './link-record';
import { ApiLinkParameters, LINK_ERRORS } from './links.swagger';
import { LinksService } from './links.service';

type RawParams = Record<string, unknown>;

@ApiTags('links')
@Controller()
@UseGuards(ProjectThrottlerGuard)
export class LinksController {
  constructor(private readonly links: LinksService) {}

  @Post('url.:format')
  @ApiOperation({ summary: 'Create a tracked link (SPEC.md 4.2)' })
  @ApiFormatted()
  @ApiLinkParameters('create')
  @ApiResponse({ status: 200, description: 'The link record (2.1); txt: the bare svc_url' })
  @ApiResponse(LINK_ERRORS)
  createPost(@Params() params: RawParams) {
    return this.create(params);
  }

  @Get('url.:format')
  @ApiOperation({ summary: 'Create a tracked link (GET form of POST url.{format})' })
  @ApiFormatted()
  @ApiLinkParameters('create')
  @ApiResponse(LINK_ERRORS)
  createGet(@Params() params: RawParams) {
    return this.create(params);
  }

  @Post('url/batch.:format')
  @ApiOperation({
    summary: 'Create links in a batch (SPEC.md 4.3)',
    description:
      'One of campaign, channel, notes, parent, path, service_userid, sharer_id, tag, tool, url, user_id may be an array (`name[]=value`, repeated): one link per element, in order.',
  })
  @ApiFormatted()
  @ApiLinkParameters('batch')
  @ApiResponse({ status: 200, description: '{svc_urls: [link record, …]}; txt: one svc_url per line' })
  @ApiResponse(LINK_ERRORS)
  batchPost(@Params() params: RawParams) {
    return this.batch(params);
  }

  @Get('url/batch.:format')
  @ApiOperation({ summary: 'Create links in a batch (GET form)' })
  @ApiFormatted()
  @ApiLinkParameters('batch')
  @ApiResponse(LINK_ERRORS)
  batchGet(@Params() params: RawParams) {
    return this.batch(params);
  }

  @Post('url/static.:format')
  @ApiOperation({
    summary: 'Get or create a static link (SPEC.md 4.3a)',
    description: 'Returns the project’s link with the same url and metadata when there is one, else creates it; `new` says which.',
  })
  @ApiFormatted()
  @ApiLinkParameters('static')
  @ApiResponse(LINK_ERRORS)
  staticPost(@Params() params: RawParams) {
    return this.static(params);
  }

  @Get('url/static.:format')
  @ApiOperation({ summary: 'Get or create a static link (GET form)' })
  @ApiFormatted()
  @ApiLinkParameters('static')
  @ApiResponse(LINK_ERRORS)
  staticGet(@Params() params: RawParams) {
    return this.static(params);
  }

  @Post('url/update/:svc_id.:format')
  @ApiOperation({
    summary: 'Update a link (SPEC.md 4.5)',
    description:
      'Only within 30 days of creation. original_url, redirect_url and created_at never change; fields not given stay unchanged.',
  })
  @ApiParam({ name: 'svc_id', example: 'svc.example_aB3dE9x', description: 'The link id (domain_path, every / as _)' })
  @ApiFormatted()
  @ApiLinkParameters('update')
  @ApiResponse(LINK_ERRORS)
  updatePost(@Param('svc_id') id: string, @Params() params: RawParams) {
    return this.update(id, params);
  }

  @Get('url/update/:svc_id.:format')
  @ApiOperation({ summary: 'Update a link (GET form)' })
  @ApiParam({ name: 'svc_id', example: 'svc.example_aB3dE9x' })
  @ApiFormatted()
  @ApiLinkParameters('update')
  @ApiResponse(LINK_ERRORS)
  updateGet(@Param('svc_id') id: string, @Params() params: RawParams) {
    return this.update(id, params);
  }

  private async create(params: RawParams): Promise<FormattedResult<LinkRecord>> {
    requireVersion(params);
    const project = await this.links.authenticate(requireKey(params));
    const [record] = await this.links.create(project, [readLinkInput(params)], { requireChannel: true });
    return new FormattedResult(record, () => record.svc_url);
  }

  private async batch(params: RawParams): Promise<FormattedResult<{ svc_urls: LinkRecord[] }>> {
    requireVersion(params);
    const project = await this.links.authenticate(requireKey(params));
    const records = await this.links.create(project, readBatchInputs(params), { requireChannel: true });
    return new FormattedResult({ svc_urls: records }, () => records.map((r) => r.svc_url).join('\n'));
  }

  private async static(params: RawParams): Promise<FormattedResult<LinkRecord>> {
    requireVersion(params);
    const project = await this.links.authenticate(requireKey(params));
    const record = await this.links.createStatic(project, readLinkInput(params));
    return new FormattedResult(record, () => record.svc_url);
  }

  private async update(id: string, params: Params): Promise<FormattedResult<LinkRecord>> {
    requireVersion(params);
    const project = await this.links.authenticate(requireKey(params));
    const input = readLinkInput(params);
    if (input.tool === undefined) throw Errors.missing('tool');
    const record = await this.links.update(project, id, input);
    return new FormattedResult(record, () => record.svc_url);
  }
}
