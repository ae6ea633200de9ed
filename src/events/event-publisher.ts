import { Injectable } from '@nestjs/common';
import { EventOutbox, RequestEvents } from './event-outbox';
import type { EventType, OutgoingEvent } from './project-event';
import { ProjectEvents } from './project-events';

/**
 * What the features call to tell of what happened (docs/architecture.md, "Webhooks and live
 * events"): the events layer's API. They know no sink: whoever subscribed to ProjectEvents gets the
 * events.
 */
export abstract class EventPublisher {
  /** Hands events over; resolves once the durable sinks have them (rejects when they could not). */
  abstract publish(events: OutgoingEvent[]): Promise<void>;
  /** Whether some sink takes events of this type of the project: a publisher builds none otherwise. */
  abstract listens(projectId: string, type: EventType): Promise<boolean>;
  /**
   * Before a request's transaction: the hand-over of its events of `type`, at least once
   * (EventOutbox): `add` them in the transaction, `handOver` after the commit.
   */
  abstract open(projectId: string, type: EventType): Promise<RequestEvents>;
}

/** EventPublisher as the events layer provides it: ProjectEvents, and EventOutbox for requests. */
@Injectable()
export class OutgoingEvents extends EventPublisher {
  constructor(
    private readonly events: ProjectEvents,
    private readonly outbox: EventOutbox,
  ) {
    super();
  }

  publish(events: OutgoingEvent[]): Promise<void> {
    return this.events.publish(events);
  }

  listens(projectId: string, type: EventType): Promise<boolean> {
    return this.events.listens(projectId, type);
  }

  open(projectId: string, type: EventType): Promise<RequestEvents> {
    return this.outbox.open(projectId, type);
  }
}
