import { Controller, Get, Param, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { LinkBatchResponseDto, LinkRecordDto } from './dto/link-record.dto';
import { ApiFormatted, FormattedResult } from '../common/api-format';
import { Errors } from '../common/app-error';
import { RawParams } from '../common/params';
import { Params } from '../common/params.decorator';
import { ProjectThrottlerGuard } from '../rate-limit/project-throttler.guard';
import { CurrentProject, ProjectKeyAuth } from '../projects/project-key.decorators';
import { ProjectEntity } from '../projects/project.entity';
import { readLinkControls } from './controls/link-controls';
import { readBatchInputs, readLinkInput } from './link-input';
import { LinkRecord } from './link-record';
import { ApiLinkParameters, LINK_ERRORS } from './links.swagger';
import { LinkUpdateService } from './link-update.service';
import { LinksService } from './links.service';

/**
 * The link endpoints that create and update (docs/api.md, "Tracked links"); retweet and share are
 * in retweet/, the list in list/. The rate limit counts first, then
 * ProjectKeyGuard checks the format, each endpoint's own checks, `v` and the key, and hands the
 * project over; parameters are read by link-input.ts on common/params.ts.
 */
@ApiTags('links')
@Controller()
@UseGuards(ProjectThrottlerGuard)
export class LinksController {
  constructor(
    private readonly links: LinksService,
    private readonly updates: LinkUpdateService,
  ) {}

  @Post('url.:format')
  @ApiOperation({ summary: 'Create a tracked link' })
  @ApiFormatted()
  @ApiLinkParameters('create')
  @ApiOkResponse({
    type: LinkRecordDto,
    description: 'The link record; txt: the bare svc_url',
  })
  @ApiResponse(LINK_ERRORS)
  @ProjectKeyAuth({ version: true })
  createPost(@CurrentProject() project: ProjectEntity, @Params() params: RawParams) {
    return this.create(project, params);
  }

  @Get('url.:format')
  @ApiOperation({ summary: 'Create a tracked link (GET form of POST url.{format})' })
  @ApiFormatted()
  @ApiLinkParameters('create')
  @ApiResponse(LINK_ERRORS)
  @ApiOkResponse({ type: LinkRecordDto })
  @ProjectKeyAuth({ version: true })
  createGet(@CurrentProject() project: ProjectEntity, @Params() params: RawParams) {
    return this.create(project, params);
  }

  @Post('url/batch.:format')
  @ApiOperation({
    summary: 'Create links in a batch',
    description:
      'One of campaign, channel, notes, parent, path, service_userid, sharer_id, tag, tool, url, user_id may be an array (`name[]=value`, repeated): one link per element, in order.',
  })
  @ApiFormatted()
  @ApiLinkParameters('batch')
  @ApiOkResponse({
    type: LinkBatchResponseDto,
    description: '{svc_urls: [link record, …]}; txt: one svc_url per line',
  })
  @ApiResponse(LINK_ERRORS)
  @ProjectKeyAuth({ version: true })
  batchPost(@CurrentProject() project: ProjectEntity, @Params() params: RawParams) {
    return this.batch(project, params);
  }

  @Get('url/batch.:format')
  @ApiOperation({ summary: 'Create links in a batch (GET form)' })
  @ApiFormatted()
  @ApiLinkParameters('batch')
  @ApiResponse(LINK_ERRORS)
  @ApiOkResponse({ type: LinkBatchResponseDto })
  @ProjectKeyAuth({ version: true })
  batchGet(@CurrentProject() project: ProjectEntity, @Params() params: RawParams) {
    return this.batch(project, params);
  }

  @Post('url/static.:format')
  @ApiOperation({
    summary: 'Get or create a static link',
    description:
      'Returns the project’s link with the same url and metadata when there is one, else creates it; `new` says which.',
  })
  @ApiFormatted()
  @ApiLinkParameters('static')
  @ApiResponse(LINK_ERRORS)
  @ApiOkResponse({ type: LinkRecordDto })
  @ProjectKeyAuth({ version: true })
  staticPost(@CurrentProject() project: ProjectEntity, @Params() params: RawParams) {
    return this.static(project, params);
  }

  @Get('url/static.:format')
  @ApiOperation({ summary: 'Get or create a static link (GET form)' })
  @ApiFormatted()
  @ApiLinkParameters('static')
  @ApiResponse(LINK_ERRORS)
  @ApiOkResponse({ type: LinkRecordDto })
  @ProjectKeyAuth({ version: true })
  staticGet(@CurrentProject() project: ProjectEntity, @Params() params: RawParams) {
    return this.static(project, params);
  }

  @Post('url/update/:svc_id.:format')
  @ApiOperation({
    summary: 'Update a link',
    description:
      'Only within 30 days of creation. original_url, redirect_url and created_at never change; fields not given stay unchanged.',
  })
  @ApiParam({
    name: 'svc_id',
    example: 'svc.example_aB3dE9x',
    description: 'The link id (domain_path, every / as _)',
  })
  @ApiFormatted()
  @ApiLinkParameters('update')
  @ApiResponse(LINK_ERRORS)
  @ApiOkResponse({ type: LinkRecordDto })
  @ProjectKeyAuth({ version: true })
  updatePost(
    @CurrentProject() project: ProjectEntity,
    @Param('svc_id') id: string,
    @Params() params: RawParams,
  ) {
    return this.update(project, id, params);
  }

  @Get('url/update/:svc_id.:format')
  @ApiOperation({ summary: 'Update a link (GET form)' })
  @ApiParam({ name: 'svc_id', example: 'svc.example_aB3dE9x' })
  @ApiFormatted()
  @ApiLinkParameters('update')
  @ApiResponse(LINK_ERRORS)
  @ApiOkResponse({ type: LinkRecordDto })
  @ProjectKeyAuth({ version: true })
  updateGet(
    @CurrentProject() project: ProjectEntity,
    @Param('svc_id') id: string,
    @Params() params: RawParams,
  ) {
    return this.update(project, id, params);
  }

  private async create(
    project: ProjectEntity,
    params: RawParams,
  ): Promise<FormattedResult<LinkRecord>> {
    const input = readLinkInput(params);
    const controls = readLinkControls(params, 'create');
    const [record] = await this.links.create(project, [{ ...input, controls }], {
      requireChannel: true,
    });
    return new FormattedResult(record, () => record.svc_url);
  }

  private async batch(
    project: ProjectEntity,
    params: RawParams,
  ): Promise<FormattedResult<{ svc_urls: LinkRecord[] }>> {
    const inputs = readBatchInputs(params);
    // Controls are single values, given to every link of the batch (the password hashed once).
    const controls = readLinkControls(params, 'create');
    const records = await this.links.create(
      project,
      inputs.map((input) => ({ ...input, controls })),
      { requireChannel: true },
    );
    return new FormattedResult({ svc_urls: records }, () =>
      records.map((r) => r.svc_url).join('\n'),
    );
  }

  private async static(
    project: ProjectEntity,
    params: RawParams,
  ): Promise<FormattedResult<LinkRecord>> {
    const input = readLinkInput(params);
    const controls = readLinkControls(params, 'create');
    const record = await this.links.createStatic(project, { ...input, controls });
    return new FormattedResult(record, () => record.svc_url);
  }

  private async update(
    project: ProjectEntity,
    id: string,
    params: RawParams,
  ): Promise<FormattedResult<LinkRecord>> {
    const input = readLinkInput(params);
    if (input.tool === undefined) throw Errors.missing('tool');
    input.controls = readLinkControls(params, 'update');
    const record = await this.updates.update(project, id, input);
    return new FormattedResult(record, () => record.svc_url);
  }
}
