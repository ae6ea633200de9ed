import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConnectedDomains } from '../projects/connected-domains';
import { ProjectsModule } from '../projects/projects.module';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { DomainEntity } from './domain.entity';
import { DomainsController } from './domains.controller';
import { DomainsRepository } from './domains.repository';
import { DomainsService } from './domains.service';

/**
 * Custom link domains: the administration API, and domain look-up for links and redirects. Domains
 * depends on projects (ProjectDomainsService for the projects a domain names and their
 * authorisations); projects reads connected domains through its ConnectedDomains, which this module
 * provides and, being global, makes visible to ProjectsModule without projects importing domains.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([DomainEntity]), SubscriptionsModule, ProjectsModule],
  controllers: [DomainsController],
  providers: [
    DomainsRepository,
    DomainsService,
    { provide: ConnectedDomains, useExisting: DomainsRepository },
  ],
  exports: [DomainsService, ConnectedDomains],
})
export class DomainsModule {}
