import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, IsNull, Not, Repository } from 'typeorm';
import { ConnectedDomain, ConnectedDomains } from '../connected-domains/connected-domains';
import { ProjectDomainEntity } from './project-domain.entity';
import { ProjectEntity } from './project.entity';

export type ProjectChanges = Partial<
  Pick<
    ProjectEntity,
    | 'name'
    | 'defaultDomain'
    | 'conversionsEnabled'
    | 'conversionDomains'
    | 'goalLabels'
    | 'settings'
    | 'publishableKey'
    | 'ipStorage'
    | 'uaStorage'
    | 'retentionDays'
  >
>;

/** The few project columns the domains API reads. */
export interface ProjectRef {
  id: string;
  subscriptionId: string;
  name: string;
  apiKey: string;
  defaultDomain: string;
}

const PROJECT_REF_COLUMNS = {
  id: true,
  subscriptionId: true,
  name: true,
  apiKey: true,
  defaultDomain: true,
} as const;

/**
 * Every query on `projects` and `project_domains` (a project's authorisations on connected
 * domains), tables projects/ owns with `users` and `project_users` (ProjectMembersRepository). The
 * connected domains themselves (`domains`, owned by domains/) are read through ConnectedDomains.
 */
@Injectable()
export class ProjectsRepository {
  constructor(
    @InjectRepository(ProjectEntity) private readonly projects: Repository<ProjectEntity>,
    @InjectRepository(ProjectDomainEntity)
    private readonly projectDomains: Repository<ProjectDomainEntity>,
    private readonly connectedDomains: ConnectedDomains,
  ) {}

  /** Live or destroyed: a destroyed key stays unique forever (uq_projects_api_key). */
  findByApiKey(apiKey: string, manager?: EntityManager): Promise<ProjectEntity | null> {
    return this.repo(this.projects, manager).findOneBy({ apiKey });
  }

  /** Uses uq_projects_api_key. */
  findLiveByApiKey(apiKey: string, manager?: EntityManager): Promise<ProjectEntity | null> {
    return this.repo(this.projects, manager).findOneBy({ apiKey, deletedAt: IsNull() });
  }

  /** Uses uq_projects_publishable_key. */
  findLiveByPublishableKey(
    publishableKey: string,
    manager?: EntityManager,
  ): Promise<ProjectEntity | null> {
    return this.repo(this.projects, manager).findOneBy({ publishableKey, deletedAt: IsNull() });
  }

  /** Locks the project row for the rest of the transaction (concurrent updates of one project queue up). */
  lockById(id: string, manager: EntityManager): Promise<ProjectEntity | null> {
    return manager
      .getRepository(ProjectEntity)
      .createQueryBuilder('project')
      .setLock('pessimistic_write')
      .where('project.id = :id', { id })
      .getOne();
  }

  findById(id: string, manager?: EntityManager): Promise<ProjectEntity | null> {
    return this.repo(this.projects, manager).findOneBy({ id });
  }

  /** Uses uq_projects_name_live. */
  findLiveByName(name: string, manager?: EntityManager): Promise<ProjectEntity | null> {
    return this.repo(this.projects, manager).findOneBy({ name, deletedAt: IsNull() });
  }

