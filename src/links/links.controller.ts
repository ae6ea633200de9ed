import { Controller, Get, Param, Post, Req, UseFilters, UseGuards } from '@nestjs/common';
import type { Request } from 'express';
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
import { Params } from '../common/params.decorator';
import { ProjectThrottlerGuard } from '../common/rate-limit/project-throttler.guard';
import { bool, readBatchInputs, readLinkInput, requireKey, requireVersion } from './link-input';
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
import { RetweetService } from './retweet.service';
import { LinksService } from './links.service';

type RawParams = Record<string, unknown>;

@ApiTags('links')
@Controller()
@UseGuards(ProjectThrottlerGuard)
export class LinksController {
  constructor(
    private readonly links: LinksService,
    private readonly retweets: RetweetService,
  ) {}

  @Post('url.:format')
  @ApiOperation({ summary: 'Create a tracked link (SPEC.md 4.2)' })
  @ApiFormatted()
  @ApiLinkParameters('create')
  @ApiOkResponse({
    type: LinkRecordDto,
    description: 'The link record (2.1); txt: the bare svc_url',
  })
  @ApiResponse(LINK_ERRORS)
  createPost(@Params() params: RawParams) {
    return this.create(params);
  }

  @Get('url.:format')
  @ApiOperation({ summary: 'Create a tracked link (GET form of POST url.{format})' })
  @ApiFormatted()
  @ApiLinkParameters('create')
  @ApiResponse(LINK_ERRORS)
  @ApiOkResponse({ type: LinkRecordDto })
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
  @ApiOkResponse({
    type: LinkBatchResponseDto,
    description: '{svc_urls: [link record, …]}; txt: one svc_url per line',
  })
  @ApiResponse(LINK_ERRORS)
  batchPost(@Params() params: RawParams) {
    return this.batch(params);
  }

  @Get('url/batch.:format')
  @ApiOperation({ summary: 'Create links in a batch (GET form)' })
  @ApiFormatted()
  @ApiLinkParameters('batch')
  @ApiResponse(LINK_ERRORS)
  @ApiOkResponse({ type: LinkBatchResponseDto })
  batchGet(@Params() params: RawParams) {
    return this.batch(params);
  }

  @Post('url/static.:format')
  @ApiOperation({
    summary: 'Get or create a static link (SPEC.md 4.3a)',
    description:
      'Returns the project’s link with the same url and metadata when there is one, else creates it; `new` says which.',
  })
  @ApiFormatted()
  @ApiLinkParameters('static')
  @ApiResponse(LINK_ERRORS)
  @ApiOkResponse({ type: LinkRecordDto })
  staticPost(@Params() params: RawParams) {
    return this.static(params);
  }

  @Get('url/static.:format')
  @ApiOperation({ summary: 'Get or create a static link (GET form)' })
  @ApiFormatted()
  @ApiLinkParameters('static')
  @ApiResponse(LINK_ERRORS)
  @ApiOkResponse({ type: LinkRecordDto })
  staticGet(@Params() params: RawParams) {
    return this.static(params);
  }

