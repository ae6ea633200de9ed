import { ChainService } from './chain.service';
import { Module } from '@nestjs/common';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { LinksModule } from '../links/links.module';
import { ProjectsModule } from '../projects/projects.module';
import { StampStates } from './stamp-states';
import { StatsController } from './stats.controller';
import { StatsRepository } from './stats.repository';
import { StatsService } from './stats.service';

@Module({
  imports: [ProjectsModule, LinksModule, RateLimitModule],
  controllers: [StatsController],
  providers: [StatsRepository, StampStates, StatsService, ChainService],
  exports: [StatsService],
})
export class StatsModule {}
