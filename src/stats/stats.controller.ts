import { Controller, Get, Param, Post, applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  AggregateResponseDto,
  LinkBatchDetailsResponseDto,
  LinkDetailsResponseDto,
  LinkIntervalsResponseDto,
  RangeIntervalsResponseDto,
  SORT_TYPES,
} from './dto/stats-responses.dto';
import { ApiFormatted, FormattedResult } from '../common/api-format';
import { Params } from '../common/params.decorator';
import { requireKey, requireVersion } from '../links/link-input';
import { LinksService } from '../links/links.service';
import { Errors } from '../common/app-error';
import { ProjectEntity } from '../projects/project.entity';
import { readInterval, readPeriod, readSwitches } from './stats-params';
import { EARLIEST, INTERVALS_EARLIEST, StatsKind, filterNames, groupFields, readStatsQuery } from './stats-query';
import { DetailsOptions, IntervalsResponse, StatsService } from './stats.service';

type RawParams = Record<string, unknown>;

/** The most project keys one totals request takes (key[]). */
const MAX_TOTALS_KEYS = 100;

const STATS_ERRORS = {
  status: 400,
  description: 'Bad parameter (named in error_message); 403 invalid API key; 404 unknown link',
  schema: { example: { error: 400, error_message: 'Missing required parameter: start_date' } },
};

@ApiTags('stats')
@Controller('stats')
export class StatsController {
  constructor(
    private readonly stats: StatsService,
    private readonly links: LinksService,
  ) {}

