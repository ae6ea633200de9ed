import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, QueryFailedError, Repository } from 'typeorm';
import { ConnectedDomains } from './connected-domains';
import { DomainEntity } from './domain.entity';

const HOST_LOCK = 7_361_246;

/**
 * Every query on `domains`, the table connected-domains/ owns; also the ConnectedDomains projects
 * reads. The projects a domain names and their authorisations on it (`projects`,
 * `project_domains`, owned by projects/) go through ProjectDomainsService.
 */
@Injectable()
export class DomainsRepository implements ConnectedDomains {
  constructor(@InjectRepository(DomainEntity) private readonly domains: Repository<DomainEntity>) {}

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

  /** Connected domains by hostname, whatever their subscription (uq_domains_hostname). */
  findByHostnames(hostnames: string[], manager?: EntityManager): Promise<DomainEntity[]> {
    if (hostnames.length === 0) return Promise.resolve([]);
    return this.domainRepo(manager).findBy({ hostname: In(hostnames) });
  }

  /** These domains, by hostname. */
  findByIds(ids: string[], manager?: EntityManager): Promise<DomainEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.domainRepo(manager).find({ where: { id: In(ids) }, order: { hostname: 'ASC' } });
  }

  /** Uses ix_domains_subscription. */
  listBySubscription(subscriptionId: string): Promise<DomainEntity[]> {
    return this.domains.find({ where: { subscriptionId }, order: { hostname: 'ASC' } });
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

  /** Deletes the domain (its project authorisations first: ProjectDomainsService.revoke). */
  async deleteDomain(id: string, manager: EntityManager): Promise<void> {
    await manager.getRepository(DomainEntity).delete({ id });
  }

  private domainRepo(manager?: EntityManager): Repository<DomainEntity> {
    return manager ? manager.getRepository(DomainEntity) : this.domains;
  }
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string } | undefined;
  return driverError?.code === '23505' && driverError.constraint === constraint;
}
