import { Global, Module } from '@nestjs/common';
import { DEFAULT_LIVE_FEED_OPTIONS, LIVE_FEED_OPTIONS, LiveFeed } from './live-feed';

/**
 * LiveFeed, which the link services, the clicks worker and conversions publish to; its HTTP side
 * (GET /events/stream, POST /events/stream/token) is a sink, LiveFeedModule. Global so that the
 * publishers need not import it (they sit above it).
 */
@Global()
@Module({
  providers: [
    LiveFeed,
    // One object per application: a test shortens its heartbeat on it.
    { provide: LIVE_FEED_OPTIONS, useFactory: () => ({ ...DEFAULT_LIVE_FEED_OPTIONS }) },
  ],
  exports: [LiveFeed, LIVE_FEED_OPTIONS],
})
export class EventsModule {}
