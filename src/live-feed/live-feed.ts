import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { AppError, ErrorCode } from '../common/app-error';
import { AppConfig } from '../config/app-config';
import type { EventSink } from '../events/event-sink';
import type { OutgoingEvent, ProjectEvent } from '../events/project-event';
import { ProjectEvents } from '../events/project-events';
import { FeedBackend } from './feed-backend';
import { LocalFeedBackend } from './local-feed-backend';
import { RedisFeedBackend } from './redis-feed-backend';

/** Settings of the live streams, read when a stream opens (tests shorten them). */
export interface LiveFeedOptions {
  /** How often an idle stream gets a `: heartbeat` comment, in ms (docs/api.md: 15 s). */
  heartbeatMs: number;
  /** Open streams per project on one instance; one more is answered 429. */
  maxStreamsPerProject: number;
  /** How long a stream token opens a stream, in ms (docs/api.md, "Live feed": a minute). */
  tokenTtlMs: number;
}

export const LIVE_FEED_OPTIONS = Symbol('LIVE_FEED_OPTIONS');

export const DEFAULT_LIVE_FEED_OPTIONS: Readonly<LiveFeedOptions> = {
  heartbeatMs: 15_000,
  maxStreamsPerProject: 20,
  tokenTtlMs: 60_000,
};

/** What a stream is sent: an event, or `reset` when its Last-Event-ID is out of the window. */
export type FeedMessage = { type: 'event'; event: ProjectEvent } | { type: 'reset' };

/** The receiving end of one stream (the SSE response). */
export interface FeedListener {
  /** Messages in order: the replay first, then live events. */
  deliver(message: FeedMessage): void;
  /** The feed ends the stream (application shutdown, Redis subscription lost). */
  end(): void;
}

export interface FeedSubscription {
  /** Stops delivery; the stream's client went away. Idempotent. */
  close(): void;
}

/** How often dropped events are logged at most, in ms. */
const DROP_LOG_INTERVAL_MS = 60_000;

/**
 * The events of a window after `lastEventId`, oldest first; null when the id is not in the window
 * (too old, or never kept): the stream then starts with `reset`.
 */
export function replayAfter(window: ProjectEvent[], lastEventId: string): ProjectEvent[] | null {
  for (let i = window.length - 1; i >= 0; i -= 1) {
    if (window[i].id === lastEventId) return window.slice(i + 1);
  }
  return null;
}

/**
 * One open stream: live events wait while its replay is read, and events the replay already
 * gave are not given twice (the window is read after the channel is subscribed, so the first
 * live events may be in both).
 */
class Stream {
  private pending: ProjectEvent[] | null = [];
  /** Ids of the window read for the replay, until a live event newer than all of them arrives. */
  private replayed: Set<string> | null = null;

  constructor(readonly listener: FeedListener) {}

  receive(events: ProjectEvent[]): void {
    if (this.pending) {
      this.pending.push(...events);
      return;
    }
    for (const event of events) {
      if (this.replayed?.has(event.id)) continue;
      this.replayed = null;
      this.listener.deliver({ type: 'event', event });
    }
  }

  /** Sends the replay (or `reset`), then the live events that waited. */
  start(window: ProjectEvent[] | null, lastEventId: string | null): void {
    const pending = this.pending ?? [];
    this.pending = null;
    if (window !== null && lastEventId !== null) {
      const replay = replayAfter(window, lastEventId);
      if (replay === null) {
        this.listener.deliver({ type: 'reset' });
      } else {
        for (const event of replay) this.listener.deliver({ type: 'event', event });
        this.replayed = new Set(window.map((event) => event.id));
      }
    }
    this.receive(pending);
  }
}

interface ProjectStreams {
  streams: Set<Stream>;
  /** Resolves once the project's events reach this instance. */
  watched: Promise<void>;
}

/**
 * The live feed (docs/api.md, "Live feed"): events of a project to its open streams, on every
 * instance through Redis pub/sub, or in this process without Redis. Best effort: a failure drops
 * the events (logged once a minute) and never reaches the publisher; webhooks are the durable path.
 * Publishing for a project nobody watches costs a cached lookup and writes nothing. A sink of
 * events (EventSink), not durable: it takes every type of a watched project.
 */
