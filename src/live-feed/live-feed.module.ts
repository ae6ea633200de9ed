import { Module } from '@nestjs/common';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { ProjectKeyGuard } from '../projects/project-key.guard';
import { ProjectsModule } from '../projects/projects.module';
import { EventsController } from './events.controller';
import { StreamTokenController } from './stream-token.controller';
import { StreamTokens } from './stream-tokens';

/**
 * The live feed's HTTP side (docs/api.md, "Live feed"): GET /events/stream, which streams what
 * LiveFeed (EventsModule) carries, and POST /events/stream/token, its single-use tokens.
 */
@Module({
  imports: [ProjectsModule, RateLimitModule],
  controllers: [EventsController, StreamTokenController],
  providers: [
    StreamTokens,
    // StreamAuthGuard checks `key` through ProjectKeyGuard when no token is given.
    ProjectKeyGuard,
  ],
})
export class LiveFeedModule {}
