import { randomUUID } from 'node:crypto';

/**
 * The events a project's systems are told of (docs/api.md, "Webhooks and live events"): by
 * webhooks (WebhookDispatcher) and by the live feed (LiveFeed). `ping` is sent by a webhook's test
 * only, never to the live feed.
 */
export const EVENT_TYPES = [
  'link.created',
  'link.updated',
  'link.clicked',
  'conversion.created',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The body of every event, as delivered and streamed: `{id, type, created_at, data}`. */
export interface ProjectEvent {
  /** `evt_` and 32 hex digits; the same on every delivery of the event (webhook-id). */
  id: string;
  type: EventType | 'ping';
  /** ISO 8601 with milliseconds, UTC. */
  created_at: string;
  data: Record<string, unknown>;
}

/** An event on its way out: the body, and the link it concerns (webhooks limited to links). */
export interface OutgoingEvent {
  projectId: string;
  /** The link's numeric id, for webhooks limited to some links; null when none. */
  linkId: string | null;
  event: ProjectEvent;
}

/**
 * An event id. From a stable source id (a click's or a conversion's uuid), the same id every time
 * the source is processed, so a job run twice makes one event; otherwise a new random id.
 */
export function eventId(sourceUuid?: string): string {
  return `evt_${(sourceUuid ?? randomUUID()).replace(/-/g, '').toLowerCase()}`;
}

/** Whether a text is an event id (`evt_` and 32 hex digits). */
export function isEventId(text: string): boolean {
  return /^evt_[0-9a-f]{32}$/.test(text);
}
