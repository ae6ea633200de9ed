import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { ProjectKeyGuard } from '../projects/project-key.guard';
import { ProjectsModule } from '../projects/projects.module';
import { EventsController } from './events.controller';
import { DEFAULT_LIVE_FEED_OPTIONS, LIVE_FEED_OPTIONS, LiveFeed } from './live-feed';
import { StreamTokenController } from './stream-token.controller';
import { StreamTokens } from './stream-tokens';

/**
 * The live feed (docs/api.md, "Live feed"), a sink of events: LiveFeed subscribes to ProjectEvents
 * (EventsModule) and carries each watched project's events to GET /events/stream; POST
 * /events/stream/token gives its single-use tokens.
 */
@Module({
  imports: [EventsModule, ProjectsModule, RateLimitModule],
  controllers: [EventsController, StreamTokenController],
  providers: [
    LiveFeed,
    // One object per application: a test shortens its heartbeat on it.
    { provide: LIVE_FEED_OPTIONS, useFactory: () => ({ ...DEFAULT_LIVE_FEED_OPTIONS }) },
    StreamTokens,
    // StreamAuthGuard checks `key` through ProjectKeyGuard when no token is given.
    ProjectKeyGuard,
  ],
})
export class LiveFeedModule {}
