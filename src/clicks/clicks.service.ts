import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ClickBatch, ClickEvent, clickColumns } from './click-event';
import { ClicksRepository, monthsBetween } from './clicks.repository';

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
    const count = await this.dataSource.transaction((manager) => this.repository.ingest(batch, manager));
    this.lastIngestLagSeconds = Math.max(0, (Date.now() - newest) / 1000);
    return count;
  }
}
