import { Module } from '@nestjs/common';
import { ConversionsModule } from '../conversions/conversions.module';
import { ProjectsModule } from '../projects/projects.module';
import { HorizonReaders } from './horizon-readers';
import { RetentionRepository } from './retention.repository';
import { RetentionService } from './retention.service';

/**
 * Retention (docs/api.md, "Retention"): the periodic job that retires old raw events into their
 * hourly rollups, where jobs run. Reads the projects' retention through ProjectRetentions and
 * deletes old conversion records through ConversionsRepository.
 */
@Module({
  imports: [ProjectsModule, ConversionsModule],
  providers: [HorizonReaders, RetentionRepository, RetentionService],
  exports: [RetentionService],
})
export class RetentionModule {}
