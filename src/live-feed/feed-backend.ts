import type { ProjectEvent } from '../events/project-event';

/**
 * How long a project stays watched after its last stream closed, in seconds: publishers keep its
 * events for resume that long (docs/api.md, "Live feed"). Instances holding streams of a project
 * renew its mark every WATCH_REFRESH_MS.
 */
export const WATCH_TTL_SECONDS = 60;
export const WATCH_REFRESH_MS = 20_000;

/** What a backend hands the feed: the events of one project that reached this instance. */
export type FeedDelivery = (projectId: string, events: ProjectEvent[]) => void;

/**
 * Where LiveFeed keeps and sends events: Redis across instances (RedisFeedBackend), or this
 * process alone (LocalFeedBackend). Both keep a project's recent events only while some stream
 * of it is open or was in the last WATCH_TTL_SECONDS, and start its window afresh when a stream
 * opens after a longer pause (events were skipped meanwhile: a resume then gets `reset`).
 */
export interface FeedBackend {
  /** Connects; resolves when ready or after a short wait, never rejects. */
  start(): Promise<void>;
  /** Which of these projects are watched (some stream open now or in the last minute). */
  watchedAmong(projectIds: string[]): Promise<Set<string>>;
  /** Keeps each watched project's events in its window and sends them to every instance. */
  append(batches: Map<string, ProjectEvent[]>): Promise<void>;
  /** The first stream of a project opened here: receive its events and mark it watched. */
  watch(projectId: string): Promise<void>;
  /** The last stream of a project here closed: stop receiving (the mark expires on its own). */
  unwatch(projectId: string): void;
  /** The project's kept events, oldest first. */
  window(projectId: string): Promise<ProjectEvent[]>;
  close(): Promise<void>;
}
