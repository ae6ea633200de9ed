import type { EventType, OutgoingEvent } from './project-event';

/**
 * Where events go out (docs/architecture.md, "Webhooks and live events"): a sink subscribes to
 * ProjectEvents at its module's init, and is handed every event published after that. The events
 * layer knows sinks by this interface only; webhooks and the live feed are the two there are.
 */
export interface EventSink {
  /**
   * Whether the sink's deliveries must survive a crash: the events of API requests are kept in
   * the outbox for a durable sink that takes them (EventOutbox), and publish waits for it. A sink
   * that is not durable is best effort: it is not waited for.
   */
  readonly durable: boolean;
  /** Whether the sink takes events of this type of the project now (cached: asked per batch). */
  takes(projectId: string, type: EventType): Promise<boolean>;
  /**
   * Takes events, of any projects, and keeps those it wants. A durable sink resolves once they
   * are safe and rejects when they could not be kept (the publisher hands them over again).
   */
  publish(events: OutgoingEvent[]): Promise<void>;
}
