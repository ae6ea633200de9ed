import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { ProjectsModule } from '../projects/projects.module';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { CampaignEntity } from './campaign.entity';
import { ChainMovesProcessor } from './chain-moves.processor';
import { ChainMovesRepository } from './chain-moves.repository';
import { ChainMoves } from './chain-moves.service';
import { LinkImportController } from './import/link-import.controller';
import { LinkImportService } from './import/link-import.service';
import { LinkListController } from './list/link-list.controller';
import { LinkListRepository } from './list/link-list.repository';
import { LinkListService } from './list/link-list.service';
import { LinkLookupsService } from './link-lookups.service';
import { LinkMetadataRepository } from './link-metadata.repository';
import { LinkMetadataService } from './link-metadata.service';
import { LinkParentsService } from './link-parents.service';
import { LinkUpdateService } from './link-update.service';
import { LinkEntity } from './link.entity';
import { LinksController } from './links.controller';
import { LinksRepository } from './links.repository';
import { LinksService } from './links.service';
import { RetweetController } from './retweet/retweet.controller';
import { RetweetService } from './retweet/retweet.service';
import { UnwrapProcessor } from './retweet/unwrap.processor';
import { UnwrapService } from './retweet/unwrap.service';
import { ToolEntity } from './tool.entity';
import { UserIdentityEntity } from './user-identity.entity';

/** Tracked links; other modules read them through LinkLookupsService, the CLI imports through LinkImportService. */
@Module({
  imports: [
    TypeOrmModule.forFeature([LinkEntity, CampaignEntity, ToolEntity, UserIdentityEntity]),
    EventsModule,
    ProjectsModule,
    RateLimitModule,
    SubscriptionsModule,
  ],
  // In this order: the OpenAPI document lists their paths so.
  controllers: [LinksController, RetweetController, LinkListController, LinkImportController],
  providers: [
    LinksRepository,
    LinkMetadataRepository,
    LinksService,
    LinkUpdateService,
    LinkMetadataService,
    LinkParentsService,
    LinkLookupsService,
    RetweetService,
    UnwrapService,
    UnwrapProcessor,
    LinkListService,
    LinkListRepository,
    ChainMovesRepository,
    ChainMoves,
    ChainMovesProcessor,
    LinkImportService,
  ],
  exports: [LinkLookupsService, LinkImportService],
})
export class LinksModule {}
