import { Module } from '@nestjs/common';
import { ConnectedDomainsModule } from '../connected-domains/connected-domains.module';
import { ProjectsModule } from '../projects/projects.module';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { DomainsController } from './domains.controller';
import { DomainsService } from './domains.service';

/**
 * Custom link domains: the administration API. The `domains` table is ConnectedDomainsModule's,
 * below projects, which reads connected domains from it; this module writes domains there and
 * projects' authorisations through ProjectDomainsService.
 */
@Module({
  imports: [ConnectedDomainsModule, SubscriptionsModule, ProjectsModule],
  controllers: [DomainsController],
  providers: [DomainsService],
  exports: [DomainsService],
})
export class DomainsModule {}
