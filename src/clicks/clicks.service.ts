import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ClickEvent } from './click-event';
import { ClicksRepository, monthOf } from './clicks.repository';

@Injectable()
export class ClicksService {
  /** Seconds between the newest click ingested and its ingestion (the ingest lag metric). */
  lastIngestLagSeconds = 0;

  constructor(
    private readonly repository: ClicksRepository,
    private readonly dataSource: DataSource,
  ) {}

  /** Raw clicks and hourly rollups in one transaction; a retried batch changes nothing. */
  async ingest(clicks: ClickEvent[]): Promise<number> {
    if (clicks.length === 0) return 0;
    await this.repository.ensurePartitions(clicks.map((c) => monthOf(c.clickedAt)));
    const count = await this.dataSource.transaction((manager) => this.repository.ingest(clicks, manager));
    const newest = Math.max(...clicks.map((c) => Date.parse(c.clickedAt)));
    this.lastIngestLagSeconds = Math.max(0, (Date.now() - newest) / 1000);
    return count;
  }
}
