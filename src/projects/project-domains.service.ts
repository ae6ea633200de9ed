import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ProjectRef, ProjectsRepository } from './projects.repository';

export type { ProjectRef } from './projects.repository';

/**
 * What the domains API reads and writes of projects: the live projects its `projects` and
 * `remove_projects` name, the projects linking on a domain by default, and the projects'
 * authorisations on a domain (`project_domains`, owned by projects/).
 */
@Injectable()
export class ProjectDomainsService {
  constructor(private readonly repository: ProjectsRepository) {}

  /** Live projects with these API keys, of any subscription. */
  findLiveByApiKeys(apiKeys: string[], manager?: EntityManager): Promise<ProjectRef[]> {
    return this.repository.findLiveRefsByApiKeys(apiKeys, manager);
  }

  /** Live projects whose default_domain is this hostname, by name (optionally only among some ids). */
  findLiveWithDefaultDomain(
    hostname: string,
    projectIds: string[] | null,
    manager?: EntityManager,
  ): Promise<ProjectRef[]> {
    return this.repository.findLiveRefsWithDefaultDomain(hostname, projectIds, manager);
  }

  /** domain id → names of the live projects authorised on it, by name. */
  projectNamesByDomain(
    domainIds: string[],
    manager?: EntityManager,
  ): Promise<Map<string, string[]>> {
    return this.repository.projectNamesByDomain(domainIds, manager);
  }

  /** Authorises the projects on the domain. */
  authorise(domainId: string, projectIds: string[], manager: EntityManager): Promise<void> {
    return this.repository.addDomainProjects(domainId, projectIds, manager);
  }

  /** Withdraws the projects' authorisations on the domain; 'all' before the domain is disconnected. */
  revoke(domainId: string, projectIds: string[] | 'all', manager: EntityManager): Promise<void> {
    return this.repository.removeDomainProjects(domainId, projectIds, manager);
  }
}
