import { Global, Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { LinksModule } from '../links/links.module';
import { MailModule } from '../mail/mail.module';
import { ClickEvents } from './click-events';
import { DeliveryLog } from './delivery-log';
import { DeliverySlots } from './delivery-slots';
import { EventOutbox } from './event-outbox';
import { ProjectEvents } from './project-events';
import { WebhookDeliveries } from './webhook-deliveries';
import { WebhookDeliveriesProcessor } from './webhook-deliveries.processor';
import { WebhookHealth } from './webhook-health';
import { WebhookLogPruner } from './webhook-log-pruner';
import { WebhookTargets } from './webhook-targets';

/** What the link services, the clicks worker, conversions and the webhooks API call. */
const EXPORTED = [
  DeliveryLog,
  EventOutbox,
  WebhookTargets,
  ProjectEvents,
  ClickEvents,
  WebhookDeliveries,
];

/**
 * Events on their way out (docs/api.md, "Webhooks and live events"): ProjectEvents, which the link
 * services, the clicks worker and conversions hand their events to, and the delivery of webhooks.
 * Global: those modules do not import this one.
 */
@Global()
@Module({
  imports: [EventsModule, MailModule, LinksModule],
  providers: [
    ...EXPORTED,
    DeliverySlots,
    WebhookHealth,
    WebhookDeliveriesProcessor,
    WebhookLogPruner,
  ],
  exports: EXPORTED,
})
export class WebhookEventsModule {}
