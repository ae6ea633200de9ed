import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { CrawlError, crawl } from '../crawler/crawler';
import { JobQueue } from '../queue/job-queue';
import { QUEUES } from '../queue/queue-names';
import { svcIdOfUrl } from './link-path';
import { LinksRepository } from './links.repository';

export interface UnwrapJob {
  url: string;
}

export interface UnwrapResult {
  url: string;
}

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
   * from there. When the crawl fails, the URL is the one given, or the stored URL of the last link
   * of this service passed (docs/api.md, unwrap).
   */
  async resolve(url: string): Promise<UnwrapResult> {
    let reached = url;
    try {
      const result = await crawl(url, {
        allowLoopback: this.config.crawlerAllowLoopback,
        readBody: false,
        localHop: async (hop) => {
          const stored = await this.findServiceLink(hop);
          if (stored !== null) reached = stored;
          return stored;
        },
      });
      return { url: result.url };
    } catch (error) {
      if (error instanceof CrawlError) return { url: reached };
      throw error;
    }
  }

  private async findServiceLink(url: string): Promise<string | null> {
    const denoted = svcIdOfUrl(url);
    if (!denoted) return null;
    const { host } = denoted;
    const link = await this.repository.findBySvcId(denoted.svcId);
    return link && (link.domain === host || link.domain.startsWith(`${host}_`))
      ? link.originalUrl
      : null;
  }
}
