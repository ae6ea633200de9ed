import { CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A project's authorisation to create links on a connected domain. The table is owned by
 * projects/: ProjectsRepository runs every query on it, for the projects API and, through
 * ProjectDomainsService, for the domains API.
 */
@Entity('project_domains')
export class ProjectDomainEntity {
  @PrimaryColumn('uuid')
  projectId: string;

  @PrimaryColumn('uuid')
  domainId: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