@Injectable()
export class LiveFeed
  implements EventSink, OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown
{
  readonly durable = false;
  private readonly logger = new Logger('LiveFeed');
  private readonly backend: FeedBackend;
  private readonly projects = new Map<string, ProjectStreams>();
  private closing = false;
  private dropped = 0;
  private droppedLoggedAt = 0;

  constructor(
    config: AppConfig,
    @Inject(LIVE_FEED_OPTIONS) private readonly options: LiveFeedOptions,
    private readonly events: ProjectEvents,
  ) {
    const deliver = (projectId: string, events: ProjectEvent[]) => {
      for (const stream of this.projects.get(projectId)?.streams ?? []) stream.receive(events);
    };
    this.backend = config.redisUrl
      ? new RedisFeedBackend(
          config.redisUrl,
          config.redisPrefix,
          config.eventsReplaySize,
          deliver,
          () => this.endStreams(),
        )
      : new LocalFeedBackend(config.eventsReplaySize, deliver);
  }

  async onModuleInit(): Promise<void> {
    this.events.subscribe(this);
    await this.backend.start();
  }

  /** A watched project's events, of any type (isWatched). */
  takes(projectId: string): Promise<boolean> {
    return this.isWatched(projectId);
  }

  /**
   * Sends events, of any projects, to their streams. Never throws; returns after one or two Redis
   * round trips at most (none for projects known to be unwatched in the last second).
   */
  async publish(events: OutgoingEvent[]): Promise<void> {
    if (events.length === 0) return;
    try {
      const byProject = new Map<string, ProjectEvent[]>();
      for (const { projectId, event } of events) {
        const batch = byProject.get(projectId);
        if (batch) batch.push(event);
        else byProject.set(projectId, [event]);
      }
      const watched = await this.backend.watchedAmong([...byProject.keys()]);
      if (watched.size === 0) return;
      for (const projectId of byProject.keys()) {
        if (!watched.has(projectId)) byProject.delete(projectId);
      }
      await this.backend.append(byProject);
    } catch (error) {
      this.logDropped(events.length, error);
    }
  }

  /**
   * Whether some stream of the project is open, or was in the last minute (docs/api.md, "Live
   * feed"), as publish decides it: a publisher builds no events for a project nobody watches.
   * False when Redis fails.
   */
  async isWatched(projectId: string): Promise<boolean> {
    try {
      return (await this.backend.watchedAmong([projectId])).has(projectId);
    } catch (error) {
      this.logDropped(0, error);
      return false;
    }
  }

  /**
   * Opens a stream of a project: the events after `lastEventId` still in the window (or `reset`),
   * then live ones, delivered to `listener`. 429 beyond the streams allowed per project here;
   * 503 when Redis does not answer.
   */
  async subscribe(
    projectId: string,
    lastEventId: string | null,
    listener: FeedListener,
  ): Promise<FeedSubscription> {
    if (this.closing) {
      throw new AppError(503, ErrorCode.unavailable, 'This instance is shutting down; retry');
    }
    let project = this.projects.get(projectId);
    const max = this.options.maxStreamsPerProject;
    if (project && project.streams.size >= max) {
      throw new AppError(
        429,
        ErrorCode.rateLimited,
        `Too many open streams of this project: at most ${max} per instance; close one first`,
      );
    }
    if (!project) {
      project = { streams: new Set(), watched: this.backend.watch(projectId) };
      this.projects.set(projectId, project);
    }
    const stream = new Stream(listener);
    project.streams.add(stream);
    const subscription = { close: () => this.leave(projectId, stream) };
    try {
      await project.watched;
      stream.start(lastEventId === null ? null : await this.backend.window(projectId), lastEventId);
    } catch (error) {
      subscription.close();
      throw new AppError(
        503,
        ErrorCode.unavailable,
        `The live feed is unavailable (${(error as Error).message}); retry`,
      );
    }
    return subscription;
  }

  /**
   * The instance is shutting down: every open stream ends (its client reconnects to another
   * instance and resumes) and new ones are answered 503. main.ts calls it before the HTTP server
   * closes, which would otherwise wait for the streams.
   */
  shutdown(): void {
    this.closing = true;
    this.endStreams();
  }

  beforeApplicationShutdown(): void {
    this.shutdown();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.backend.close();
  }

  /** Ends every open stream; their clients reconnect and resume. */
  private endStreams(): void {
    for (const { streams } of [...this.projects.values()]) {
      for (const stream of [...streams]) stream.listener.end();
    }
  }

  private leave(projectId: string, stream: Stream): void {
    const project = this.projects.get(projectId);
    if (!project?.streams.delete(stream) || project.streams.size > 0) return;
    this.projects.delete(projectId);
    this.backend.unwatch(projectId);
  }

  private logDropped(count: number, error: unknown): void {
    this.dropped += count;
    const now = Date.now();
    if (now - this.droppedLoggedAt < DROP_LOG_INTERVAL_MS) return;
    this.logger.warn(
      `live feed unavailable (${(error as Error).message}): ${this.dropped} events dropped; ` +
        'webhooks are not affected (logged once a minute at most)',
    );
    this.dropped = 0;
    this.droppedLoggedAt = now;
  }
}
