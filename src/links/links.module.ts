import { Module } from '@nestjs/common';
import { RateLimitModule } from '../common/rate-limit/rate-limit.module';
import { ProjectsModule } from '../projects/projects.module';
import { LinksController } from './links.controller';
import { LinksRepository } from './links.repository';
import { LinksService } from './links.service';

@Module({
  imports: [ProjectsModule, RateLimitModule],
  controllers: [LinksController],
  providers: [LinksRepository, LinksService],
  exports: [LinksService],
})
export class LinksModule {}
