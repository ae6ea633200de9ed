import { Injectable, Optional } from '@nestjs/common';
import { LinkStamps } from '../analytics/link-stamps';
import { BatchDescription, ClickEnricher } from '../enrichment/click-enricher';
import { VisitorStorageService } from '../projects/visitor-storage.service';
import { ClickBatch, ClickEvent, clickColumns, packClicks } from './click-event';
import { ClickBlocks } from './click-blocks';
import { ClickEvents } from './click-events';
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
    @Optional() private readonly storage?: VisitorStorageService,
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
    await this.enricher.ready(columns.ips);
    // Every click of the batch, stored by this run or by an earlier one that died before its end,
    // has its events handed over while the block is written (the block may wait up to a second
    // for others): the job ends once both are done, so a run cut short does both again.
    const events = this.events?.emit(columns, describe);
    // Settled here when the store fails first (the job fails with the store's error).
    events?.catch(() => undefined);
    if (indexes.length > 0) {
      // Each click is stored with its link's stamp (LinkStamps): range and totals group it without a
      // join, and with its dimensions, each distinct address, user agent and referrer described once;
      // then its address and user agent only as its project keeps them (docs/api.md, "Addresses").
      const stamps = await this.stamps.of(columns.projects, columns.links);
      const storage = await this.storage?.of(columns.projects);
      const batch = { columns, indexes, stamps, described: describe(), storage };
      await (live ? this.blocks.add(batch) : this.blocks.insertAlone(batch));
    }
    await events;
    let newest = -Infinity;
    for (const at of columns.at) if (at > newest) newest = at;
    this.lastIngestLagSeconds = Math.max(0, (Date.now() - newest) / 1000);
    return indexes.length;
  }
}
