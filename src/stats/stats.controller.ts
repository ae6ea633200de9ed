import { Controller, Get, Param, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  AggregateResponseDto,
  ChainResponseDto,
  LinkBatchDetailsResponseDto,
  LinkDetailsResponseDto,
  LinkIntervalsResponseDto,
  RangeIntervalsResponseDto,
} from './dto/stats-responses.dto';
import { FormattedResult } from '../common/api-format';
import { Errors } from '../common/app-error';
import { RawParams, readPaging } from '../common/params';
import { ChainService } from './chain.service';
import { Params } from '../common/params.decorator';
import { ClientSignal, RequestSignal } from '../common/request-signal';
import { ReadThrottlerGuard } from '../rate-limit/project-throttler.guard';
import {
  CurrentProject,
  CurrentProjects,
  ProjectKeyAuth,
} from '../projects/project-key.decorators';
import { ProjectEntity } from '../projects/project.entity';
import { readInterval, readPeriod, readSwitches } from './stats-params';
import {
  EARLIEST,
  INTERVALS_EARLIEST,
  MAX_TOTALS_KEYS,
  StatsKind,
  readAttribution,
  readStatsQuery,
  readDimensionFilters,
} from './stats-query';
import {
  ApiAggregateParameters,
  ApiChainParameters,
  ApiDetailsParameters,
  ApiIntervalParameters,
  ApiRangeIntervalParameters,
  STATS_ERRORS,
} from './stats.swagger';
import { DetailsOptions, LinkDetailsService } from './link-details.service';
import { IntervalsResponse, LinkIntervalsService } from './link-intervals.service';
import { RangeIntervalsService } from './range-intervals.service';
import { RangeTotalsService } from './range-totals.service';

/**
 * The statistics endpoints (docs/api.md, "Statistics"). ProjectKeyGuard checks the format, `v` and
 * the key (on totals, `key[]` of up to MAX_TOTALS_KEYS projects) and hands the project(s) over;
 * stats-params.ts and stats-query.ts read the rest on common/params.ts. Each request counts in
 * the read budget of every project it names (READ_RATE_LIMIT; docs/api.md, "Limits"). Its
 * statements are cancelled when the client goes away (RequestSignal; docs/api.md, "Statistics limits").
 */
@ApiTags('stats')
@Controller('stats')
@UseGuards(ReadThrottlerGuard)
export class StatsController {
  constructor(
    private readonly rangeTotals: RangeTotalsService,
    private readonly rangeIntervalStats: RangeIntervalsService,
    private readonly linkDetails: LinkDetailsService,
    private readonly linkIntervals: LinkIntervalsService,
    private readonly chains: ChainService,
  ) {}

