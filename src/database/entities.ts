import { DomainEntity } from '../domains/domain.entity';
import { CampaignEntity } from '../links/campaign.entity';
import { LinkEntity } from '../links/link.entity';
import { ToolEntity } from '../links/tool.entity';
import { UserIdentityEntity } from '../links/user-identity.entity';
import { ProjectDomainEntity } from '../projects/project-domain.entity';
import { ProjectUserEntity } from '../projects/project-user.entity';
import { ProjectEntity } from '../projects/project.entity';
import { UserEntity } from '../projects/user.entity';
import { PendingJobEntity } from '../queue/pending-job.entity';
import { ApplicationEntity } from '../subscriptions/application.entity';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import { WebhookEntity } from '../webhooks/webhook.entity';

/** Every entity; feature issues append theirs here. */
export const ENTITIES = [
  SubscriptionEntity,
  ApplicationEntity,
  ProjectEntity,
  UserEntity,
  ProjectUserEntity,
  DomainEntity,
  ProjectDomainEntity,
  LinkEntity,
  CampaignEntity,
  ToolEntity,
  UserIdentityEntity,
  WebhookEntity,
  PendingJobEntity,
];
