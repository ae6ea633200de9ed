import { ChainService } from './chain.service';
import { Module } from '@nestjs/common';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { LinksModule } from '../links/links.module';
import { ProjectsModule } from '../projects/projects.module';
import { StampStates } from './stamp-states';
import { StatsController } from './stats.controller';
import { StatsRepository } from './stats.repository';
import { LinkDetailsService } from './link-details.service';
import { LinkIntervalsService } from './link-intervals.service';
import { RangeIntervalsService } from './range-intervals.service';
import { RangeTotalsService } from './range-totals.service';

@Module({
  imports: [ProjectsModule, LinksModule, RateLimitModule],
  controllers: [StatsController],
  providers: [
    StatsRepository,
    StampStates,
    RangeTotalsService,
    RangeIntervalsService,
    LinkDetailsService,
    LinkIntervalsService,
    ChainService,
  ],
})
export class StatsModule {}
