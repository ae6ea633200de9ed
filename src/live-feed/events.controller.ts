import { Controller, Get, Headers, Inject, Res, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiKeys } from '../common/api-security';
import { RawParams } from '../common/params';
import { ReadThrottlerGuard } from '../rate-limit/project-throttler.guard';
import { Params } from '../common/params.decorator';
import { EventStream, readLastEventId } from './event-stream';
import { ApiEventStream } from './events.swagger';
import { LIVE_FEED_OPTIONS, LiveFeed, LiveFeedOptions } from './live-feed';
import { StreamAuthGuard, StreamProjectId } from './stream-auth';

/**
 * The live feed (docs/api.md, "Live feed"). StreamAuthGuard takes a stream token, or `key`, the
 * API key only; the answer is written by EventStream, so errors before the stream opens keep the
 * link endpoints' shape. Opening a stream with `key` counts in the project's read budget
 * (READ_RATE_LIMIT), and a request without a live key (a token's too: getting it was counted) in
 * its address's: neither keys nor tokens can be tried here faster than elsewhere.
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
  @ApiKeys('projectKey')
  @UseGuards(StreamAuthGuard)
  async stream(
    @StreamProjectId() projectId: string,
    @Params() params: RawParams,
    @Headers('last-event-id') lastEventIdHeader: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const lastEventId = readLastEventId(lastEventIdHeader, params.last_event_id);
    const stream = new EventStream(res);
    const subscription = await this.feed.subscribe(projectId, lastEventId, stream);
    stream.begin(subscription, this.options.heartbeatMs);
  }
}