  // Literal paths first: `range/intervals.json` must not be read as the intervals of a link "range".
  @Get('range/intervals.json')
  @ApiOperation({ summary: "A project's clicks and shares per interval (range intervals)" })
  @ApiRangeIntervalParameters()
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: RangeIntervalsResponseDto })
  @ProjectKeyAuth({ version: true })
  rangeIntervalsGet(
    @CurrentProject() project: ProjectEntity,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.rangeIntervals(project, params, signal);
  }

  @Post('range/intervals.json')
  @ApiOperation({ summary: 'Range intervals (POST form)' })
  @ApiRangeIntervalParameters()
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: RangeIntervalsResponseDto })
  @ProjectKeyAuth({ version: true })
  rangeIntervalsPost(
    @CurrentProject() project: ProjectEntity,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.rangeIntervals(project, params, signal);
  }

  @Get('svc_ids/batch.json')
  @ApiOperation({ summary: 'Clicks and latest click of several links (svc_id[]=…)' })
  @ApiDetailsParameters(true)
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: LinkBatchDetailsResponseDto })
  @ProjectKeyAuth({ version: true })
  batchGet(
    @CurrentProject() project: ProjectEntity,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.batch(project, params, signal);
  }

  @Post('svc_ids/batch.json')
  @ApiOperation({ summary: 'Link details in a batch (POST form)' })
  @ApiDetailsParameters(true)
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: LinkBatchDetailsResponseDto })
  @ProjectKeyAuth({ version: true })
  batchPost(
    @CurrentProject() project: ProjectEntity,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.batch(project, params, signal);
  }

  @Get(':svc_id/intervals.json')
  @ApiOperation({ summary: 'Clicks of a link per hour, day or week' })
  @ApiIntervalParameters()
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: LinkIntervalsResponseDto })
  @ProjectKeyAuth({ version: true })
  intervalsGet(
    @CurrentProject() project: ProjectEntity,
    @Param('svc_id') svcId: string,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.intervals(project, svcId, params, signal);
  }

  @Post(':svc_id/intervals.json')
  @ApiOperation({ summary: 'Clicks of a link per interval (POST form)' })
  @ApiIntervalParameters()
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: LinkIntervalsResponseDto })
  @ProjectKeyAuth({ version: true })
  intervalsPost(
    @CurrentProject() project: ProjectEntity,
    @Param('svc_id') svcId: string,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.intervals(project, svcId, params, signal);
  }

  @Get(':svc_id/chain.json')
  @ApiOperation({
    summary: "A link's cascade: its own, downstream and children's figures (extension)",
  })
  @ApiChainParameters()
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: ChainResponseDto })
  @ProjectKeyAuth({ version: true })
  chainGet(
    @CurrentProject() project: ProjectEntity,
    @Param('svc_id') svcId: string,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.chain(project, svcId, params, signal);
  }

  @Post(':svc_id/chain.json')
  @ApiOperation({ summary: "A link's cascade (POST form; extension)" })
  @ApiChainParameters()
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: ChainResponseDto })
  @ProjectKeyAuth({ version: true })
  chainPost(
    @CurrentProject() project: ProjectEntity,
    @Param('svc_id') svcId: string,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.chain(project, svcId, params, signal);
  }

  @Get('range.json')
  @ApiOperation({ summary: 'Activity in a period on all links of a project' })
  @ApiAggregateParameters('range')
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: AggregateResponseDto })
  @ProjectKeyAuth({ version: true })
  rangeGet(
    @CurrentProject() project: ProjectEntity,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.aggregate([project], params, 'range', signal);
  }

  @Post('range.json')
  @ApiOperation({ summary: 'Range (POST form)' })
  @ApiAggregateParameters('range')
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: AggregateResponseDto })
  @ProjectKeyAuth({ version: true })
  rangePost(
    @CurrentProject() project: ProjectEntity,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.aggregate([project], params, 'range', signal);
  }

  @Get('totals.json')
  @ApiOperation({ summary: 'All-time figures of the links shared in a period' })
  @ApiAggregateParameters('totals')
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: AggregateResponseDto })
  @ProjectKeyAuth({ version: true, many: MAX_TOTALS_KEYS })
  totalsGet(
    @CurrentProjects() projects: ProjectEntity[],
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.aggregate(projects, params, 'totals', signal);
  }

  @Post('totals.json')
  @ApiOperation({ summary: 'Totals (POST form)' })
  @ApiAggregateParameters('totals')
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: AggregateResponseDto })
  @ProjectKeyAuth({ version: true, many: MAX_TOTALS_KEYS })
  totalsPost(
    @CurrentProjects() projects: ProjectEntity[],
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.aggregate(projects, params, 'totals', signal);
  }

  @Get(':svc_id.json')
  @ApiOperation({ summary: "A link's details: its clicks and latest click" })
  @ApiDetailsParameters(false)
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: LinkDetailsResponseDto })
  @ProjectKeyAuth({ version: true })
  detailsGet(
    @CurrentProject() project: ProjectEntity,
    @Param('svc_id') svcId: string,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.details(project, svcId, params, signal);
  }

  @Post(':svc_id.json')
  @ApiOperation({ summary: 'Link details (POST form)' })
  @ApiDetailsParameters(false)
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: LinkDetailsResponseDto })
  @ProjectKeyAuth({ version: true })
  detailsPost(
    @CurrentProject() project: ProjectEntity,
    @Param('svc_id') svcId: string,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
  ) {
    return this.details(project, svcId, params, signal);
  }

  private async aggregate(
    projects: ProjectEntity[],
    params: RawParams,
    kind: StatsKind,
    signal: AbortSignal,
  ): Promise<FormattedResult> {
    // docs/api.md, "Statistics": with an array of keys (key[]=…, even of one project), group_by and
    // pivot may be project.
    const query = readStatsQuery(params, kind, kind === 'totals' && Array.isArray(params.key));
    return new FormattedResult(await this.rangeTotals.aggregate(projects, query, signal));
  }

  private async details(
    project: ProjectEntity,
    svcId: string,
    params: RawParams,
    signal: AbortSignal,
  ): Promise<FormattedResult> {
    return new FormattedResult(
      await this.linkDetails.details(project, svcId, this.detailsOptions(params), signal),
    );
  }

  private async batch(
    project: ProjectEntity,
    params: RawParams,
    signal: AbortSignal,
  ): Promise<FormattedResult> {
    const raw = params.svc_id;
    const ids = (
      Array.isArray(raw) ? raw : raw === undefined || raw === '' ? [] : [raw]
    ) as unknown[];
    if (ids.length === 0) throw Errors.missing('svc_id');
    if (ids.length > 1000) throw Errors.invalid('svc_id', 'at most 1000 links per batch');
    if (ids.some((id) => typeof id !== 'string' || id === ''))
      throw Errors.invalid('svc_id', 'must be link ids');
    return new FormattedResult(
      await this.linkDetails.batch(project, ids as string[], this.detailsOptions(params), signal),
    );
  }

  private detailsOptions(params: RawParams): DetailsOptions {
    const { start, end } = readPeriod(params, { required: false, earliest: EARLIEST.range });
    const { withMetadata, withBots } = readSwitches(params);
    return { start, end, withMetadata, withBots };
  }

  private async rangeIntervals(
    project: ProjectEntity,
    params: RawParams,
    signal: AbortSignal,
  ): Promise<FormattedResult> {
    const { start, end } = readPeriod(params, { required: true, earliest: EARLIEST.range });
    const query = readStatsQuery(params, 'range', false);
    if (query.groupBy || query.pivot)
      throw Errors.invalid(query.groupBy ? 'group_by' : 'pivot', 'is not used by range intervals');
    if (query.withChain) throw Errors.invalid('with_chain', 'is not used by range intervals');
    return new FormattedResult(
      await this.rangeIntervalStats.intervals(
        project,
        { ...query, start: start!, end: end!, interval: readInterval(params) },
        signal,
      ),
    );
  }

  private async chain(
    project: ProjectEntity,
    svcId: string,
    params: RawParams,
    signal: AbortSignal,
  ): Promise<FormattedResult> {
    const { start, end } = readPeriod(params, { required: false, earliest: EARLIEST.range });
    const { withConversions, withBots } = readSwitches(params);
    return new FormattedResult(
      await this.chains.chain(
        project,
        { svcId, start, end, withConversions, withBots, ...readPaging(params) },
        signal,
      ),
    );
  }

  private async intervals(
    project: ProjectEntity,
    svcId: string,
    params: RawParams,
    signal: AbortSignal,
  ): Promise<FormattedResult<IntervalsResponse>> {
    const { start, end } = readPeriod(params, { required: true, earliest: INTERVALS_EARLIEST });
    const response = await this.linkIntervals.intervals(
      project,
      {
        svcId,
        start: start!,
        end: end!,
        interval: readInterval(params),
        ...readSwitches(params),
        filters: readDimensionFilters(params),
        attribution: readAttribution(params),
        chainParams: params.attribution === undefined ? [] : ['attribution'],
      },
      signal,
    );
    return new FormattedResult(response);
  }
}
