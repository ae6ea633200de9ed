import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppError, ErrorCode, Errors } from '../common/app-error';
import { parseJsonObject, stringList } from '../common/json-parameter';
import { AppConfig } from '../config/app-config';
import { ProjectDomainsService, type ProjectRef } from '../projects/project-domains.service';
import { InvalidationBus } from '../queue/invalidation-bus';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import {
  CREATE_FIELDS,
  UPDATE_FIELDS,
  hostPart,
  normaliseHostname,
  parseDomainHostname,
  parseRedirect,
  rejectUnknownFields,
} from './domain-input';
import { DomainEntity } from '../connected-domains/domain.entity';
import { DomainsRepository } from '../connected-domains/domains.repository';

/** Administration parameters besides the keys (SubscriptionGuard's): `json` on new and update. */
export interface DomainParams {
  json?: unknown;
}

/** A domain with the names of the live projects authorised on it (docs/api.md, "Administration"). */
export interface DomainView {
  domain: DomainEntity;
  projects: string[];
}

@Injectable()
export class DomainsService {
  constructor(
    private readonly repository: DomainsRepository,
    private readonly projects: ProjectDomainsService,
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly invalidation: InvalidationBus,
  ) {}

  /**
   * The connected domain with this hostname (`host[:port]` or `host_segment`; the host part is
   * case-insensitive), of any subscription.
   */
  findByHostname(hostname: string): Promise<DomainEntity | null> {
    return this.repository.findByHostname(normaliseHostname(hostname));
  }

  async list(subscription: SubscriptionEntity): Promise<DomainView[]> {
    const domains = await this.repository.listBySubscription(subscription.id);
    const names = await this.projects.projectNamesByDomain(domains.map((domain) => domain.id));
    return domains.map((domain) => ({ domain, projects: names.get(domain.id) ?? [] }));
  }

  async show(subscription: SubscriptionEntity, hostname: string): Promise<DomainView> {
    const domain = await this.getOwnedDomain(subscription.id, hostname);
    return this.view(domain);
  }

  /** Connects a hostname to the subscription and authorises the listed projects on it. */
  async create(subscription: SubscriptionEntity, json: unknown): Promise<DomainView> {
    const input = parseJsonObject(json);
    rejectUnknownFields(input, CREATE_FIELDS, 'the domain creation object');
    const hostname = parseDomainHostname(input.hostname, this.config.defaultDomain);
    const rootRedirect = parseRedirect(input.root_redirect, 'json.root_redirect');
    const notFoundRedirect = parseRedirect(input.not_found_redirect, 'json.not_found_redirect');
    const apiKeys = stringList(input.projects, 'json.projects');

    const view = await this.dataSource.transaction(async (manager) => {
      await this.assertHostnameFree(subscription.id, hostname, manager);
      const projects = await this.resolveProjects(
        subscription.id,
        apiKeys,
        'json.projects',
        manager,
      );
      const domain = await this.repository.insertDomain(
        { subscriptionId: subscription.id, hostname, rootRedirect, notFoundRedirect },
        manager,
      );
      if (!domain) throw hostnameTaken(hostname);
      await this.projects.authorise(
        domain.id,
        projects.map((project) => project.id),
        manager,
      );
      return this.view(domain, manager);
    });
    // Redirects of this host may have been cached as "not a link host".
    await this.invalidation.changed('domain', [hostname]);
    return view;
  }

  /** Changes only the given fields; `projects` adds authorisations, `remove_projects` removes them. */
  async update(
    subscription: SubscriptionEntity,
    hostname: string,
    json: unknown,
  ): Promise<DomainView> {
    const input = parseJsonObject(json);
    rejectUnknownFields(input, UPDATE_FIELDS, 'the domain update object');
    const changes: Partial<Pick<DomainEntity, 'rootRedirect' | 'notFoundRedirect'>> = {};
    if ('root_redirect' in input) {
      changes.rootRedirect = parseRedirect(input.root_redirect, 'json.root_redirect', false);
    }
    if ('not_found_redirect' in input) {
      changes.notFoundRedirect = parseRedirect(
        input.not_found_redirect,
        'json.not_found_redirect',
        false,
      );
    }
    const addKeys = stringList(input.projects, 'json.projects');
    const removeKeys = stringList(input.remove_projects, 'json.remove_projects');
    const both = addKeys.find((key) => removeKeys.includes(key));
    if (both !== undefined) {
      throw Errors.invalid('json.remove_projects', `${both} is also listed in json.projects`);
    }

    const view = await this.dataSource.transaction(async (manager) => {
      const domain = await this.getOwnedDomain(subscription.id, hostname, manager);
      const added = await this.resolveProjects(subscription.id, addKeys, 'json.projects', manager);
      const removed = await this.resolveProjects(
        subscription.id,
        removeKeys,
        'json.remove_projects',
        manager,
      );
      const blocking = await this.projects.findLiveWithDefaultDomain(
        domain.hostname,
        removed.map((project) => project.id),
        manager,
      );
      if (blocking.length > 0) {
        throw Errors.invalid(
          'json.remove_projects',
          `${domain.hostname} is the default_domain of project ${names(blocking)}; ` +
            `change the project's default_domain first`,
        );
      }
      await this.repository.updateDomain(domain.id, changes, manager);
      await this.projects.authorise(
        domain.id,
        added.map((project) => project.id),
        manager,
      );
      await this.projects.revoke(
        domain.id,
        removed.map((project) => project.id),
        manager,
      );
      const updated = await this.repository.findByHostname(domain.hostname, manager);
      return this.view(updated!, manager);
    });
    await this.invalidation.changed('domain', [view.domain.hostname]);
    return view;
  }

