import { CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A project's authorisation to create links on a connected domain. */
@Entity('project_domains')
export class ProjectDomainEntity {
  @PrimaryColumn('uuid')
  projectId: string;

  @PrimaryColumn('uuid')
  domainId: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
