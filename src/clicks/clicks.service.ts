import { Injectable } from '@nestjs/common';
import { LinkStamps } from '../analytics/link-stamps';
import { ClickBatch, ClickEvent, clickColumns, packClicks } from './click-event';
import { ClicksRepository } from './clicks.repository';
import { ByteSink, InsertCoalescer, batchKey } from './insert-coalescer';

@Injectable()
export class ClicksService {
  /** Seconds between the newest click ingested and its ingestion (the ingest lag metric). */
  lastIngestLagSeconds = 0;

  /** Live batches, inserted together under load (one block a few times a second). */
  private readonly live: InsertCoalescer;

  constructor(
    private readonly repository: ClicksRepository,
    private readonly stamps: LinkStamps,
  ) {
    this.live = new InsertCoalescer((bytes, batches) => this.repository.insert(bytes, batches));
  }

  /**
   * Writes a job's clicks into the analytics store, each click once. Every insert is one block with
   * a token of its click ids, and the store skips a block whose token it has seen. A live batch
   * (its job's first run, with its process's sequence numbers) goes in with the live batches of the
   * same moment (InsertCoalescer): the same batch twice at once goes in once. A
   * batch that may overlap clicks stored by another block (`resent`: a job retried, or taken up
   * again after its worker died; or clicks carrying full ids: from the spool, the journal, another
   * process or a list) first leaves out the clicks the store holds already, and goes in as a block
   * of its own. Returns how many clicks went to the store (a block the store skipped by its token
   * counts here too).
   */
  async ingest(clicks: ClickEvent[] | ClickBatch, options: { resent?: boolean } = {}): Promise<number> {
    const packed = Array.isArray(clicks) ? packClicks(clicks) : clicks;
    const batch = clickColumns(packed);
    if (batch.ids.length === 0) return 0;
    let indexes = batch.ids.map((_, i) => i);
    // Live batches carry their process's sequence numbers (node + seq): only the same batch again
    // can hold their clicks. Any other batch may overlap stored ones.
    const sequenced = 'v' in packed && packed.v === 3 && packed.seq !== undefined;
    // Each click is stored with its link's stamp (LinkStamps): range and totals group it without a join.
    const stamps = () => this.stamps.of(batch.projects, batch.links);
    if (options.resent || !sequenced) {
      const stored = await this.repository.storedIds(batch);
      indexes = indexes.filter((i) => !stored.has(batch.ids[i]));
      if (indexes.length > 0) {
        const linkStamps = await stamps();
        const sink = new ByteSink();
        const encoded = this.repository.encode(batch, indexes, linkStamps, sink);
        await this.repository.insert(sink.bytes, [encoded]);
      }
    } else {
      const linkStamps = await stamps();
      await this.live.add({ key: batchKey(batch.ids), encode: (sink) => this.repository.encode(batch, indexes, linkStamps, sink) });
    }
    let newest = -Infinity;
    for (const at of batch.at) if (at > newest) newest = at;
    this.lastIngestLagSeconds = Math.max(0, (Date.now() - newest) / 1000);
    return indexes.length;
  }
}