  @Post('url/update/:svc_id.:format')
  @ApiOperation({
    summary: 'Update a link (SPEC.md 4.5)',
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
  updatePost(@Param('svc_id') id: string, @Params() params: RawParams) {
    return this.update(id, params);
  }

  @Get('url/update/:svc_id.:format')
  @ApiOperation({ summary: 'Update a link (GET form)' })
  @ApiParam({ name: 'svc_id', example: 'svc.example_aB3dE9x' })
  @ApiFormatted()
  @ApiLinkParameters('update')
  @ApiResponse(LINK_ERRORS)
  @ApiOkResponse({ type: LinkRecordDto })
  updateGet(@Param('svc_id') id: string, @Params() params: RawParams) {
    return this.update(id, params);
  }

  @Post('url/retweet.:format')
  @ApiOperation({
    summary: 'Replace every link of a text by a new tracked link (SPEC.md 4.4)',
    description:
      'Only links beginning http:// are recognised (SPEC.md 4.4). destination is GET only. Known bots are refused (403).',
  })
  @ApiFormatted()
  @ApiRetweetParameters(false)
  @ApiOkResponse({ type: RetweetResponseDto, description: 'txt: svc_text' })
  @ApiResponse(LINK_ERRORS)
  retweetPost(@Params() params: RawParams, @Req() req: Request) {
    if (params.destination !== undefined) {
      throw Errors.invalid('destination', 'is accepted on GET only');
    }
    return this.retweet(params, req);
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
  retweetGet(@Params() params: RawParams, @Req() req: Request) {
    return this.retweet(params, req);
  }

  @Get('url/retweet.:format')
  @ApiOperation({ summary: 'Retweet, GET form with format' })
  @ApiFormatted()
  @ApiRetweetParameters(true)
  @ApiResponse(LINK_ERRORS)
  @ApiOkResponse({ type: RetweetResponseDto })
  @UseFilters(new DestinationFallbackFilter(retweetFallback))
  retweetGetFormatted(@Params() params: RawParams, @Req() req: Request) {
    return this.retweet(params, req);
  }

  @Get('url/share')
  @ApiOperation({
    summary: 'Create a link and redirect to a share address',
    description:
      'Creates a link for url and answers 302 to destination with every SVC_URL replaced by the new svc_url (URL-escaped). Known bots are refused (403).',
  })
  @ApiFormatted({ txt: false, formatInPath: false })
  @ApiLinkParameters('create')
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
  async share(@Params() params: RawParams, @Req() req: Request): Promise<FormattedResult> {
    const destination = readDestination(params);
    if (destination === undefined) throw Errors.missing('destination');
    bool(params, 'errors', false); // refused when not a boolean, even if nothing else fails
    this.retweets.refuseBots(req.headers['user-agent']);
    requireVersion(params);
    const project = await this.links.authenticate(requireKey(params));
    const record = await this.retweets.share(project, params);
    return FormattedResult.redirect(fillUrl(destination, record.svc_url));
  }

  /** With a destination, a failure still sends the visitor on (DestinationFallbackFilter). */
  private async retweet(params: RawParams, req: Request): Promise<FormattedResult> {
    const destination = readDestination(params);
    bool(params, 'errors', false); // refused when not a boolean, even if nothing else fails
    this.retweets.refuseBots(req.headers['user-agent']);
    requireVersion(params);
    const project = await this.links.authenticate(requireKey(params));
    const result = await this.retweets.retweet(project, params);
    if (destination !== undefined) {
      return FormattedResult.redirect(
        retweetDestination(destination, result.svc_text, result.svc_urls[0]?.svc_url ?? ''),
      );
    }
    return new FormattedResult(result, () => result.svc_text);
  }

  private async create(params: RawParams): Promise<FormattedResult<LinkRecord>> {
    requireVersion(params);
    const project = await this.links.authenticate(requireKey(params));
    const [record] = await this.links.create(project, [readLinkInput(params)], {
      requireChannel: true,
    });
    return new FormattedResult(record, () => record.svc_url);
  }

  private async batch(params: RawParams): Promise<FormattedResult<{ svc_urls: LinkRecord[] }>> {
    requireVersion(params);
    const project = await this.links.authenticate(requireKey(params));
    const records = await this.links.create(project, readBatchInputs(params), {
      requireChannel: true,
    });
    return new FormattedResult({ svc_urls: records }, () =>
      records.map((r) => r.svc_url).join('\n'),
    );
  }

  private async static(params: RawParams): Promise<FormattedResult<LinkRecord>> {
    requireVersion(params);
    const project = await this.links.authenticate(requireKey(params));
    const record = await this.links.createStatic(project, readLinkInput(params));
    return new FormattedResult(record, () => record.svc_url);
  }

  private async update(id: string, params: RawParams): Promise<FormattedResult<LinkRecord>> {
    requireVersion(params);
    const project = await this.links.authenticate(requireKey(params));
    const input = readLinkInput(params);
    if (input.tool === undefined) throw Errors.missing('tool');
    const record = await this.links.update(project, id, input);
    return new FormattedResult(record, () => record.svc_url);
  }
}