  /** Disconnects the domain; refused while a live project links on it by default. */
  async destroy(subscription: SubscriptionEntity, hostname: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const domain = await this.getOwnedDomain(subscription.id, hostname, manager);
      const blocking = await this.projects.findLiveWithDefaultDomain(
        domain.hostname,
        null,
        manager,
      );
      if (blocking.length > 0) {
        throw Errors.badRequest(
          `Domain ${domain.hostname} is the default_domain of project ${names(blocking)}; ` +
            `change the project's default_domain first`,
        );
      }
      await this.projects.revoke(domain.id, 'all', manager);
      await this.repository.deleteDomain(domain.id, manager);
    });
    await this.invalidation.changed('domain', [hostname.toLowerCase()]);
  }

  /**
   * The domain addressed by the path, of the caller's subscription. With a manager the row is
   * locked for the rest of the transaction.
   */
  private async getOwnedDomain(
    subscriptionId: string,
    hostname: string,
    manager?: EntityManager,
  ): Promise<DomainEntity> {
    const normalised = normaliseHostname(hostname);
    const domain = manager
      ? await this.repository.findByHostnameForUpdate(normalised, manager)
      : await this.repository.findByHostname(normalised);
    if (!domain) throw Errors.notFound(`Domain not found: ${normalised}`);
    if (domain.subscriptionId !== subscriptionId) {
      throw Errors.forbidden(
        `Not permitted: domain ${normalised} is not connected to this subscription`,
      );
    }
    return domain;
  }

  /**
   * A hostname is taken when it is connected, and its host is taken by another subscription when
   * that subscription connected the host or any `host_segment` of it (links under a host belong to
   * whoever pointed it here).
   */
  private async assertHostnameFree(
    subscriptionId: string,
    hostname: string,
    manager: EntityManager,
  ): Promise<void> {
    const host = hostPart(hostname);
    await this.repository.lockHost(host, manager);
    if (await this.repository.findByHostname(hostname, manager)) throw hostnameTaken(hostname);
    const sameHost = await this.repository.listByHost(host, manager);
    if (sameHost.some((domain) => domain.subscriptionId !== subscriptionId)) {
      throw hostnameTaken(hostname);
    }
  }

  /** Live projects of this subscription by API key: unknown or destroyed → 404, another subscription's → 403. */
  private async resolveProjects(
    subscriptionId: string,
    apiKeys: string[],
    parameter: string,
    manager: EntityManager,
  ): Promise<ProjectRef[]> {
    const unique = [...new Set(apiKeys)];
    const found = await this.projects.findLiveByApiKeys(unique, manager);
    const byKey = new Map(found.map((project) => [project.apiKey.trim(), project]));
    return unique.map((key) => {
      const project = byKey.get(key);
      if (!project) throw Errors.notFound(`Project not found: ${parameter} ${key}`);
      if (project.subscriptionId !== subscriptionId) {
        throw Errors.forbidden(
          `Not permitted: ${parameter} ${key} is a project of another subscription`,
        );
      }
      return project;
    });
  }

  private async view(domain: DomainEntity, manager?: EntityManager): Promise<DomainView> {
    const projectNames = await this.projects.projectNamesByDomain([domain.id], manager);
    return { domain, projects: projectNames.get(domain.id) ?? [] };
  }
}

function hostnameTaken(hostname: string): AppError {
  return Errors.badRequest(
    `Invalid parameter json.hostname: ${hostname} is already connected`,
    ErrorCode.hostnameTaken,
  );
}

function names(projects: ProjectRef[]): string {
  return projects.map((project) => project.name).join(', ');
}