  // Literal paths first: `range/intervals.json` must not be read as the intervals of a link "range".
  @Get('range/intervals.json')
  @ApiOperation({ summary: "A project's clicks and shares per interval (range intervals)" })
  @ApiRangeIntervalParameters()
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: RangeIntervalsResponseDto })
  rangeIntervalsGet(@Params() params: RawParams) {
    return this.rangeIntervals(params);
  }

  @Post('range/intervals.json')
  @ApiOperation({ summary: 'Range intervals (POST form)' })
  @ApiRangeIntervalParameters()
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: RangeIntervalsResponseDto })
  rangeIntervalsPost(@Params() params: RawParams) {
    return this.rangeIntervals(params);
  }

  @Get('svc_ids/batch.json')
  @ApiOperation({ summary: 'Clicks and latest click of several links (svc_id[]=…)' })
  @ApiDetailsParameters(true)
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: LinkBatchDetailsResponseDto })
  batchGet(@Params() params: RawParams) {
    return this.batch(params);
  }

  @Post('svc_ids/batch.json')
  @ApiOperation({ summary: 'Link details in a batch (POST form)' })
  @ApiDetailsParameters(true)
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: LinkBatchDetailsResponseDto })
  batchPost(@Params() params: RawParams) {
    return this.batch(params);
  }

  @Get(':svc_id/intervals.json')
  @ApiOperation({ summary: 'Clicks of a link per hour, day or week (SPEC.md 4.6)' })
  @ApiIntervalParameters()
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: LinkIntervalsResponseDto })
  intervalsGet(@Param('svc_id') svcId: string, @Params() params: RawParams) {
    return this.intervals(svcId, params);
  }

  @Post(':svc_id/intervals.json')
  @ApiOperation({ summary: 'Clicks of a link per interval (POST form)' })
  @ApiIntervalParameters()
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: LinkIntervalsResponseDto })
  intervalsPost(@Param('svc_id') svcId: string, @Params() params: RawParams) {
    return this.intervals(svcId, params);
  }

  @Get('range.json')
  @ApiOperation({ summary: 'Activity in a period on all links of a project (SPEC.md 4.7)' })
  @ApiAggregateParameters('range')
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: AggregateResponseDto })
  rangeGet(@Params() params: RawParams) {
    return this.aggregate(params, 'range');
  }

  @Post('range.json')
  @ApiOperation({ summary: 'Range (POST form)' })
  @ApiAggregateParameters('range')
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: AggregateResponseDto })
  rangePost(@Params() params: RawParams) {
    return this.aggregate(params, 'range');
  }

  @Get('totals.json')
  @ApiOperation({ summary: 'All-time figures of the links shared in a period (SPEC.md 4.8)' })
  @ApiAggregateParameters('totals')
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: AggregateResponseDto })
  totalsGet(@Params() params: RawParams) {
    return this.aggregate(params, 'totals');
  }

  @Post('totals.json')
  @ApiOperation({ summary: 'Totals (POST form)' })
  @ApiAggregateParameters('totals')
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: AggregateResponseDto })
  totalsPost(@Params() params: RawParams) {
    return this.aggregate(params, 'totals');
  }

  @Get(':svc_id.json')
  @ApiOperation({ summary: "A link's details: its clicks and latest click" })
  @ApiDetailsParameters(false)
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: LinkDetailsResponseDto })
  detailsGet(@Param('svc_id') svcId: string, @Params() params: RawParams) {
    return this.details(svcId, params);
  }

  @Post(':svc_id.json')
  @ApiOperation({ summary: 'Link details (POST form)' })
  @ApiDetailsParameters(false)
  @ApiResponse(STATS_ERRORS)
  @ApiOkResponse({ type: LinkDetailsResponseDto })
  detailsPost(@Param('svc_id') svcId: string, @Params() params: RawParams) {
    return this.details(svcId, params);
  }

  private async aggregate(params: RawParams, kind: StatsKind): Promise<FormattedResult> {
    requireVersion(params);
    const projects = await this.projectsOf(params, kind);
    // SPEC.md 4.8: with an array of keys (key[]=…, even of one project), group_by and pivot may be project.
    const query = readStatsQuery(params, kind, kind === 'totals' && keyArray(params.key) !== null);
    return new FormattedResult(await this.stats.aggregate(projects, query));
  }

  /**
   * `key`: one project; on totals also an array of at most MAX_TOTALS_KEYS projects, of any
   * subscriptions: each key is a credential of its own project (docs/api.md).
   */
  private async projectsOf(params: RawParams, kind: StatsKind): Promise<ProjectEntity[]> {
    const raw = keyArray(params.key);
    if (kind === 'totals' && raw !== null) {
      if (raw.length === 0 || raw.length > MAX_TOTALS_KEYS) {
        throw Errors.invalid('key', `takes 1 to ${MAX_TOTALS_KEYS} project keys`);
      }
      const projects: ProjectEntity[] = [];
      for (const key of new Set(raw)) {
        if (typeof key !== 'string') throw Errors.invalid('key', 'must be project API keys');
        projects.push(await this.links.authenticate(key));
      }
      return projects;
    }
    return [await this.links.authenticate(requireKey(params))];
  }

  private async details(svcId: string, params: RawParams): Promise<FormattedResult> {
    requireVersion(params);
    const project = await this.links.authenticate(requireKey(params));
    return new FormattedResult(await this.stats.linkDetails(project, svcId, this.detailsOptions(params)));
  }

  private async batch(params: RawParams): Promise<FormattedResult> {
    requireVersion(params);
    const project = await this.links.authenticate(requireKey(params));
    const raw = params.svc_id;
    const ids = (Array.isArray(raw) ? raw : raw === undefined || raw === '' ? [] : [raw]) as unknown[];
    if (ids.length === 0) throw Errors.missing('svc_id');
    if (ids.length > 1000) throw Errors.invalid('svc_id', 'at most 1000 links per batch');
    if (ids.some((id) => typeof id !== 'string' || id === '')) throw Errors.invalid('svc_id', 'must be link ids');
    return new FormattedResult(await this.stats.linkBatch(project, ids as string[], this.detailsOptions(params)));
  }

  private detailsOptions(params: RawParams): DetailsOptions {
    const { start, end } = readPeriod(params, { required: false, earliest: EARLIEST.range });
    const { withMetadata, withBots } = readSwitches(params);
    return { start, end, withMetadata, withBots };
  }

  private async rangeIntervals(params: RawParams): Promise<FormattedResult> {
    requireVersion(params);
    const project = await this.links.authenticate(requireKey(params));
    const { start, end } = readPeriod(params, { required: true, earliest: EARLIEST.range });
    const query = readStatsQuery(params, 'range', false);
    if (query.groupBy || query.pivot) throw Errors.invalid(query.groupBy ? 'group_by' : 'pivot', 'is not used by range intervals');
    return new FormattedResult(
      await this.stats.rangeIntervals(project, { ...query, start: start!, end: end!, interval: readInterval(params) }),
    );
  }

  private async intervals(svcId: string, params: RawParams): Promise<FormattedResult<IntervalsResponse>> {
    requireVersion(params);
    const project = await this.links.authenticate(requireKey(params));
    const { start, end } = readPeriod(params, { required: true, earliest: INTERVALS_EARLIEST });
    const response = await this.stats.intervals(project, {
      svcId,
      start: start!,
      end: end!,
      interval: readInterval(params),
      ...readSwitches(params),
    });
    return new FormattedResult(response);
  }
}

/** `key[]=…` as an array (of any length: docs/api.md, "Arrays"), or null. */
function keyArray(raw: unknown): unknown[] | null {
  return Array.isArray(raw) ? (raw as unknown[]) : null;
}

function ApiIntervalParameters(): MethodDecorator {
  const decorators = [
    ApiFormatted({ txt: false, formatInPath: false }),
    ApiParam({ name: 'svc_id', example: 'svc.example_aB3dE9x' }),
    ApiQuery({ enum: ['3'], name: 'v', required: true, example: '3' }),
    ApiQuery({ type: String, name: 'key', required: true, description: 'Project API key' }),
    ApiQuery({ type: String, name: 'start_date', required: true, description: 'Rounded down to the hour; after 2010-06-04', example: '2026-11-01' }),
    ApiQuery({ type: String, name: 'end_date', required: true, description: 'Rounded up to the hour', example: '2026-11-23' }),
    ApiQuery({ name: 'interval', required: false, enum: ['hour', 'day', 'week'], description: 'Default day; at most 500 intervals' }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_zeros', required: false, description: 'Include intervals without clicks' }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_metadata', required: false, description: 'Include the link record as metadata' }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_conversions', required: false, description: 'Include conversions per interval and in total' }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_bots', required: false, description: 'Count clicks by known crawlers too (default false)' }),
  ];
  return applyDecorators(...decorators);
}

