import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ClickBatch, ClickEvent, clickColumns } from './click-event';
import { ClicksRepository, isStoredClick, monthsBetween } from './clicks.repository';

@Injectable()
export class ClicksService {
  /** Seconds between the newest click ingested and its ingestion (the ingest lag metric). */
  lastIngestLagSeconds = 0;

  constructor(
    private readonly repository: ClicksRepository,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * Raw clicks and hourly rollups in one transaction; a retried batch changes nothing. Takes a
   * job's batch as it comes (packed columns, never unpacked into objects) or a list of clicks.
   * A batch is first written as new (a plain insert); only when that meets a stored click is it
   * written again with ON CONFLICT, whose speculative insertion costs PostgreSQL a quarter more
   * per click (measured: 6.4 against 4.8 µs) and which new batches, nearly all of them, never need.
   */
  async ingest(clicks: ClickEvent[] | ClickBatch): Promise<number> {
    const batch = clickColumns(clicks);
    if (batch.ids.length === 0) return 0;
    let oldest = Infinity;
    let newest = -Infinity;
    for (const at of batch.at) {
      if (at < oldest) oldest = at;
      if (at > newest) newest = at;
    }
    await this.repository.ensurePartitions(monthsBetween(oldest, newest));
    let count: number;
    try {
      count = await this.dataSource.transaction((manager) => this.repository.ingest(batch, manager, 'new'));
    } catch (error) {
      // Some clicks are stored already: a retried job, or one run twice at once. The transaction
      // rolled back whole; the batch goes in again, skipping what is stored.
      if (!isStoredClick(error)) throw error;
      count = await this.dataSource.transaction((manager) => this.repository.ingest(batch, manager, 'retried'));
    }
    this.lastIngestLagSeconds = Math.max(0, (Date.now() - newest) / 1000);
    return count;
  }
}
