import { FeedBackend, FeedDelivery, WATCH_TTL_SECONDS } from './feed-backend';
import type { ProjectEvent } from '../events/project-event';

/** The last `capacity` items pushed, oldest first; grows up to its capacity, then overwrites. */
export class RingBuffer<T> {
  private readonly items: T[] = [];
  /** Where the oldest item is once the buffer is full. */
  private head = 0;

  constructor(readonly capacity: number) {}

  push(item: T): void {
    if (this.capacity === 0) return;
    if (this.items.length < this.capacity) {
      this.items.push(item);
      return;
    }
    this.items[this.head] = item;
    this.head = (this.head + 1) % this.capacity;
  }

  toArray(): T[] {
    return [...this.items.slice(this.head), ...this.items.slice(0, this.head)];
  }
}

/**
 * The live feed of one process (embedded mode, no Redis): a ring buffer per watched project, and
 * events handed straight to the feed's streams. Same rule as with Redis: a project is watched
 * while a stream of it is open and for WATCH_TTL_SECONDS after the last one closed.
 */
export class LocalFeedBackend implements FeedBackend {
  private readonly windows = new Map<string, RingBuffer<ProjectEvent>>();
  private readonly open = new Set<string>();
  /** When the last stream of each project closed, in ms. */
  private readonly closedAt = new Map<string, number>();

  constructor(
    private readonly replaySize: number,
    private readonly deliver: FeedDelivery,
  ) {}

  async start(): Promise<void> {}

  async watchedAmong(projectIds: string[]): Promise<Set<string>> {
    return new Set(projectIds.filter((id) => this.isWatched(id)));
  }

  async append(batches: Map<string, ProjectEvent[]>): Promise<void> {
    for (const [projectId, events] of batches) {
      let window = this.windows.get(projectId);
      if (!window) {
        window = new RingBuffer<ProjectEvent>(this.replaySize);
        this.windows.set(projectId, window);
      }
      for (const event of events) window.push(event);
      this.deliver(projectId, events);
    }
  }

  async watch(projectId: string): Promise<void> {
    this.forgetUnwatched();
    if (!this.isWatched(projectId)) this.windows.delete(projectId);
    this.open.add(projectId);
    this.closedAt.delete(projectId);
  }

  unwatch(projectId: string): void {
    this.open.delete(projectId);
    this.closedAt.set(projectId, Date.now());
  }

  async window(projectId: string): Promise<ProjectEvent[]> {
    return this.windows.get(projectId)?.toArray() ?? [];
  }

  async close(): Promise<void> {}

  private isWatched(projectId: string): boolean {
    if (this.open.has(projectId)) return true;
    const closedAt = this.closedAt.get(projectId);
    return closedAt !== undefined && Date.now() - closedAt < WATCH_TTL_SECONDS * 1000;
  }

  /** Drops the windows of projects no longer watched: nothing resumes from them. */
  private forgetUnwatched(): void {
    for (const projectId of this.closedAt.keys()) {
      if (this.isWatched(projectId)) continue;
      this.closedAt.delete(projectId);
      this.windows.delete(projectId);
    }
  }
}
