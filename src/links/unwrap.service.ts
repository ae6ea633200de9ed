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
      this.logger.warn({ url, err: (error as Error).message }, 'unwrap failed; the link keeps the URL as given');
      return url;
    }
  }

  /**
   * The processor's work: links of this service resolve from the database without a request (and
   * are followed when they point at another of our links); other URLs are crawled SSRF-safely.
   */
  async resolve(url: string): Promise<UnwrapResult> {
    let current = url;
    for (let hop = 0; hop < 10; hop++) {
      const link = await this.findServiceLink(current);
      if (!link) break;
      current = link;
    }
    if (current !== url) return { url: current };
    try {
      const result = await crawl(current, {
        allowLoopback: this.config.crawlerAllowLoopback,
        readBody: false,
      });
      return { url: result.url };
    } catch (error) {
      if (error instanceof CrawlError) return { url: current };
      throw error;
    }
  }

  private async findServiceLink(url: string): Promise<string | null> {
    const denoted = svcIdOfUrl(url);
    if (!denoted) return null;
    const { host } = denoted;
    const link = await this.repository.findBySvcId(denoted.svcId);
    return link && (link.domain === host || link.domain.startsWith(`${host}_`)) ? link.originalUrl : null;
  }
}
