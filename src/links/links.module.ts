import { Module } from '@nestjs/common';
import { RateLimitModule } from '../common/rate-limit/rate-limit.module';
import { ProjectsModule } from '../projects/projects.module';
import { LinkLookupsService } from './link-lookups.service';
import { LinksController } from './links.controller';
import { LinksRepository } from './links.repository';
import { LinksService } from './links.service';
import { RetweetService } from './retweet.service';
import { UnwrapProcessor } from './unwrap.processor';
import { UnwrapService } from './unwrap.service';

@Module({
  imports: [ProjectsModule, RateLimitModule],
  controllers: [LinksController],
  providers: [
    LinksRepository,
    LinksService,
    LinkLookupsService,
    RetweetService,
    UnwrapService,
    UnwrapProcessor,
  ],
  exports: [LinksService, LinkLookupsService],
})
export class LinksModule {}
