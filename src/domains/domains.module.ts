import { Module } from '@nestjs/common';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { DomainsController } from './domains.controller';
import { DomainsRepository } from './domains.repository';
import { DomainsService } from './domains.service';

/** Custom link domains: the administration API, and domain look-up for links and redirects. */
@Module({
  imports: [SubscriptionsModule],
  controllers: [DomainsController],
  providers: [DomainsRepository, DomainsService],
  exports: [DomainsService],
})
export class DomainsModule {}
