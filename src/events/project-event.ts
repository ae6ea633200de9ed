import { randomUUID } from 'node:crypto';

/**
 * The events a project's systems are told of (docs/api.md, "Webhooks and live events"): by
 * webhooks (WebhookSink) and by the live feed (LiveFeed), the sinks of ProjectEvents. `ping` is
 * sent by a webhook's test only, never to the live feed.
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
 * An event id: `evt_` and 32 hex digits, the first 12 the event's time in ms (as in a UUID version
 * 7), so that the events of one moment share a bucket of the delivery log (eventBucket). From a
 * stable source, the same id every time the source is processed, so a job run twice makes one
 * event: a click's id (a UUID version 7 already), or a uuid and its time (`atMs`). Otherwise the
 * time now and random digits.
 */
export function eventId(sourceUuid?: string, atMs?: number): string {
  const hex = (sourceUuid ?? randomUUID()).replace(/-/g, '').toLowerCase();
  if (sourceUuid !== undefined && atMs === undefined) return `evt_${hex}`;
  const time = Math.max(0, Math.floor(atMs ?? Date.now()))
    .toString(16)
    .padStart(12, '0')
    .slice(-12);
  return `evt_${time}${hex.slice(0, 20)}`;
}

/** Ms of time one bucket of the delivery log spans (eventBucket). */
export const EVENT_BUCKET_MS = 10_000;

/**
 * The delivery log's bucket of an event id: its first 12 hex digits (the time of ids made by
 * eventId) in spans of EVENT_BUCKET_MS. Any id has one; ids of older versions (random digits)
 * simply fall in unrelated buckets.
 */
export function eventBucket(id: string): number {
  return Math.floor(parseInt(id.slice(4, 16), 16) / EVENT_BUCKET_MS);
}

/** Whether a text is an event id (`evt_` and 32 hex digits). */
export function isEventId(text: string): boolean {
  return /^evt_[0-9a-f]{32}$/.test(text);
}
