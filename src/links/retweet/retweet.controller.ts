import { Controller, Get, Post, UseFilters, UseGuards, applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiFormatted, FormattedResult } from '../../common/api-format';
import { Errors } from '../../common/app-error';
import { RawParams } from '../../common/params';
import { Params } from '../../common/params.decorator';
import { ProjectThrottlerGuard } from '../../rate-limit/project-throttler.guard';
import {
  CurrentKeyKind,
  CurrentProject,
  ProjectKeyAuth,
} from '../../projects/project-key.decorators';
import type { KeyKind } from '../../projects/project-lookups.service';
import { ProjectEntity } from '../../projects/project.entity';
import { CONTROLS } from '../controls/link-control-columns';
import { RetweetResponseDto } from '../dto/link-record.dto';
import { ApiLinkParameters, ApiRetweetParameters, LINK_ERRORS } from '../links.swagger';
import { DestinationFallbackFilter } from './destination-fallback.filter';
import {
  fillUrl,
  readDestination,
  retweetDestination,
  retweetFallback,
  shareFallback,
} from './destination';
import { requirePublishableHost } from './publishable-hosts';
import { RetweetService } from './retweet.service';
import { retweetChecks, retweetPostChecks, shareChecks } from './retweet-checks';

/**
 * retweet and share are called from pages, so the publishable key may call them, never with a
 * link control nor `unwrap`, which makes the service crawl (docs/api.md, "Keys"); every other link
 * endpoint needs the API key.
 */
const FROM_PAGES = { refuse: [...CONTROLS.map((control) => control.parameter), 'unwrap'] };

/**
 * What both GET forms of retweet share: their answers (a redirect to the destination on failure
 * too) and their key (the API key, or the publishable key without link controls).
 */
const RetweetGetAnswers = () =>
  applyDecorators(
    ApiResponse(LINK_ERRORS),
    ApiOkResponse({ type: RetweetResponseDto }),
    UseFilters(new DestinationFallbackFilter(retweetFallback)),
    ProjectKeyAuth({ version: true, before: retweetChecks, publishable: FROM_PAGES }),
  );

/**
 * The operation ids the published document has always given these operations (openapi.json):
 * clients generated from it call them by these names.
 */
const operationId = (method: string) => `LinksController_${method}`;

/**
 * retweet and share (docs/api.md, "Tracked links"): links made from a page's text or share button.
 * With a destination, a failure still sends the visitor on (DestinationFallbackFilter).
 */
@ApiTags('links')
@Controller()
@UseGuards(ProjectThrottlerGuard)
export class RetweetController {
  constructor(private readonly retweets: RetweetService) {}

  @Post('url/retweet.:format')
  @ApiOperation({
    operationId: operationId('retweetPost'),
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
  retweetPost(
    @CurrentProject() project: ProjectEntity,
    @CurrentKeyKind() key: KeyKind,
    @Params() params: RawParams,
  ) {
    return this.retweet(project, key, params);
  }

  @Get('url/retweet')
  @ApiOperation({
    operationId: operationId('retweetGet'),
    summary: 'Retweet, GET form (format optional: json)',
  })
  @ApiFormatted({ formatInPath: false })
  @ApiRetweetParameters(true)
  @ApiResponse({
    status: 302,
    description: 'With destination: redirect to it, SVC_TEXT replaced by the new text',
  })
  @RetweetGetAnswers()
  retweetGet(
    @CurrentProject() project: ProjectEntity,
    @CurrentKeyKind() key: KeyKind,
    @Params() params: RawParams,
  ) {
    return this.retweet(project, key, params);
  }

  @Get('url/retweet.:format')
  @ApiOperation({
    operationId: operationId('retweetGetFormatted'),
    summary: 'Retweet, GET form with format',
  })
  @ApiFormatted()
  @ApiRetweetParameters(true)
  @RetweetGetAnswers()
  retweetGetFormatted(
    @CurrentProject() project: ProjectEntity,
    @CurrentKeyKind() key: KeyKind,
    @Params() params: RawParams,
  ) {
    return this.retweet(project, key, params);
  }

  @Get('url/share')
  @ApiOperation({
    operationId: operationId('share'),
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
    @CurrentKeyKind() key: KeyKind,
    @Params() params: RawParams,
  ): Promise<FormattedResult> {
    const destination = readDestination(params);
    if (destination === undefined) throw Errors.missing('destination');
    if (key === 'publishable') requirePublishableHost(project, destination, 'destination');
    const record = await this.retweets.share(project, key, params);
    return FormattedResult.redirect(fillUrl(destination, record.svc_url));
  }

  /**
   * With a destination, a failure still sends the visitor on (DestinationFallbackFilter), except
   * with the publishable key, whose destination must be on one of the project's publishable_hosts.
   */
  private async retweet(
    project: ProjectEntity,
    key: KeyKind,
    params: RawParams,
  ): Promise<FormattedResult> {
    const destination = readDestination(params);
    if (key === 'publishable' && destination !== undefined) {
      requirePublishableHost(project, destination, 'destination');
    }
    const result = await this.retweets.retweet(project, key, params);
    if (destination !== undefined) {
      return FormattedResult.redirect(
        retweetDestination(destination, result.svc_text, result.svc_urls[0]?.svc_url ?? ''),
      );
    }
    return new FormattedResult(result, () => result.svc_text);
  }
}
