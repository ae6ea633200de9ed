import { Controller, Get, Headers, Inject, Res, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RawParams } from '../common/params';
import { ReadThrottlerGuard } from '../common/rate-limit/project-throttler.guard';
import { Params } from '../common/params.decorator';
import { CurrentProject, ProjectKeyAuth } from '../projects/project-key.decorators';
import { ProjectEntity } from '../projects/project.entity';
import { EventStream, readLastEventId } from './event-stream';
import { ApiEventStream } from './events.swagger';
import { LIVE_FEED_OPTIONS, LiveFeed, LiveFeedOptions } from './live-feed';

/**
 * The live feed (docs/api.md, "Live feed"). ProjectKeyGuard authenticates `key`, the API key only;
 * the answer is written by EventStream, so errors before the stream opens keep the link endpoints'
 * shape. Opening a stream counts in the project's read budget (READ_RATE_LIMIT), and a request
 * without a live key in its address's: keys cannot be tried here faster than elsewhere.
 */
@ApiTags('events')
@Controller('events')
@UseGuards(ReadThrottlerGuard)
export class EventsController {
  constructor(
    private readonly feed: LiveFeed,
    @Inject(LIVE_FEED_OPTIONS) private readonly options: LiveFeedOptions,
  ) {}

  @Get('stream')
  @ApiEventStream()
  @ProjectKeyAuth()
  async stream(
    @CurrentProject() project: ProjectEntity,
    @Params() params: RawParams,
    @Headers('last-event-id') lastEventIdHeader: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const lastEventId = readLastEventId(lastEventIdHeader, params.last_event_id);
    const stream = new EventStream(res);
    const subscription = await this.feed.subscribe(project.id, lastEventId, stream);
    stream.begin(subscription, this.options.heartbeatMs);
  }
}
