import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LinkEntity } from '../links/link.entity';
import { ProjectsModule } from '../projects/projects.module';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { ErasureAnalytics } from './erasure-analytics';
import { ErasureController } from './erasure.controller';
import { ErasureRepository } from './erasure.repository';
import { ErasureService } from './erasure.service';

/**
 * Erasure of a visitor's or a sharer's personal data (docs/api.md, "Erasure"): the endpoint, the
 * statements of both stores and the audit (`erasures`).
 */
@Module({
  imports: [TypeOrmModule.forFeature([LinkEntity]), ProjectsModule, SubscriptionsModule],
  controllers: [ErasureController],
  providers: [ErasureRepository, ErasureAnalytics, ErasureService],
})
export class ErasureModule {}
