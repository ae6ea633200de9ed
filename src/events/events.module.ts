import { Global, Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { RateLimitModule } from '../common/rate-limit/rate-limit.module';
import { ProjectKeyGuard } from '../projects/project-key.guard';
import { EventsController } from './events.controller';
import { DEFAULT_LIVE_FEED_OPTIONS, LIVE_FEED_OPTIONS, LiveFeed } from './live-feed';
import { StreamTokenController } from './stream-token.controller';
import { StreamTokens } from './stream-tokens';

/**
 * The live feed: GET /events/stream, POST /events/stream/token (its tokens) and LiveFeed, which
 * the link services, the clicks worker and conversions publish to. Global so that they need not
 * import it (they sit below it).
 */
@Global()
@Module({
  imports: [ProjectsModule, RateLimitModule],
  controllers: [EventsController, StreamTokenController],
  providers: [
    LiveFeed,
    StreamTokens,
    // StreamAuthGuard checks `key` through ProjectKeyGuard when no token is given.
    ProjectKeyGuard,
    // One object per application: a test shortens its heartbeat on it.
    { provide: LIVE_FEED_OPTIONS, useFactory: () => ({ ...DEFAULT_LIVE_FEED_OPTIONS }) },
  ],
  exports: [LiveFeed],
})
export class EventsModule {}
