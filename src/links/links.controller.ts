import { Controller, Get, Param, Post, UseFilters, UseGuards } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { LinkBatchResponseDto, LinkRecordDto, RetweetResponseDto } from './dto/link-record.dto';
import { ApiFormatted, FormattedResult } from '../common/api-format';
import { Errors } from '../common/app-error';
import { RawParams } from '../common/params';
import { Params } from '../common/params.decorator';
import { ProjectThrottlerGuard } from '../common/rate-limit/project-throttler.guard';
import { CurrentProject, ProjectKeyAuth } from '../projects/project-key.decorators';
import { ProjectEntity } from '../projects/project.entity';
import {
  CONTROL_PARAMETERS,
  linkControls,
  readLinkControls,
  resolveControls,
} from './link-controls';
import { readBatchInputs, readLinkInput } from './link-input';
import { LinkRecord } from './link-record';
import { ApiLinkParameters, ApiRetweetParameters, LINK_ERRORS } from './links.swagger';
import { DestinationFallbackFilter } from './destination-fallback.filter';
import {
  fillUrl,
  readDestination,
  retweetDestination,
  retweetFallback,
  shareFallback,
} from './destination';
import { LinkUpdateService } from './link-update.service';
import { RetweetService } from './retweet.service';
import { retweetChecks, retweetPostChecks, shareChecks } from './retweet-checks';
import { LinksService } from './links.service';

/**
 * retweet and share are called from pages, so the publishable key may call them, never with a
 * link control (docs/api.md, "Keys"); every other link endpoint needs the API key.
 */
const FROM_PAGES = { refuse: CONTROL_PARAMETERS };

/**
 * The link endpoints (docs/api.md, "Tracked links"). The rate limit counts first, then
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
    private readonly retweets: RetweetService,
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

  @Post('url/retweet.:format')
  @ApiOperation({
    summary: 'Replace every link of a text by a new tracked link',
    description:
      'Only links beginning http:// are recognised. destination is GET only. ' +
      'Known bots are refused (403).',
  })
  @ApiFormatted()
  @ApiRetweetParameters(false)
  @ApiOkResponse({ type: RetweetResponseDto, description: 'txt: svc_text' })
  @ApiResponse(LINK_ERRORS)
  @ProjectKeyAuth({ version: true, before: retweetPostChecks, publishable: FROM_PAGES })
  retweetPost(@CurrentProject() project: ProjectEntity, @Params() params: RawParams) {
    return this.retweet(project, params);
  }

  @Get('url/retweet')
  @ApiOperation({ summary: 'Retweet, GET form (format optional: json)' })
  @ApiFormatted({ formatInPath: false })
  @ApiRetweetParameters(true)
  @ApiResponse({
    status: 302,
    description: 'With destination: redirect to it, SVC_TEXT replaced by the new text',
  })
  @ApiResponse(LINK_ERRORS)
  @ApiOkResponse({ type: RetweetResponseDto })
  @UseFilters(new DestinationFallbackFilter(retweetFallback))
  @ProjectKeyAuth({ version: true, before: retweetChecks, publishable: FROM_PAGES })
  retweetGet(@CurrentProject() project: ProjectEntity, @Params() params: RawParams) {
    return this.retweet(project, params);
  }

  @Get('url/retweet.:format')
  @ApiOperation({ summary: 'Retweet, GET form with format' })
  @ApiFormatted()
  @ApiRetweetParameters(true)
  @ApiResponse(LINK_ERRORS)
  @ApiOkResponse({ type: RetweetResponseDto })
  @UseFilters(new DestinationFallbackFilter(retweetFallback))
  @ProjectKeyAuth({ version: true, before: retweetChecks, publishable: FROM_PAGES })
  retweetGetFormatted(@CurrentProject() project: ProjectEntity, @Params() params: RawParams) {
    return this.retweet(project, params);
  }

  @Get('url/share')
  @ApiOperation({
    summary: 'Create a link and redirect to a share address',
    description:
      'Creates a link for url and answers 302 to destination with every SVC_URL replaced by the new svc_url (URL-escaped). Known bots are refused (403).',
  })
  @ApiFormatted({ txt: false, formatInPath: false })
  @ApiLinkParameters('share')
  @ApiQuery({
    name: 'destination',
    required: true,
    example: 'https://www.facebook.com/sharer.php?u=SVC_URL',
  })
  @ApiQuery({
    name: 'errors',
    required: false,
    description: 'true: a failure answers an error instead of redirecting',
  })
  @ApiResponse({ status: 302, description: 'Redirect to destination' })
  @ApiResponse(LINK_ERRORS)
  @UseFilters(new DestinationFallbackFilter(shareFallback))
  @ProjectKeyAuth({ version: true, before: shareChecks, publishable: FROM_PAGES })
  async share(
    @CurrentProject() project: ProjectEntity,
    @Params() params: RawParams,
  ): Promise<FormattedResult> {
    const destination = readDestination(params);
    if (destination === undefined) throw Errors.missing('destination');
    const record = await this.retweets.share(project, params);
    return FormattedResult.redirect(fillUrl(destination, record.svc_url));
  }

  /** With a destination, a failure still sends the visitor on (DestinationFallbackFilter). */
  private async retweet(project: ProjectEntity, params: RawParams): Promise<FormattedResult> {
    const destination = readDestination(params);
    const result = await this.retweets.retweet(project, params);
    if (destination !== undefined) {
      return FormattedResult.redirect(
        retweetDestination(destination, result.svc_text, result.svc_urls[0]?.svc_url ?? ''),
      );
    }
    return new FormattedResult(result, () => result.svc_text);
  }

  private async create(
    project: ProjectEntity,
    params: RawParams,
  ): Promise<FormattedResult<LinkRecord>> {
    const input = readLinkInput(params);
    const controls = await linkControls(params, 'create');
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
    // Controls are single values, given to every link of the batch.
    const controls = await linkControls(params, 'create');
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
    // The password in clear too: static finds a protected link by verifying it (docs/api.md).
    const values = readLinkControls(params, 'create');
    const controls = await resolveControls(values);
    const record = await this.links.createStatic(
      project,
      { ...input, controls },
      values.password ?? null,
    );
    return new FormattedResult(record, () => record.svc_url);
  }

  private async update(
    project: ProjectEntity,
    id: string,
    params: RawParams,
  ): Promise<FormattedResult<LinkRecord>> {
    const input = readLinkInput(params);
    if (input.tool === undefined) throw Errors.missing('tool');
    input.controls = await linkControls(params, 'update');
    const record = await this.updates.update(project, id, input);
    return new FormattedResult(record, () => record.svc_url);
  }
}
