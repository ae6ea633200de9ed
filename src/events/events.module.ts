import { Module } from '@nestjs/common';
import { EventOutbox } from './event-outbox';
import { EventOutboxRepository } from './event-outbox.repository';
import { EventPublisher, OutgoingEvents } from './event-publisher';
import { ProjectEvents } from './project-events';

/**
 * The one way out for anything that happened (docs/architecture.md, "Webhooks and live events"):
 * the features publish through EventPublisher; the sinks (webhooks, the live feed) subscribe to
 * ProjectEvents at their module's init. Every module that publishes or subscribes imports this
 * one; Nest makes one instance of it, so they all share one ProjectEvents.
 */
@Module({
  providers: [
    ProjectEvents,
    EventOutbox,
    EventOutboxRepository,
    { provide: EventPublisher, useClass: OutgoingEvents },
  ],
  exports: [EventPublisher, ProjectEvents],
})
export class EventsModule {}
