import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, IsNull, QueryFailedError, Repository } from 'typeorm';
import { ProjectEntity } from '../projects/project.entity';
import { DomainEntity } from './domain.entity';
import { ProjectDomainEntity } from './project-domain.entity';

/** The few project columns the domains API reads (the projects table is owned by projects/). */
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

const HOST_LOCK = 7_361_246;

/** Every query on `domains` and `project_domains`, and the reads of `projects` they need. */
@Injectable()
export class DomainsRepository {
  constructor(
    @InjectRepository(DomainEntity) private readonly domains: Repository<DomainEntity>,
    @InjectRepository(ProjectDomainEntity)
    private readonly projectDomains: Repository<ProjectDomainEntity>,
    @InjectRepository(ProjectEntity) private readonly projects: Repository<ProjectEntity>,
  ) {}

  /** Uses uq_domains_hostname. */
  findByHostname(hostname: string, manager?: EntityManager): Promise<DomainEntity | null> {
    return this.domainRepo(manager).findOneBy({ hostname });
  }

  /** The row locked until the transaction ends (update and destroy serialise on it). */
  findByHostnameForUpdate(hostname: string, manager: EntityManager): Promise<DomainEntity | null> {
    return manager
      .getRepository(DomainEntity)
      .createQueryBuilder('d')
      .setLock('pessimistic_write')
      .where('d.hostname = :hostname', { hostname })
      .getOne();
  }

  /**
   * The domains on one host: `host` itself and every `host_segment`. A rare admin write: the
   * prefix test scans domains (uq_domains_hostname serves only the equality).
   */
  listByHost(host: string, manager?: EntityManager): Promise<DomainEntity[]> {
    return this.domainRepo(manager)
      .createQueryBuilder('d')
      .where('d.hostname = :host OR starts_with(d.hostname, :prefix)', { host, prefix: `${host}_` })
      .getMany();
  }

  /** Uses ix_domains_subscription. */
  listBySubscription(subscriptionId: string): Promise<DomainEntity[]> {
    return this.domains.find({ where: { subscriptionId }, order: { hostname: 'ASC' } });
  }

  /** domain id → names of the live projects authorised on it, by name. Uses ix_project_domains_domain. */
  async projectNamesByDomain(
    domainIds: string[],
    manager?: EntityManager,
  ): Promise<Map<string, string[]>> {
    const names = new Map<string, string[]>(domainIds.map((id) => [id, []]));
    if (domainIds.length === 0) return names;
    const rows = await this.projectDomainRepo(manager)
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
  async findLiveProjectsByApiKeys(
    apiKeys: string[],
    manager?: EntityManager,
  ): Promise<ProjectRef[]> {
    if (apiKeys.length === 0) return [];
    return this.projectRepo(manager).find({
      select: PROJECT_REF_COLUMNS,
      where: { apiKey: In(apiKeys), deletedAt: IsNull() },
    });
  }

  /** Live projects whose default_domain is this hostname, by name (optionally only among some ids). */
  findLiveProjectsWithDefaultDomain(
    hostname: string,
    projectIds: string[] | null,
    manager?: EntityManager,
  ): Promise<ProjectRef[]> {
    if (projectIds !== null && projectIds.length === 0) return Promise.resolve([]);
    return this.projectRepo(manager).find({
      select: PROJECT_REF_COLUMNS,
      where: {
        defaultDomain: hostname,
        deletedAt: IsNull(),
        ...(projectIds !== null ? { id: In(projectIds) } : {}),
      },
      order: { name: 'ASC' },
    });
  }

  /**
   * Serialises connections on one host until the transaction ends, so that two subscriptions
   * cannot connect `host` and `host_segment` at the same time.
   */
  async lockHost(host: string, manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [HOST_LOCK, host]);
  }

  /** The new domain, or null when the hostname is already connected (uq_domains_hostname). */
  async insertDomain(
    values: Pick<DomainEntity, 'subscriptionId' | 'hostname' | 'rootRedirect' | 'notFoundRedirect'>,
    manager: EntityManager,
  ): Promise<DomainEntity | null> {
    const repo = manager.getRepository(DomainEntity);
    try {
      return await repo.save(repo.create(values));
    } catch (error) {
      if (isUniqueViolation(error, 'uq_domains_hostname')) return null;
      throw error;
    }
  }

  /** Changes the given redirects and always touches updated_at. */
  async updateDomain(
    id: string,
    changes: Partial<Pick<DomainEntity, 'rootRedirect' | 'notFoundRedirect'>>,
    manager: EntityManager,
  ): Promise<void> {
    await manager
      .getRepository(DomainEntity)
      .createQueryBuilder()
      .update()
      .set({ ...changes, updatedAt: () => 'now()' })
      .where('id = :id', { id })
      .execute();
  }

  async addProjects(domainId: string, projectIds: string[], manager: EntityManager): Promise<void> {
    if (projectIds.length === 0) return;
    await manager
      .createQueryBuilder()
      .insert()
      .into(ProjectDomainEntity)
      .values(projectIds.map((projectId) => ({ projectId, domainId })))
      .orIgnore()
      .execute();
  }

  async removeProjects(
    domainId: string,
    projectIds: string[],
    manager: EntityManager,
  ): Promise<void> {
    if (projectIds.length === 0) return;
    await manager
      .getRepository(ProjectDomainEntity)
      .delete({ domainId, projectId: In(projectIds) });
  }

  /** Deletes the domain and its project authorisations. */
  async deleteDomain(id: string, manager: EntityManager): Promise<void> {
    await manager.getRepository(ProjectDomainEntity).delete({ domainId: id });
    await manager.getRepository(DomainEntity).delete({ id });
  }

  private domainRepo(manager?: EntityManager): Repository<DomainEntity> {
    return manager ? manager.getRepository(DomainEntity) : this.domains;
  }

  private projectDomainRepo(manager?: EntityManager): Repository<ProjectDomainEntity> {
    return manager ? manager.getRepository(ProjectDomainEntity) : this.projectDomains;
  }

  private projectRepo(manager?: EntityManager): Repository<ProjectEntity> {
    return manager ? manager.getRepository(ProjectEntity) : this.projects;
  }
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string } | undefined;
  return driverError?.code === '23505' && driverError.constraint === constraint;
}
