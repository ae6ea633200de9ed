import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { AnalyticsClient, messageOf } from './analytics-client';
import { STAMP_TTL_MS } from './link-stamps';
import { countStampStateWrite } from './stamp-state';

/**
 * How old an update must be before it is settled: well past the minute a process reuses a stamp
 * read before it (STAMP_TTL_MS) and any insert under way then, so no event with the earlier
 * version can still arrive. A job retried later reads its stamps again.
 */
export const SETTLE_AFTER_MS = 5 * STAMP_TTL_MS;
/** How often a worker settles updates. */
export const SETTLE_EVERY_MS = 60_000;
/** Updates checked per statement. */
const SETTLE_BATCH = 50_000;

/**
 * The events' tables, raw and retired (docs/architecture.md, "Retention": the retired rollups
 * keep their events' stamps, so an update stays listed while they hold another version).
 */
const RETIRABLE = ['clicks', 'conversions', 'clicks_retired', 'conversions_retired'];

/** An update as settling reads it: project, link id and version, as strings. */
interface Candidate {
  project: string;
  link: string;
  at: string;
}

/**
 * Keeps `link_updates` to the updates that matter. Every update of a link lists it there, and range
 * and totals test each event of a listed link against its latest version; once no event of the
 * link carries another version (the usual case: a link updated before its clicks), the update is
 * deleted (a lightweight DELETE of that version) and its events are grouped by their stamps again.
 * A process that runs the workers settles every minute; settling twice is harmless.
 */
@Injectable()
export class LinkUpdates implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(LinkUpdates.name);
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(AnalyticsClient) private readonly analytics: AnalyticsClient,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.runsWorkers) return;
    this.timer = setInterval(() => {
      this.settle().catch((error: unknown) =>
        this.logger.warn(`settling link updates failed: ${messageOf(error)}`),
      );
    }, SETTLE_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Settles the updates older than `settleAfterMs` whose links have no click or conversion of
   * another version: the list in key order, `batch` updates at a time, each batch a read of those
   * links' key ranges of `clicks` and `conversions`. Returns how many it settled.
   */
  async settle(settleAfterMs = SETTLE_AFTER_MS, batch = SETTLE_BATCH): Promise<number> {
    // The version is the update's time in µs (LinkMirror).
    const before = Math.max(0, Date.now() - settleAfterMs) * 1000;
    let after: { project: string; link: string } | null = null;
    let settled = 0;
    for (;;) {
      const candidates: Candidate[] = await this.analytics.query<Candidate>(
        `SELECT toString(project_id) AS project, toString(link_id) AS link, toString(version) AS at
         FROM ${this.analytics.database}.link_updates FINAL
         WHERE version <= {before:UInt64} ${after ? 'AND (project_id, link_id) > ({project:UUID}, {link:UInt64})' : ''}
         ORDER BY project_id, link_id LIMIT {batch:UInt64}`,
        { before, batch, ...(after ? { project: after.project, link: Number(after.link) } : {}) },
      );
      if (candidates.length === 0) break;
      settled += await this.settleBatch(candidates);
      if (candidates.length < batch) break;
      after = candidates[candidates.length - 1];
    }
    return settled;
  }

  private async settleBatch(candidates: Candidate[]): Promise<number> {
    const db = this.analytics.database;
    // Numbers: a string in an Array(UInt64) parameter would be quoted. Ids and µs times fit in 2^53.
    const paramsOf = (updates: Candidate[]) => ({
      projects: [...new Set(updates.map((c) => c.project))],
      links: updates.map((c) => Number(c.link)),
      versions: updates.map((c) => Number(c.at)),
    });
    const outdatedIn = (table: string) =>
      `SELECT DISTINCT link_id FROM ${db}.${table}
       WHERE project_id IN {projects:Array(UUID)} AND link_id IN {links:Array(UInt64)}
         AND link_version != transform(link_id, {links:Array(UInt64)}, {versions:Array(UInt64)}, toUInt64(0))`;
    const outdated = new Set(
      (
        await this.analytics.query<{ link: string }>(
          `SELECT DISTINCT toString(link_id) AS link FROM (${RETIRABLE.map(outdatedIn).join(' UNION ALL ')})`,
          paramsOf(candidates),
        )
      ).map((row) => row.link),
    );
    const settled = candidates.filter((c) => !outdated.has(c.link));
    if (settled.length === 0) return 0;
    // That version of each link and the earlier ones not merged away yet: an update made meanwhile
    // stays. A settled update changes its project's stamp state (stamp-state.ts).
    await countStampStateWrite(
      this.analytics,
      this.analytics.command(
        `DELETE FROM ${db}.link_updates
         WHERE project_id IN {projects:Array(UUID)} AND link_id IN {links:Array(UInt64)}
           AND version <= transform(link_id, {links:Array(UInt64)}, {versions:Array(UInt64)}, toUInt64(0))`,
        paramsOf(settled),
      ),
    );
    return settled.length;
  }
}
