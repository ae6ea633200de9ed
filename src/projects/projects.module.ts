import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConnectedDomainsModule } from '../connected-domains/connected-domains.module';
import { MailModule } from '../mail/mail.module';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { ProjectDomainsService } from './project-domains.service';
import { ProjectLookupsService } from './project-lookups.service';
import { ProjectMembersService } from './project-members.service';
import { ProjectDomainEntity } from './project-domain.entity';
import { ProjectUserEntity } from './project-user.entity';
import { ProjectEntity } from './project.entity';
import { UserEntity } from './user.entity';
import { ProjectsController } from './projects.controller';
import { ProjectMembersRepository } from './project-members.repository';
import { ProjectsRepository } from './projects.repository';
import { ProjectsService } from './projects.service';
import { VisitorStorageService } from './visitor-storage.service';
import { ProjectRetentions } from './project-retentions.service';

/**
 * Projects administration; exports ProjectLookupsService, which ProjectKeyGuard (applied with
 * @ProjectKeyAuth() in the modules that import this one) and links read projects through, and
 * ProjectDomainsService, which domains reads projects and writes their authorisations through,
 * and VisitorStorageService, which the clicks worker reads each project's ip_storage and ua_storage
 * through, and ProjectRetentions, which the retention job reads each project's retention through.
 * It reads connected domains through ConnectedDomains (ConnectedDomainsModule, which owns them).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([ProjectEntity, UserEntity, ProjectUserEntity, ProjectDomainEntity]),
    SubscriptionsModule,
    ConnectedDomainsModule,
    MailModule,
  ],
  controllers: [ProjectsController],
  providers: [
    ProjectsRepository,
    ProjectMembersRepository,
    ProjectsService,
    ProjectMembersService,
    ProjectLookupsService,
    ProjectDomainsService,
    VisitorStorageService,
    ProjectRetentions,
  ],
  exports: [ProjectLookupsService, ProjectDomainsService, VisitorStorageService, ProjectRetentions],
})
export class ProjectsModule {}
