import { Global, Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { RateLimitModule } from '../common/rate-limit/rate-limit.module';
import { EventsController } from './events.controller';
import { DEFAULT_LIVE_FEED_OPTIONS, LIVE_FEED_OPTIONS, LiveFeed } from './live-feed';

/**
 * The live feed: GET /events/stream and LiveFeed, which the link services, the clicks worker and
 * conversions publish to. Global so that they need not import it (they sit below it).
 */
@Global()
@Module({
  imports: [ProjectsModule, RateLimitModule],
  controllers: [EventsController],
  providers: [
    LiveFeed,
    // One object per application: a test shortens its heartbeat on it.
    { provide: LIVE_FEED_OPTIONS, useFactory: () => ({ ...DEFAULT_LIVE_FEED_OPTIONS }) },
  ],
  exports: [LiveFeed],
})
export class EventsModule {}
