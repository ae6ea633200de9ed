import { Injectable } from '@nestjs/common';
import { ClickBatch, ClickEvent, clickColumns } from './click-event';
import { ClicksRepository, batchToken } from './clicks.repository';

@Injectable()
export class ClicksService {
  /** Seconds between the newest click ingested and its ingestion (the ingest lag metric). */
  lastIngestLagSeconds = 0;

  constructor(private readonly repository: ClicksRepository) {}

  /**
   * Writes a job's clicks into the analytics store, exactly once. A batch goes in as one block with
   * a token of its click ids, so the same batch again (a job run twice at once, or retried after an
   * insert that did land) is skipped by the store. A batch that may overlap clicks stored by another
   * batch (`resent`: a retry, or clicks that come back from the spool in other company) first drops
   * the clicks the store holds already. Returns how many clicks the batch holds.
   */
  async ingest(clicks: ClickEvent[] | ClickBatch, options: { resent?: boolean } = {}): Promise<number> {
    const batch = clickColumns(clicks);
    if (batch.ids.length === 0) return 0;
    let indexes = batch.ids.map((_, i) => i);
    // Clicks of another process (full ids: the spool) may have gone out before in another batch.
    if (options.resent || !Array.isArray(clicks) && 'ids' in clicks && clicks.ids !== undefined) {
      const stored = await this.repository.storedIds(batch);
      indexes = indexes.filter((i) => !stored.has(batch.ids[i]));
    }
    if (indexes.length > 0) await this.repository.insert(batch, indexes, batchToken(indexes.map((i) => batch.ids[i])));
    let newest = -Infinity;
    for (const at of batch.at) if (at > newest) newest = at;
    this.lastIngestLagSeconds = Math.max(0, (Date.now() - newest) / 1000);
    return batch.ids.length;
  }
}
