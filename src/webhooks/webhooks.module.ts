import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LinksModule } from '../links/links.module';
import { ProjectsModule } from '../projects/projects.module';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { ReplayBudget } from './replay-budget';
import { WebhookEntity } from './webhook.entity';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/**
 * Webhooks: their administration API (docs/api.md, "Administration of webhooks"). Reads projects by
 * API key (ProjectLookupsService) and links by svc_id (LinkLookupsService); exports WebhooksService
 * and the repositories of its three tables.
 */
@Module({
  imports: [
    SubscriptionsModule,
    ProjectsModule,
    LinksModule,
    TypeOrmModule.forFeature([WebhookEntity]),
  ],
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhooksService, ReplayBudget],
  exports: [WebhooksService, TypeOrmModule],
})
export class WebhooksModule {}