  /** Uses ix_projects_subscription. */
  listLiveBySubscription(
    subscriptionId: string,
    manager?: EntityManager,
  ): Promise<ProjectEntity[]> {
    return this.repo(this.projects, manager).find({
      where: { subscriptionId, deletedAt: IsNull() },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  insertProject(
    values: Pick<
      ProjectEntity,
      'subscriptionId' | 'name' | 'apiKey' | 'publishableKey' | 'defaultDomain'
    > &
      ProjectChanges,
    manager?: EntityManager,
  ): Promise<ProjectEntity> {
    const repo = this.repo(this.projects, manager);
    return repo.save(repo.create(values));
  }

  /** Writes the changes and bumps updated_at (member and domain changes count as changes too). */
  async updateProject(id: string, changes: ProjectChanges, manager?: EntityManager): Promise<void> {
    await this.repo(this.projects, manager)
      .createQueryBuilder()
      .update(ProjectEntity)
      .set({ ...changes, updatedAt: () => 'now()' })
      .where('id = :id', { id })
      .execute();
  }

  async markDeleted(id: string, manager?: EntityManager): Promise<void> {
    await this.repo(this.projects, manager)
      .createQueryBuilder()
      .update(ProjectEntity)
      .set({ deletedAt: () => 'now()', updatedAt: () => 'now()' })
      .where('id = :id', { id })
      .execute();
  }

  /** Connected domains by hostname, whatever their subscription (uq_domains_hostname). */
  findDomainsByHostnames(hostnames: string[], manager?: EntityManager): Promise<ConnectedDomain[]> {
    if (hostnames.length === 0) return Promise.resolve([]);
    return this.connectedDomains.findByHostnames(hostnames, manager);
  }

  /** The connected domains each project is authorised on, by hostname (pk_project_domains). */
  async listAuthorisedDomains(
    projectIds: string[],
    manager?: EntityManager,
  ): Promise<Map<string, ConnectedDomain[]>> {
    const byProject = new Map<string, ConnectedDomain[]>(projectIds.map((id) => [id, []]));
    if (projectIds.length === 0) return byProject;
    const links = await this.repo(this.projectDomains, manager).findBy({
      projectId: In(projectIds),
    });
    if (links.length === 0) return byProject;
    const domains = await this.connectedDomains.findByIds(
      [...new Set(links.map((link) => link.domainId))],
      manager,
    );
    for (const domain of domains) {
      for (const link of links) {
        if (link.domainId === domain.id) byProject.get(link.projectId)?.push(domain);
      }
    }
    return byProject;
  }

  async addProjectDomains(
    projectId: string,
    domainIds: string[],
    manager?: EntityManager,
  ): Promise<void> {
    await this.insertProjectDomains(
      domainIds.map((domainId) => ({ projectId, domainId })),
      manager,
    );
  }

  async removeProjectDomains(
    projectId: string,
    domainIds: string[] | 'all',
    manager?: EntityManager,
  ): Promise<void> {
    if (domainIds !== 'all' && domainIds.length === 0) return;
    await this.repo(this.projectDomains, manager).delete(
      domainIds === 'all' ? { projectId } : { projectId, domainId: In(domainIds) },
    );
  }

  /** Authorises the projects on the domain (those already authorised stay as they are). */
  async addDomainProjects(
    domainId: string,
    projectIds: string[],
    manager?: EntityManager,
  ): Promise<void> {
    await this.insertProjectDomains(
      projectIds.map((projectId) => ({ projectId, domainId })),
      manager,
    );
  }

  /** Withdraws the projects' authorisations on the domain; 'all' when the domain is disconnected. */
  async removeDomainProjects(
    domainId: string,
    projectIds: string[] | 'all',
    manager?: EntityManager,
  ): Promise<void> {
    if (projectIds !== 'all' && projectIds.length === 0) return;
    await this.repo(this.projectDomains, manager).delete(
      projectIds === 'all' ? { domainId } : { domainId, projectId: In(projectIds) },
    );
  }

  /** domain id → names of the live projects authorised on it, by name. Uses ix_project_domains_domain. */
  async projectNamesByDomain(
    domainIds: string[],
    manager?: EntityManager,
  ): Promise<Map<string, string[]>> {
    const names = new Map<string, string[]>(domainIds.map((id) => [id, []]));
    if (domainIds.length === 0) return names;
    const rows = await this.repo(this.projectDomains, manager)
      .createQueryBuilder('pd')
      .innerJoin(ProjectEntity, 'p', 'p.id = pd.projectId AND p.deletedAt IS NULL')
      .select('pd.domainId', 'domain_id')
      .addSelect('p.name', 'name')
      .where('pd.domainId IN (:...domainIds)', { domainIds })
      .orderBy('p.name', 'ASC')
      .getRawMany<{ domain_id: string; name: string }>();
    for (const row of rows) names.get(row.domain_id)?.push(row.name);
    return names;
  }

  /** Live (not destroyed) projects with these API keys, of any subscription. Uses uq_projects_api_key. */
  async findLiveRefsByApiKeys(apiKeys: string[], manager?: EntityManager): Promise<ProjectRef[]> {
    if (apiKeys.length === 0) return [];
    return this.repo(this.projects, manager).find({
      select: PROJECT_REF_COLUMNS,
      where: { apiKey: In(apiKeys), deletedAt: IsNull() },
    });
  }

  /** The visitor storage settings of these projects, destroyed ones too (pk_projects). */
  findVisitorStorage(
    ids: readonly string[],
  ): Promise<Pick<ProjectEntity, 'id' | 'ipStorage' | 'uaStorage'>[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.projects.find({
      select: { id: true, ipStorage: true, uaStorage: true },
      where: { id: In([...ids]) },
    });
  }

  /**
   * Live projects with their retention_days, by id: every one (`all`, when the instance sets a
   * default), else only those that set it.
   */
  findRetentionDays(all: boolean): Promise<Pick<ProjectEntity, 'id' | 'retentionDays'>[]> {
    return this.projects.find({
      select: { id: true, retentionDays: true },
      where: all ? { deletedAt: IsNull() } : { deletedAt: IsNull(), retentionDays: Not(IsNull()) },
      order: { id: 'ASC' },
    });
  }

  /** Live projects whose default_domain is this hostname, by name (optionally only among some ids). */
  findLiveRefsWithDefaultDomain(
    hostname: string,
    projectIds: string[] | null,
    manager?: EntityManager,
  ): Promise<ProjectRef[]> {
    if (projectIds !== null && projectIds.length === 0) return Promise.resolve([]);
    return this.repo(this.projects, manager).find({
      select: PROJECT_REF_COLUMNS,
      where: {
        defaultDomain: hostname,
        deletedAt: IsNull(),
        ...(projectIds !== null ? { id: In(projectIds) } : {}),
      },
      order: { name: 'ASC' },
    });
  }

  private async insertProjectDomains(
    rows: Pick<ProjectDomainEntity, 'projectId' | 'domainId'>[],
    manager?: EntityManager,
  ): Promise<void> {
    if (rows.length === 0) return;
    await this.repo(this.projectDomains, manager)
      .createQueryBuilder()
      .insert()
      .into(ProjectDomainEntity)
      .values(rows)
      .orIgnore()
      .execute();
  }

  private repo<T extends object>(
    repository: Repository<T>,
    manager?: EntityManager,
  ): Repository<T> {
    return manager ? manager.getRepository<T>(repository.target) : repository;
  }
}
