import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConnectedDomains } from './connected-domains';
import { DomainEntity } from './domain.entity';
import { DomainsRepository } from './domains.repository';

/**
 * The `domains` table and its one repository (docs/architecture.md, "Table owners"), below both of
 * its readers: projects reads connected domains through ConnectedDomains, and the domains
 * administration (domains/), which also writes projects' authorisations, through DomainsRepository.
 */
@Module({
  imports: [TypeOrmModule.forFeature([DomainEntity])],
  providers: [DomainsRepository, { provide: ConnectedDomains, useExisting: DomainsRepository }],
  exports: [DomainsRepository, ConnectedDomains],
})
export class ConnectedDomainsModule {}
