import { Injectable } from '@nestjs/common';
import { ClickBatch, ClickEvent, clickColumns, packClicks } from './click-event';
import { ClicksRepository, batchToken } from './clicks.repository';

@Injectable()
export class ClicksService {
  /** Seconds between the newest click ingested and its ingestion (the ingest lag metric). */
  lastIngestLagSeconds = 0;

  constructor(private readonly repository: ClicksRepository) {}

  /**
   * Writes a job's clicks into the analytics store, each click once. A batch goes in as one block
   * with a token of its click ids, so the same batch again (a job run twice at once, or retried
   * after an insert that did land) is skipped by the store. A batch that may overlap clicks stored
   * by another batch (`resent`: a retried job; or clicks carrying full ids: from the spool, another
   * process or a list) first leaves out the clicks the store holds already. Returns how many clicks
   * went to the store (a batch the store skipped by its token counts here too).
   */
  async ingest(clicks: ClickEvent[] | ClickBatch, options: { resent?: boolean } = {}): Promise<number> {
    const packed = Array.isArray(clicks) ? packClicks(clicks) : clicks;
    const batch = clickColumns(packed);
    if (batch.ids.length === 0) return 0;
    let indexes = batch.ids.map((_, i) => i);
    // Live batches carry their process's sequence numbers (node + seq): only the same batch again
    // can hold their clicks. Any other batch may overlap stored ones.
    const sequenced = 'v' in packed && packed.v === 3 && packed.seq !== undefined;
    if (options.resent || !sequenced) {
      const stored = await this.repository.storedIds(batch);
      indexes = indexes.filter((i) => !stored.has(batch.ids[i]));
    }
    if (indexes.length > 0) await this.repository.insert(batch, indexes, batchToken(indexes.map((i) => batch.ids[i])));
    let newest = -Infinity;
    for (const at of batch.at) if (at > newest) newest = at;
    this.lastIngestLagSeconds = Math.max(0, (Date.now() - newest) / 1000);
    return indexes.length;
  }
}
