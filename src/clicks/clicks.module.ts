import { Module } from '@nestjs/common';
import { ClickBuffer } from './click-buffer';
import { ClicksMetrics } from './clicks-metrics';
import { ClicksProcessor } from './clicks.processor';
import { ClicksRepository } from './clicks.repository';
import { ClicksService } from './clicks.service';

/** Click events: the buffer redirects append to, and the job that writes clicks and rollups. */
@Module({
  providers: [ClickBuffer, ClicksRepository, ClicksService, ClicksProcessor, ClicksMetrics],
  exports: [ClickBuffer, ClicksService],
})
export class ClicksModule {}
