import { Inject, Injectable, Logger } from '@nestjs/common';
import { AnalyticsClient } from '../analytics/analytics-client';

/** How long the job waits for the readers of a horizon at most, then goes on (logged). */
const SETTLE_MAX_MS = 120_000;
/** Between two looks at the running statements. */
const POLL_MS = 25;

/**
 * The statements reading retired horizons (retired-horizon.ts) that run in the analytics store.
 * A statement reads its horizon as it starts and takes each table's parts as it reaches them, so
 * one that read a horizon before a move could take the raw rows after the delete that follows
 * it, or one that read it after the move the rollups before the insert before it. The retention
 * job settles them at those two points: it waits until every statement reading horizons that runs
 * then (system.processes) has ended.
 */
@Injectable()
export class HorizonReaders {
  private readonly logger = new Logger('HorizonReaders');

  constructor(@Inject(AnalyticsClient) private readonly analytics: AnalyticsClient) {}

  /** Waits until the statements reading horizons that run now have ended. */
  async settle(): Promise<void> {
    try {
      let running = await this.running(null);
      const until = Date.now() + SETTLE_MAX_MS;
      while (running.length > 0) {
        if (Date.now() > until) {
          this.logger.warn(`retention: ${running.length} reader(s) of a horizon still running`);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        running = await this.running(running);
      }
    } catch (error) {
      // A store that lists no statements (no access to system.processes) is not waited for.
      this.logger.warn(`retention: the running statements unknown (${String(error)})`);
    }
  }

  /** The ids of the running statements reading horizons (among `among`, when given). */
  private async running(among: string[] | null): Promise<string[]> {
    const rows = await this.analytics.query<{ id: string }>(
      `SELECT query_id AS id FROM system.processes
       WHERE query_id != queryID() AND position(query, {table:String}) > 0
         ${among ? 'AND query_id IN {among:Array(String)}' : ''}`,
      { table: `${this.analytics.database}.retired_horizons`, ...(among ? { among } : {}) },
    );
    return rows.map((row) => row.id);
  }
}
