import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { LinksModule } from '../links/links.module';
import { MailModule } from '../mail/mail.module';
import { ProjectsModule } from '../projects/projects.module';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { DeliveryLog } from './delivery-log';
import { DeliverySlots } from './delivery-slots';
import { ReplayBudget } from './replay-budget';
import { WebhookDeliveries } from './webhook-deliveries';
import { WebhookDeliveriesProcessor } from './webhook-deliveries.processor';
import { WebhookHealth } from './webhook-health';
import { WebhookLogPruner } from './webhook-log-pruner';
import { WebhookSink } from './webhook-sink';
import { WebhookTargets } from './webhook-targets';
import { WebhookEntity } from './webhook.entity';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/**
 * Webhooks: their administration API (docs/api.md, "Administration of webhooks"), and their
 * delivery (docs/api.md, "Webhooks and live events"), a sink of events: WebhookSink subscribes to
 * ProjectEvents (EventsModule) and queues delivery jobs, which WebhookDeliveries runs. Reads
 * projects by API key (ProjectLookupsService) and links by svc_id (LinkLookupsService); exports
 * WebhooksService and the repositories of its three tables.
 */
@Module({
  imports: [
    EventsModule,
    MailModule,
    SubscriptionsModule,
    ProjectsModule,
    LinksModule,
    TypeOrmModule.forFeature([WebhookEntity]),
  ],
  controllers: [WebhooksController],
  providers: [
    WebhooksRepository,
    WebhooksService,
    ReplayBudget,
    WebhookTargets,
    WebhookSink,
    DeliveryLog,
    DeliverySlots,
    WebhookHealth,
    WebhookDeliveries,
    WebhookDeliveriesProcessor,
    WebhookLogPruner,
  ],
  exports: [WebhooksService, TypeOrmModule],
})
export class WebhooksModule {}
