import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { CrawlError, LocalHop, crawl } from '../../crawler/crawler';
import { JobQueue } from '../../queue/job-queue';
import { QUEUES } from '../../queue/queue-names';
import type { LinkEntity } from '../link.entity';
import { LinkListRepository } from '../list/link-list.repository';
import { svcIdOfUrl } from '../link-path';
import { LinksRepository } from '../links.repository';

export interface UnwrapJob {
  url: string;
}

export interface UnwrapResult {
  url: string;
}

const FINAL: LocalHop = { kind: 'final' };

/**
 * Resolves a URL to its final destination. The request hands the crawl to the `unwrap` queue and
 * awaits it (bounded by UNWRAP_TIMEOUT_MS); a link that cannot be crawled stays as given.
 */
@Injectable()
export class UnwrapService {
  private readonly logger = new Logger('UnwrapService');

  constructor(
    private readonly config: AppConfig,
    private readonly queue: JobQueue,
    private readonly repository: LinksRepository,
    private readonly listing: LinkListRepository,
  ) {}

  async unwrap(url: string): Promise<string> {
    try {
      const result = await this.queue.addAndWait<UnwrapJob, UnwrapResult>(
        QUEUES.unwrap,
        'unwrap',
        { url },
        this.config.unwrapTimeoutMs,
      );
      return result.url;
    } catch (error) {
      this.logger.warn(
        { url, err: (error as Error).message },
        'unwrap failed; the link keeps the URL as given',
      );
      return url;
    }
  }

  /**
   * The processor's work: the final destination, crawled SSRF-safely. A link of this service on
   * the way leads to its stored URL without a request (one hop of the limit), and the crawl goes on
   * from there, unless anyone's GET of it would not show its target: then the crawl ends at the
   * short link itself (serviceHop). When the crawl fails, the URL is the one given, or the stored
   * URL of the last link of this service passed (docs/api.md, unwrap).
   */
  async resolve(url: string): Promise<UnwrapResult> {
    let reached = url;
    try {
      const result = await crawl(url, {
        allowLoopback: this.config.crawlerAllowLoopback,
        readBody: false,
        localHop: async (hop) => {
          const local = await this.serviceHop(hop);
          if (local?.kind === 'hop') reached = local.url;
          return local;
        },
      });
      return { url: result.url };
    } catch (error) {
      if (error instanceof CrawlError) return { url: reached };
      throw error;
    }
  }

  /**
   * A link of this service: its stored URL when a plain GET by anyone would lead there anyway,
   * else the end of the crawl (docs/api.md, "Security": unwrap and link controls). Null for a URL
   * that names no link of this service.
   */
  private async serviceHop(url: string): Promise<LocalHop | null> {
    const denoted = svcIdOfUrl(url);
    if (!denoted) return null;
    const { host } = denoted;
    const found = await this.repository.findWithProjectLive(denoted.svcId);
    if (!found) return null;
    const { link, live } = found;
    if (link.domain !== host && !link.domain.startsWith(`${host}_`)) return null;
    return live && (await this.revealsTarget(link))
      ? { kind: 'hop', url: link.originalUrl }
      : FINAL;
  }

  /**
   * Whether anyone's GET of the link is a redirect to its target, whoever and wherever they are:
   * not disabled, expired or past max_clicks (its human clicks as the analytics store has them,
   * as the redirect counts them), no password, no device or geo rule.
   */
  private async revealsTarget(link: LinkEntity): Promise<boolean> {
    if (link.disabled || link.passwordHash || link.iosUrl || link.androidUrl) return false;
    if (link.geo && Object.keys(link.geo).length > 0) return false;
    if (link.expiresAt && link.expiresAt.getTime() <= Date.now()) return false;
    if (link.maxClicks === null || link.maxClicks === undefined) return true;
    try {
      const clicks = await this.listing.clicks(link.projectId, [link.id], true);
      return (clicks.get(link.id) ?? 0) < link.maxClicks;
    } catch (error) {
      // Without the count, the link is not known to be within it: the crawl ends at it.
      this.logger.warn({ err: (error as Error).message }, 'click count not read for unwrap');
      return false;
    }
  }
}
