import { Module } from '@nestjs/common';
import { LinksModule } from '../links/links.module';
import { ProjectsModule } from '../projects/projects.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { ExportController } from './export.controller';
import { ExportRepository } from './export.repository';
import { ExportService } from './export.service';

/** The exports of a project's events and links (docs/api.md, "Export"). */
@Module({
  imports: [ProjectsModule, LinksModule, RateLimitModule],
  controllers: [ExportController],
  providers: [ExportRepository, ExportService],
})
export class ExportModule {}
