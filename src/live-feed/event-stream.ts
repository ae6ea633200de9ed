import type { Response } from 'express';
import { Errors } from '../common/app-error';
import type { FeedListener, FeedMessage, FeedSubscription } from './live-feed';
import { isEventId } from '../events/project-event';

/** The comment an idle stream gets (docs/api.md, "Live feed"): proxies and clients see it alive. */
export const HEARTBEAT = ': heartbeat\n\n';

/**
 * What a slow client may leave unread, in bytes, before its stream is cut: the client reconnects
 * with Last-Event-ID and resumes from the window instead of the server buffering without bound.
 */
const MAX_UNSENT_BYTES = 1 << 20;

/** One message of the stream, in the Server-Sent Events framing. */
export function sseFrame(message: FeedMessage): string {
  switch (message.type) {
    case 'event': {
      const { id, type, created_at, data } = message.event;
      const body = JSON.stringify({ id, type, created_at, data });
      return `id: ${id}\nevent: ${type}\ndata: ${body}\n\n`;
    }
    case 'reset':
      return `event: reset\ndata: ${JSON.stringify({ reason: 'last_event_id_not_found' })}\n\n`;
  }
}

/**
 * Where a stream resumes: the `Last-Event-ID` header (EventSource sends it when it reconnects),
 * else the `last_event_id` parameter; null for neither (or empty). 400 naming the one given when
 * it is not an event id.
 */
export function readLastEventId(header: string | undefined, parameter: unknown): string | null {
  if (header !== undefined && header !== '') {
    if (!isEventId(header)) throw Errors.invalid('Last-Event-ID', 'must be an event id (evt_…)');
    return header;
  }
  if (parameter === undefined || parameter === '') return null;
  if (typeof parameter !== 'string' || !isEventId(parameter)) {
    throw Errors.invalid('last_event_id', 'must be an event id (evt_…), given once');
  }
  return parameter;
}

/**
 * One SSE response. Its headers go out with the first message or once subscribed, whichever comes
 * first (the replay is delivered while subscribing), so that a refusal can still be answered in the
 * usual error shape. Heartbeats run until the client goes away, which closes the subscription.
 */
export class EventStream implements FeedListener {
  private subscription: FeedSubscription | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly res: Response) {
    res.once('close', () => this.closeDown());
  }

  /** Subscribed: the headers go out now if no message has sent them, and heartbeats start. */
  begin(subscription: FeedSubscription, heartbeatMs: number): void {
    if (this.closed) {
      subscription.close();
      return;
    }
    this.subscription = subscription;
    this.sendHeaders();
    this.heartbeat = setInterval(() => this.write(HEARTBEAT), heartbeatMs);
  }

  deliver(message: FeedMessage): void {
    this.write(sseFrame(message));
  }

  end(): void {
    if (this.closed) return;
    this.sendHeaders();
    this.res.end();
  }

  private write(text: string): void {
    if (this.closed) return;
    this.sendHeaders();
    if (this.res.writableLength > MAX_UNSENT_BYTES) {
      this.res.destroy();
      return;
    }
    this.res.write(text);
  }

  private sendHeaders(): void {
    if (this.res.headersSent) return;
    this.res.status(200);
    this.res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    this.res.setHeader('Cache-Control', 'no-cache');
    // nginx would otherwise hold the events back in its buffer.
    this.res.setHeader('X-Accel-Buffering', 'no');
    // The connection serves this stream only: when the stream ends (shutdown), so does it.
    this.res.setHeader('Connection', 'close');
    this.res.flushHeaders();
  }

  private closeDown(): void {
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.subscription?.close();
  }
}
