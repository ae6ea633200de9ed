import { Injectable, Optional } from '@nestjs/common';
import { LinkStamps } from '../analytics/link-stamps';
import { BatchDescription, ClickEnricher } from '../enrichment/click-enricher';
import { ClickEvents } from '../webhooks/click-events';
import { ClickBatch, ClickEvent, clickColumns, packClicks } from './click-event';
import { ClickBlocks } from './click-blocks';
import { ClicksRepository } from './clicks.repository';

@Injectable()
export class ClicksService {
  /** Seconds between the newest click ingested and its ingestion (the ingest lag metric). */
  lastIngestLagSeconds = 0;

  /** Where the batches go: blocks of the analytics store's `clicks`. */
  private readonly blocks: ClickBlocks;

  constructor(
    repository: ClicksRepository,
    private readonly stamps: LinkStamps,
    private readonly enricher: ClickEnricher,
    @Optional() private readonly events?: ClickEvents,
  ) {
    this.blocks = new ClickBlocks(repository);
  }

  /**
   * Writes a job's clicks into the analytics store, each click once. Every insert is one block with
   * a token of its click ids, and the store skips a block whose token it has seen. A live batch
   * (its job's first run, with its process's sequence numbers) goes in with the live batches of the
   * same moment (ClickBlocks.add): the same batch twice at once goes in once. A batch that may
   * overlap clicks stored by another block (`resent`: a job retried, or taken up again after its
   * worker died; or clicks carrying full ids: from the spool, the journal, another process or a
   * list) first leaves out the clicks the store holds already, and goes in as a block of its own.
   * Returns how many clicks went to the store (a block the store skipped by its token counts here
   * too).
   */
  async ingest(
    clicks: ClickEvent[] | ClickBatch,
    options: { resent?: boolean } = {},
  ): Promise<number> {
    const packed = Array.isArray(clicks) ? packClicks(clicks) : clicks;
    const columns = clickColumns(packed);
    if (columns.ids.length === 0) return 0;
    // Live batches carry their process's sequence numbers (node + seq): only the same batch again
    // can hold their clicks. Any other batch may overlap stored ones.
    const live = !options.resent && packed.v === 3 && packed.seq !== undefined;
    const indexes = live ? columns.ids.map((_, i) => i) : await this.blocks.unstored(columns);
    let described: BatchDescription | null = null;
    const describe = (): BatchDescription => (described ??= this.enricher.describe(columns));
    if (indexes.length > 0) {
      // Each click is stored with its link's stamp (LinkStamps): range and totals group it without a join.
      const stamps = await this.stamps.of(columns.projects, columns.links);
      // …and its dimensions, each distinct address, user agent and referrer described once.
      await this.enricher.ready(columns.ips);
      const batch = { columns, indexes, stamps, described: describe() };
      await (live ? this.blocks.add(batch) : this.blocks.insertAlone(batch));
    }
    // Every click of the batch, stored now or by an earlier run of it that died before this point:
    // their events are handed over after the clicks are stored, and again when the batch is.
    if (this.events) {
      await this.enricher.ready(columns.ips);
      await this.events.emit(columns, describe);
    }
    let newest = -Infinity;
    for (const at of columns.at) if (at > newest) newest = at;
    this.lastIngestLagSeconds = Math.max(0, (Date.now() - newest) / 1000);
    return indexes.length;
  }
}
