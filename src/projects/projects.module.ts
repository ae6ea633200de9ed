import { Module } from '@nestjs/common';
import { MailModule } from '../mail/mail.module';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { ProjectLookupsService } from './project-lookups.service';
import { ProjectMembersService } from './project-members.service';
import { ProjectsController } from './projects.controller';
import { ProjectsRepository } from './projects.repository';
import { ProjectsService } from './projects.service';

/**
 * Projects administration; exports ProjectLookupsService, which ProjectKeyGuard (applied with
 * @ProjectKeyAuth() in the modules that import this one) and links read projects through.
 */
@Module({
  imports: [SubscriptionsModule, MailModule],
  controllers: [ProjectsController],
  providers: [ProjectsRepository, ProjectsService, ProjectMembersService, ProjectLookupsService],
  exports: [ProjectLookupsService],
})
export class ProjectsModule {}
