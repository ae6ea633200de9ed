import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { BloomFilter } from '../common/bloom-filter';
import { AppConfig } from '../config/app-config';
import { RedirectsRepository } from './redirects.repository';

/** The smallest filter built: an empty service still takes its first links without a rebuild. */
export const FILTER_MIN_CAPACITY = 100_000;
/** svc_ids read per query while building. */
const PAGE = 10_000;
/** After a failed build (PostgreSQL out of reach), the next try. */
const RETRY_MS = 5_000;
/**
 * A built filter is built anew after this long: a creation whose announcement was lost without a
 * reconnect (which rebuilds at once) answers 404 here for at most this long.
 */
export const FILTER_REFRESH_MS = 15 * 60_000;

/**
 * Which svc_ids exist, so that a path of none is answered without PostgreSQL or Redis
 * (docs/architecture.md, "How a redirect flows"). A Bloom filter of every link's svc_id, built at
 * start from PostgreSQL (streamed in pages) and kept current on every instance: a created link is
 * announced through the InvalidationBus (`changed('link', …)`), which adds it here. It answers "no
 * such link" only once built; until then, and while a build after missed messages (a reconnect)
 * runs, every lookup takes the normal path. Past its capacity it is built again, twice as large,
 * the full one answering meanwhile (it still has every link: only its false positives grow).
 * Every FILTER_REFRESH_MS it is built anew the same way, the current one answering meanwhile, so
 * that an announcement lost without a reconnect costs a link its visits here for a bounded time.
 */
@Injectable()
export class LinkFilter implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('LinkFilter');
  /** The filter that answers; null while none is complete and current. */
  private trusted: BloomFilter | null = null;
  /** The filter a build is filling; added to as well, so no link announced meanwhile is lost. */
  private building: BloomFilter | null = null;
  /** Each build's number: a build that another replaced stops at its next page. */
  private generation = 0;
  private retry?: NodeJS.Timeout;
  private refresh?: NodeJS.Timeout;
  private stopped = false;
  private running: Promise<void> | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly repository: RedirectsRepository,
  ) {}

  /** A process that serves no redirects (ROLE=worker) builds none: its lookups, if any, read on. */
  onApplicationBootstrap(): void {
    if (this.config.servesApi) this.rebuild('start');
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.generation++;
    clearTimeout(this.retry);
    clearTimeout(this.refresh);
    await this.running;
  }

  /** False only when the svc_id is surely no link's: a built filter never had it. */
  mightExist(svcId: string): boolean {
    return this.trusted === null || this.trusted.mightHave(svcId);
  }

  /** Whether the filter answers (built and current). */
  get ready(): boolean {
    return this.trusted !== null;
  }

  /** Links kept and the filter's capacity and bytes, for the metrics. */
  get stats(): { links: number; capacity: number; bytes: number } {
    const filter = this.trusted;
    return filter === null
      ? { links: 0, capacity: 0, bytes: 0 }
      : { links: filter.count, capacity: filter.capacity, bytes: filter.bytes };
  }

  /** Links that exist (created, or changed: adding one twice does no harm). */
  add(svcIds: readonly string[]): void {
    for (const svcId of svcIds) {
      this.trusted?.add(svcId);
      this.building?.add(svcId);
    }
    const full = this.trusted;
    if (full !== null && full.count > full.capacity && this.building === null) {
      this.rebuild('grow');
    }
  }

  /**
   * Messages may have been missed (a reconnect): links created elsewhere meanwhile are unknown
   * here, so the filter is not trusted until built again.
   */
  forget(): void {
    this.trusted = null;
    this.rebuild('missed');
  }

  private rebuild(reason: 'start' | 'grow' | 'missed' | 'refresh'): void {
    if (this.stopped || !this.config.servesApi) return;
    clearTimeout(this.retry);
    clearTimeout(this.refresh);
    const generation = ++this.generation;
    this.building = null;
    const run = this.build(generation)
      .catch((error: unknown) => {
        if (generation !== this.generation) return;
        this.building = null;
        this.logger.warn(
          `link filter not built (${reason}): ${(error as Error).message}; unknown paths are looked up until it is`,
        );
        this.retry = setTimeout(() => this.rebuild(reason), RETRY_MS);
        this.retry.unref();
      })
      .finally(() => {
        if (this.running === run) this.running = null;
      });
    this.running = run;
  }

  private async build(generation: number): Promise<void> {
    const links = await this.repository.countLinks();
    if (generation !== this.generation) return;
    // Room to double before the next build; the count may grow while the pages are read.
    const filter = new BloomFilter(Math.max(FILTER_MIN_CAPACITY, 2 * links));
    this.building = filter;
    // Created from here on: announced (add). Before: committed, so in the pages read below.
    let after: string | null = null;
    for (;;) {
      const page = await this.repository.svcIdsAfter(after, PAGE);
      if (generation !== this.generation) return;
      for (const svcId of page) filter.add(svcId);
      if (page.length < PAGE) break;
      after = page[page.length - 1];
    }
    this.building = null;
    this.trusted = filter;
    if (filter.count > filter.capacity) return this.rebuild('grow');
    this.refresh = setTimeout(() => this.rebuild('refresh'), FILTER_REFRESH_MS);
    this.refresh.unref();
  }
}