function ApiAggregateParameters(kind: StatsKind): MethodDecorator {
  const decorators = [
    ApiFormatted({ txt: false, formatInPath: false }),
    ApiQuery({ enum: ['3'], name: 'v', required: true, example: '3' }),
    ApiQuery({
      type: String,
      name: 'key',
      required: true,
      description:
        kind === 'totals'
          ? `Project API key, or key[]=… for several projects (at most ${MAX_TOTALS_KEYS}, of any subscriptions)`
          : 'Project API key',
    }),
    ApiQuery({
      type: String,
      name: 'start_date',
      required: false,
      description: kind === 'totals' ? 'Links shared from (rounded down to the hour; after 2011-09-01)' : 'Rounded down to the hour',
    }),
    ApiQuery({ type: String, name: 'end_date', required: false, description: 'Rounded up to the hour' }),
    ApiQuery({ enum: groupFields(kind), enumName: kind === 'totals' ? 'TotalsGroupField' : 'RangeGroupField', name: 'group_by', required: false, description: `A filter field${kind === 'totals' ? ' (not domain) or project with key[]' : ''}` }),
    ApiQuery({ enum: groupFields(kind), enumName: kind === 'totals' ? 'TotalsGroupField' : 'RangeGroupField', name: 'pivot', required: false, description: 'Needs group_by; differs from it and from the filters' }),
    ApiQuery({ enum: SORT_TYPES, enumName: 'SortType', name: 'sort_type', required: false, description: 'clicks (default), shares, clicks_per_share, alpha, shared_at, pageviews, goal_n_count, goal_n_value, goal_total_count, goal_total_value (conversion sorts need with_conversions)' }),
    ApiQuery({ name: 'sort_order', required: false, enum: ['asc', 'desc'] }),
    ApiQuery({ enum: SORT_TYPES, enumName: 'SortType', name: 'pivot_sort_type', required: false }),
    ApiQuery({ name: 'pivot_sort_order', required: false, enum: ['asc', 'desc'] }),
    ApiQuery({ type: 'integer', name: 'per_page', required: false, description: 'Default 10, at most 1000' }),
    ApiQuery({ type: 'integer', name: 'page', required: false, description: 'From 1 (default)' }),
    ApiQuery({ type: 'integer', name: 'offset', required: false, description: 'Overrides page: the previous last_offset' }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_conversions', required: false }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_metadata', required: false }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_zeros', required: false, description: 'Include pivots without activity' }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_bots', required: false, description: 'Count clicks by known crawlers too (default false)' }),
    ...filterNames(kind).map((name) =>
      ApiQuery({ type: String, name, required: false, description: `Filter (one value)${name === 'tool' ? ': key or label' : ''}` }),
    ),
  ];
  return applyDecorators(...decorators);
}

function ApiDetailsParameters(batch: boolean): MethodDecorator {
  const decorators = [
    ApiFormatted({ txt: false, formatInPath: false }),
    ...(batch ? [ApiQuery({ type: String, name: 'svc_id', required: true, description: 'svc_id[]=…, repeated (at most 1000)' })] : [ApiParam({ name: 'svc_id' })]),
    ApiQuery({ enum: ['3'], name: 'v', required: true, example: '3' }),
    ApiQuery({ type: String, name: 'key', required: true, description: 'Project API key' }),
    ApiQuery({ type: String, name: 'start_date', required: false, description: 'Count clicks from (default: all time)' }),
    ApiQuery({ type: String, name: 'end_date', required: false }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_metadata', required: false, description: 'Include the link record' }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_bots', required: false }),
  ];
  return applyDecorators(...decorators);
}

function ApiRangeIntervalParameters(): MethodDecorator {
  const decorators = [
    ApiFormatted({ txt: false, formatInPath: false }),
    ApiQuery({ enum: ['3'], name: 'v', required: true, example: '3' }),
    ApiQuery({ type: String, name: 'key', required: true, description: 'Project API key' }),
    ApiQuery({ type: String, name: 'start_date', required: true }),
    ApiQuery({ type: String, name: 'end_date', required: true }),
    ApiQuery({ name: 'interval', required: false, enum: ['hour', 'day', 'week'] }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_conversions', required: false, description: 'Conversions per interval and in all (default false)' }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_zeros', required: false }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_bots', required: false }),
    ...filterNames('range').map((name) => ApiQuery({ type: String, name, required: false, description: 'Filter (one value)' })),
  ];
  return applyDecorators(...decorators);
}
