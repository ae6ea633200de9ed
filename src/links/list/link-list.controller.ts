import { Controller, Get, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiFormatted, FormattedResult } from '../../common/api-format';
import { RawParams } from '../../common/params';
import { Params } from '../../common/params.decorator';
import { ClientSignal, RequestSignal } from '../../common/request-signal';
import { ReadThrottlerGuard } from '../../rate-limit/project-throttler.guard';
import { CurrentProject, ProjectKeyAuth } from '../../projects/project-key.decorators';
import { ProjectEntity } from '../../projects/project.entity';
import { readLinkListQuery } from './link-list-params';
import { LinkListResponseDto } from '../dto/link-list.dto';
import { LinkListAnswer, LinkListService } from './link-list.service';
import { ApiLinkListParameters, LINK_LIST_ERRORS } from './link-list.swagger';

const DESCRIPTION =
  'Extension. The project’s links, newest first by default, each with its all-time clicks; ' +
  'filtered as statistics filter (same parameters), searched by words in URL, notes, tag and ' +
  'campaign, sorted by created_at or clicks, paged as statistics page.';

/**
 * url/list.{format} (docs/api.md, "Listing links"): ProjectKeyGuard checks the format and
 * callback, `v` and the key; link-list-params.ts reads the rest. Counted in the project's read
 * budget with the statistics (READ_RATE_LIMIT; docs/api.md, "Limits"), not in the create API's.
 */
@ApiTags('links')
@Controller()
@UseGuards(ReadThrottlerGuard)
export class LinkListController {
  constructor(private readonly lists: LinkListService) {}

  @Get('url/list.:format')
  @ApiOperation({ summary: 'List the project’s links (extension)', description: DESCRIPTION })
  @ApiFormatted()
  @ApiLinkListParameters()
  @ApiOkResponse({ type: LinkListResponseDto, description: 'txt: one svc_url per line' })
  @ApiResponse(LINK_LIST_ERRORS)
  @ProjectKeyAuth({ version: true })
  listGet(
    @CurrentProject() project: ProjectEntity,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.list(project, params, signal);
  }

  @Post('url/list.:format')
  @ApiOperation({ summary: 'List the project’s links (POST form; extension)' })
  @ApiFormatted()
  @ApiLinkListParameters()
  @ApiOkResponse({ type: LinkListResponseDto, description: 'txt: one svc_url per line' })
  @ApiResponse(LINK_LIST_ERRORS)
  @ProjectKeyAuth({ version: true })
  listPost(
    @CurrentProject() project: ProjectEntity,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.list(project, params, signal);
  }

  private async list(
    project: ProjectEntity,
    params: RawParams,
    signal: AbortSignal,
  ): Promise<FormattedResult<LinkListAnswer>> {
    // Its reads of the analytics store are cancelled when the client goes away (docs/api.md, "Statistics limits").
    const answer = await this.lists.list(project, readLinkListQuery(params), signal);
    return new FormattedResult(answer, () => answer.links.map((link) => link.svc_url).join('\n'));
  }
}
