import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { clickIdOf } from '../clicks/click-event';
import { InvalidationBus } from '../queue/invalidation-bus';
import { ClickCountsRepository } from './click-counts.repository';
import type { LinkTarget } from './redirect-target';

/** How often a link's count is read again from the analytics store, at most. */
export const COUNT_REFRESH_MS = 5_000;
/** How long a link's first visit here waits for its count before it goes on with what it knows. */
const FIRST_READ_MS = 2_000;
/** Links whose count a process keeps (the least recently added go first). */
const COUNTS_KEPT = 100_000;

/** A link's counted clicks as this process knows them. */
interface Count {
  /** Human clicks the analytics store held at the last read, but this process's since `since`. */
  stored: number;
  /** This process's counted redirects since `since`, each added as it is answered. */
  own: number;
  /** Ms since the epoch: when this process started counting the link itself. */
  since: number;
  /** When the last read ended (0: none yet). */
  readAt: number;
  reading: Promise<void> | null;
  /** The first read ended, or was waited for FIRST_READ_MS: the count is what is known. */
  known: boolean;
}

/**
 * Counted (human) clicks of links with max_clicks, for the redirect to decide without a database
 * read (docs/api.md, "Link controls"; docs/architecture.md, "How a redirect flows"). A link's count
 * is the analytics store's human clicks of it, read when a process first needs it and again at
 * most every COUNT_REFRESH_MS while it is visited, plus this process's own counted redirects, added
 * at once. Clicks travel to the store asynchronously (redirect → journal → queue → ClickHouse), so
 * the read leaves out this process's clicks since it began counting the link (click ids end with
 * the recording process's random bits): those are its own count's, and none is counted twice or
 * missed while it waits to be stored. Another instance's clicks are known from the next read after
 * they are stored: the overshoot bound of docs/api.md.
 */
@Injectable()
export class ClickCounts implements OnModuleInit {
  private readonly logger = new Logger('ClickCounts');
  private readonly counts = new Map<string, Count>();
  /** This process's random bits, the last group of every click id it makes. */
  private readonly node = clickIdOf(Date.now(), 0).slice(-12);

  constructor(
    private readonly repository: ClickCountsRepository,
    private readonly invalidation: InvalidationBus,
  ) {}

  onModuleInit(): void {
    // A changed link starts counting afresh (its controls may be new): the store knows the rest.
    this.invalidation.register({
      kinds: ['link'],
      drop: (_kind, keys) => {
        for (const key of keys) this.counts.delete(key);
      },
      dropAll: () => this.counts.clear(),
    });
  }

  /**
   * The link's counted clicks: a number once read (the common case), or, while its first read is
   * on its way, a promise to wait on before asking again (at most FIRST_READ_MS: then the count is
   * what is known). Starts a read in the background when the last is older than COUNT_REFRESH_MS
   * and the link is below `max`.
   */
  count(target: LinkTarget, max: number): number | Promise<void> {
    const now = Date.now();
    let count = this.counts.get(target.svcId);
    if (count === undefined) {
      count = { stored: 0, own: 0, since: now, readAt: 0, reading: null, known: false };
      if (this.counts.size >= COUNTS_KEPT) this.counts.delete(this.counts.keys().next().value!);
      this.counts.set(target.svcId, count);
      this.read(target, count);
    } else if (
      count.reading === null &&
      now - count.readAt >= COUNT_REFRESH_MS &&
      count.stored + count.own < max
    ) {
      this.read(target, count);
    }
    if (!count.known) return this.firstRead(count);
    return count.stored + count.own;
  }

  /** A counted redirect of the link, answered by this process. */
  counted(svcId: string): void {
    const count = this.counts.get(svcId);
    if (count !== undefined) count.own += 1;
  }

  private firstRead(count: Count): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, FIRST_READ_MS);
    });
    return Promise.race([count.reading, late]).then(() => {
      clearTimeout(timer);
      count.known = true;
    });
  }

  private read(target: LinkTarget, count: Count): void {
    count.reading = this.repository
      .countedClicks({
        projectId: target.projectId,
        linkId: target.linkId,
        since: count.since,
        node: this.node,
      })
      .then(
        (stored) => {
          count.stored = Math.max(count.stored, stored);
        },
        (error: unknown) => {
          // The redirect goes on with what it knows (docs/api.md: the bound without the store).
          this.logger.warn(`click count of ${target.svcId} not read: ${(error as Error).message}`);
        },
      )
      .finally(() => {
        count.readAt = Date.now();
        count.reading = null;
        count.known = true;
      });
  }
}
