import { Injectable, Logger } from '@nestjs/common';
import type { EventSink } from './event-sink';
import type { EventType, OutgoingEvent } from './project-event';

/**
 * Where every event of a project goes out (docs/architecture.md, "Webhooks and live events"):
 * to each sink subscribed (EventSink: the webhooks, the live feed), which keeps what it wants. The
 * sinks that are not durable are handed the events first and not waited for; publish resolves once
 * every durable sink has them, and rejects when one could not take them (the caller hands them
 * over again: at least once). Sinks subscribe at their module's init, before any worker or request
 * publishes.
 */
@Injectable()
export class ProjectEvents {
  private readonly logger = new Logger('ProjectEvents');
  private readonly sinks: EventSink[] = [];

  /** A sink takes every event published from now on. */
  subscribe(sink: EventSink): void {
    if (!this.sinks.includes(sink)) this.sinks.push(sink);
  }

  /** Hands events over; resolves once the durable sinks have them (rejects when they could not). */
  async publish(events: OutgoingEvent[]): Promise<void> {
    if (events.length === 0) return;
    for (const sink of this.sinks) {
      if (sink.durable) continue;
      // Best effort: such a sink drops what it cannot send, never failing the publisher.
      void sink
        .publish(events)
        .catch((error: Error) => this.logger.warn({ err: error }, 'events dropped by a sink'));
    }
    for (const sink of this.sinks) {
      if (sink.durable) await sink.publish(events);
    }
  }

  /** Whether some sink takes events of this type of the project: a publisher builds none otherwise. */
  async listens(projectId: string, type: EventType): Promise<boolean> {
    for (const sink of this.sinks) {
      if (await sink.takes(projectId, type)) return true;
    }
    return false;
  }

  /** Whether some durable sink takes events of this type of the project: they are kept (EventOutbox). */
  async keeps(projectId: string, type: EventType): Promise<boolean> {
    for (const sink of this.sinks) {
      if (sink.durable && (await sink.takes(projectId, type))) return true;
    }
    return false;
  }
}
