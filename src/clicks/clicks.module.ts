import * as path from 'node:path';
import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { EnrichmentModule } from '../enrichment/enrichment.module';
import { EventsModule } from '../events/events.module';
import { LinksModule } from '../links/links.module';
import { ProjectsModule } from '../projects/projects.module';
import { ClickBuffer } from './click-buffer';
import { ClickEvents } from './click-events';
import { ClickJournal } from './click-journal';
import { ClickRecorder } from './click-recorder';
import { ClickSpool } from './click-spool';
import { ClicksMetrics } from './clicks-metrics';
import { ClicksProcessor } from './clicks.processor';
import { ClicksRepository } from './clicks.repository';
import { ClicksService } from './clicks.service';

/**
 * Click events on their way from the redirects to the analytics store, one stage calling the next
 * (docs/architecture.md, "How a click flows"): ClickRecorder → ClickJournal → ClickBuffer → the
 * `clicks` queue → ClicksProcessor → ClicksService → ClickBlocks → ClicksRepository; ClickEvents
 * publishes the link.clicked events of a stored batch.
 */
@Module({
  imports: [EnrichmentModule, EventsModule, LinksModule, ProjectsModule],
  providers: [
    ClickRecorder,
    {
      provide: ClickJournal,
      inject: [AppConfig, ClickBuffer],
      useFactory: (config: AppConfig, buffer: ClickBuffer) =>
        new ClickJournal(path.join(config.dataDir, 'journal'), buffer),
    },
    ClickBuffer,
    ClickSpool,
    ClicksProcessor,
    ClicksService,
    ClickEvents,
    ClicksRepository,
    ClicksMetrics,
  ],
  exports: [ClickRecorder, ClicksService],
})
export class ClicksModule {}
