import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AnalyticsClient, chTime } from '../analytics/analytics-client';
import { ClickColumns } from './click-event';
import { ClickRow } from './insert-coalescer';

/**
 * The deduplication token of a batch: a digest of its click ids, in any order. A job retried, run
 * twice at once or sent again from the spool with the same clicks carries the same token, and the
 * analytics store skips it (clicks and their views alike).
 */
export function batchToken(ids: readonly string[]): string {
  const hash = createHash('sha256');
  for (const id of [...ids].sort()) hash.update(id).update(',');
  return `clicks:${ids.length}:${hash.digest('hex')}`;
}

/** Raw clicks in the analytics store (its `clicks` table and, through their views, the rollups). */
@Injectable()
export class ClicksRepository {
  constructor(@Inject(AnalyticsClient) private readonly analytics: AnalyticsClient) {}

  /** The rows of the batch's clicks at `indexes`, as the `clicks` table takes them. */
  rows(batch: ClickColumns, indexes: readonly number[]): ClickRow[] {
    return indexes.map((i) => ({
      project_id: batch.projects[batch.project[i]],
      link_id: batch.links[i],
      clicked_at: chTime(batch.at[i]),
      click_id: batch.ids[i],
      referrer: batch.referrer[i] < 0 ? null : batch.referrers[batch.referrer[i]],
      user_agent: batch.agent[i] < 0 ? null : batch.agents[batch.agent[i]],
      ip: batch.ip[i] < 0 ? null : batch.ips[batch.ip[i]],
      is_bot: batch.bots[i],
    }));
  }

  /** Inserts clicks (one row each) as one block, skipped when the token of their ids was seen. */
  async insert(rows: readonly ClickRow[], ids: readonly string[]): Promise<void> {
    await this.analytics.insert('clicks', rows, { token: batchToken(ids) });
  }

  /**
   * The batch's clicks the store holds already, by id: a read of the batch's links over the batch's
   * time span in `clicks` (its sorting key: project, link, time), the table every other figure is
   * made from. Only batches that may overlap stored clicks ask (retries, and clicks from the spool,
   * the journal or another process).
   */
  async storedIds(batch: ClickColumns): Promise<Set<string>> {
    let from = Infinity;
    let to = -Infinity;
    for (const at of batch.at) {
      if (at < from) from = at;
      if (at > to) to = at;
    }
    const rows = await this.analytics.query<{ id: string }>(
      `SELECT toString(click_id) AS id FROM ${this.analytics.database}.clicks
       WHERE project_id IN {projects:Array(UUID)} AND link_id IN {links:Array(UInt64)}
         AND clicked_at >= {from:DateTime64(3, 'UTC')} AND clicked_at <= {to:DateTime64(3, 'UTC')}
         AND click_id IN {ids:Array(UUID)}`,
      { projects: batch.projects, links: [...new Set(batch.links)].map(Number), from: chTime(from), to: chTime(to), ids: batch.ids },
    );
    return new Set(rows.map((r) => r.id));
  }
}
