import { Controller, Get, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiFormatted, FormattedResult } from '../common/api-format';
import { Params } from '../common/params.decorator';
import { requireKey, requireVersion } from '../links/link-input';
import { LinksService } from '../links/links.service';
import { readInterval, readPeriod, readSwitches } from './stats-params';
import { IntervalsResponse, StatsService } from './stats.service';

type RawParams = Record<string, unknown>;

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

  @Get(':svc_id/intervals.json')
  @ApiOperation({ summary: 'Clicks of a link per hour, day or week (SPEC.md 4.6)' })
  @ApiIntervalParameters()
  @ApiResponse(STATS_ERRORS)
  intervalsGet(@Param('svc_id') svcId: string, @Params() params: RawParams) {
    return this.intervals(svcId, params);
  }

  @Post(':svc_id/intervals.json')
  @ApiOperation({ summary: 'Clicks of a link per interval (POST form)' })
  @ApiIntervalParameters()
  @ApiResponse(STATS_ERRORS)
  intervalsPost(@Param('svc_id') svcId: string, @Params() params: RawParams) {
    return this.intervals(svcId, params);
  }

  private async intervals(svcId: string, params: RawParams): Promise<FormattedResult<IntervalsResponse>> {
    requireVersion(params);
    const project = await this.links.authenticate(requireKey(params));
    const { start, end } = readPeriod(params, { required: true, earliest: new Date('2010-06-04T00:00:00Z') });
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

function ApiIntervalParameters(): MethodDecorator {
  const decorators = [
    ApiFormatted({ txt: false, formatInPath: false }),
    ApiParam({ name: 'svc_id', example: 'svc.example_aB3dE9x' }),
    ApiQuery({ name: 'v', required: true, example: '3' }),
    ApiQuery({ name: 'key', required: true, description: 'Project API key' }),
    ApiQuery({ name: 'start_date', required: true, description: 'Rounded down to the hour; after 2010-06-04', example: '2026-11-01' }),
    ApiQuery({ name: 'end_date', required: true, description: 'Rounded up to the hour', example: '2026-11-23' }),
    ApiQuery({ name: 'interval', required: false, enum: ['hour', 'day', 'week'], description: 'Default day; at most 500 intervals' }),
    ApiQuery({ name: 'with_zeros', required: false, description: 'Include intervals without clicks' }),
    ApiQuery({ name: 'with_metadata', required: false, description: 'Include the link record as metadata' }),
    ApiQuery({ name: 'with_conversions', required: false, description: 'Include conversions per interval and in total' }),
    ApiQuery({ name: 'with_bots', required: false, description: 'Count clicks by known crawlers too (default false)' }),
  ];
  return (target, key, descriptor) => {
    for (const decorate of decorators) decorate(target, key, descriptor);
  };
}
