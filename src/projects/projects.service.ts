import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { AppError, ErrorCode, Errors } from '../common/app-error';
import { parseJsonObject } from '../common/json-parameter';
import { AppConfig } from '../config/app-config';
import { InvalidationBus } from '../queue/invalidation-bus';
import { generateProjectApiKey, generatePublishableKey } from '../subscriptions/keys';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import type { ConnectedDomain } from '../connected-domains/connected-domains';
import { applyConversions } from './project-conversions';
import {
  Named,
  UpdateProjectInput,
  applyLinkSettings,
  parseProjectCreation,
  parseProjectUpdate,
} from './project-input';
import { ProjectMembersService } from './project-members.service';
import { ProjectEntity } from './project.entity';
import { MemberRow, ProjectMembersRepository } from './project-members.repository';
import { ProjectChanges, ProjectsRepository } from './projects.repository';
import { visitorStorageChanges } from './project-visitor-storage';
import { retentionChanges } from './project-retention';

/** A project with what its record shows: authorised domains and members. */
export interface ProjectDetails {
  project: ProjectEntity;
  domains: ConnectedDomain[];
  members: MemberRow[];
}

/** The domain changes of an update: what to remove and add, and the default domain to keep. */
interface DomainPlan {
  remove: string[];
  add: string[];
  defaultDomain: string;
}

const API_KEY_RE = /^[0-9a-f]{64}$/;
const UNIQUE_VIOLATION = '23505';
const TRANSACTION_ATTEMPTS = 3;

/**
 * Projects administration (docs/api.md, "Administration"): the use cases behind /projects/*, for
 * the subscription SubscriptionGuard authenticated.
 */
@Injectable()
export class ProjectsService {
  constructor(
    private readonly repository: ProjectsRepository,
    private readonly memberRows: ProjectMembersRepository,
    private readonly members: ProjectMembersService,
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly invalidation: InvalidationBus,
  ) {}

  /** `json`: the project creation object. */
  async create(subscription: SubscriptionEntity, json: unknown): Promise<ProjectDetails> {
    const input = parseProjectCreation(parseJsonObject(json));
    const { details, invitations } = await this.transaction(async (manager) => {
      await this.assertNameFree(input.name, null, manager);
      const domains = await this.connectedDomains(subscription, input.domains, manager);
      const defaultDomain = input.defaultDomain?.value ?? this.config.defaultDomain;
      if (
        defaultDomain !== this.config.defaultDomain &&
        !domains.some((d) => d.hostname === defaultDomain)
      ) {
        throw Errors.invalid(
          'json.default_domain',
          `"${defaultDomain}" must be ${this.config.defaultDomain} or one of the project's domains (json.domains)`,
        );
      }
      const conversions = applyConversions(null, input.conversions);
      const project = await this.repository.insertProject(
        {
          subscriptionId: subscription.id,
          name: input.name,
          apiKey: generateProjectApiKey(),
          publishableKey: generatePublishableKey(),
          defaultDomain,
          ...conversions,
          settings: applyLinkSettings({}, input.settings),
          ...visitorStorageChanges(input.visitorStorage),
          ...retentionChanges(input.retention),
        },
        manager,
      );
      await this.repository.addProjectDomains(
        project.id,
        domains.map((domain) => domain.id),
        manager,
      );
      const invitations = await this.members.addMembers(
        subscription,
        project,
        input.members,
        new Map(),
        manager,
      );
      return { details: await this.details(subscription.id, project, manager), invitations };
    });
    await this.members.sendWelcomes(details.project, invitations);
    return details;
  }

  /** `json`: the project update object, only what changes. */
  async update(
    subscription: SubscriptionEntity,
    apiKey: string,
    json: unknown,
  ): Promise<ProjectDetails> {
    const found = await this.getOwnedProject(subscription, apiKey);
    const input = parseProjectUpdate(parseJsonObject(json));
    const { details, invitations } = await this.transaction(async (manager) => {
      const project = await this.repository.lockById(found.id, manager);
      if (!project || project.deletedAt) throw this.projectNotFound();
      const changes: ProjectChanges = {};

      if (input.name !== null && input.name !== project.name) {
        await this.assertNameFree(input.name, project.id, manager);
        changes.name = input.name;
      }

      const domains = await this.planDomains(subscription, project, input, manager);
      if (domains.defaultDomain !== project.defaultDomain) {
        changes.defaultDomain = domains.defaultDomain;
      }
      if (input.conversions) {
        Object.assign(changes, applyConversions(project, input.conversions));
      }
      if (
        Object.keys(input.settings.redirectionPatterns).length > 0 ||
        input.settings.utmParameters !== undefined ||
        input.settings.publishableHosts !== undefined
      ) {
        changes.settings = applyLinkSettings(project.settings, input.settings);
      }
      Object.assign(changes, visitorStorageChanges(input.visitorStorage));
      Object.assign(changes, retentionChanges(input.retention));
      // The old key stops at once on every instance: the invalidation below drops it from caches.
      if (input.rotatePublishableKey) changes.publishableKey = generatePublishableKey();

      // Members: additions and role changes, then removals; nobody may be named twice.
      const current = new Map(
        (await this.memberRows.listMembers(subscription.id, [project.id], manager)).map((m) => [
          m.userId,
          m,
        ]),
      );
      const named = new Map<string, string>();
      const invitations = await this.members.addMembers(
        subscription,
        project,
        input.members,
        current,
        manager,
        named,
      );
      for (const ref of input.changeRoles) {
        const member = this.members.findMember(current, ref, named);
        if (member.role !== ref.role) {
          await this.memberRows.upsertMember(project.id, member.userId, ref.role, manager);
        }
      }
      const removedUsers = input.removeUsers.map(
        (ref) => this.members.findMember(current, ref, named).userId,
      );
      await this.memberRows.removeMembers(project.id, removedUsers, manager);

      await this.repository.removeProjectDomains(project.id, domains.remove, manager);
      await this.repository.addProjectDomains(project.id, domains.add, manager);
      const changed =
        Object.keys(changes).length > 0 ||
        input.members.length + input.changeRoles.length + removedUsers.length > 0 ||
        domains.remove.length + domains.add.length > 0;
      if (changed) await this.repository.updateProject(project.id, changes, manager);
      const saved = (await this.repository.findById(project.id, manager))!;
      return { details: await this.details(subscription.id, saved, manager), invitations };
    });
    // Redirects read the project's conversion settings and liveness from their caches.
    await this.invalidation.changed('project', [details.project.id]);
    await this.members.sendWelcomes(details.project, invitations);
    return details;
  }

  async show(subscription: SubscriptionEntity, apiKey: string): Promise<ProjectDetails> {
    const project = await this.getOwnedProject(subscription, apiKey);
    return this.details(subscription.id, project);
  }

  async list(subscription: SubscriptionEntity): Promise<ProjectDetails[]> {
    const projects = await this.repository.listLiveBySubscription(subscription.id);
    const ids = projects.map((project) => project.id);
    const domains = await this.repository.listAuthorisedDomains(ids);
    const members = await this.memberRows.listMembers(subscription.id, ids);
    return projects.map((project) => ({
      project,
      domains: domains.get(project.id) ?? [],
      members: members.filter((member) => member.projectId === project.id),
    }));
  }

  /** Only a project without users can be destroyed; its key is refused at once (docs/api.md). */
  async destroy(subscription: SubscriptionEntity, apiKey: string): Promise<void> {
    const found = await this.getOwnedProject(subscription, apiKey);
    await this.transaction(async (manager) => {
      const project = await this.repository.lockById(found.id, manager);
      if (!project || project.deletedAt) throw this.projectNotFound();
      const users = await this.memberRows.countMembers(project.id, manager);
      if (users > 0) {
        throw Errors.badRequest(
          `Project ${project.name} still has ${users} user${users === 1 ? '' : 's'}; remove them (json.remove_user on update) before destroying it`,
          ErrorCode.projectHasUsers,
        );
      }
      await this.repository.removeProjectDomains(project.id, 'all', manager);
      await this.repository.markDeleted(project.id, manager);
    });
    // Its links stop redirecting on every instance at once.
    await this.invalidation.changed('project', [found.id]);
  }

  /** The live project of this subscription with that key: 404 when none, 403 when another's. */
  private async getOwnedProject(
    subscription: SubscriptionEntity,
    apiKey: string,
  ): Promise<ProjectEntity> {
    const project = API_KEY_RE.test(apiKey) ? await this.repository.findByApiKey(apiKey) : null;
    if (!project || project.deletedAt) throw this.projectNotFound();
    if (project.subscriptionId !== subscription.id) {
      throw Errors.forbidden(
        'Not permitted: the project api_key belongs to another subscription than subscription_key',
      );
    }
    return project;
  }

  private projectNotFound(): AppError {
    return Errors.notFound('Project not found: no live project has this api_key');
  }

  private async details(
    subscriptionId: string,
    project: ProjectEntity,
    manager?: EntityManager,
  ): Promise<ProjectDetails> {
    const domains = await this.repository.listAuthorisedDomains([project.id], manager);
    const members = await this.memberRows.listMembers(subscriptionId, [project.id], manager);
    return { project, domains: domains.get(project.id) ?? [], members };
  }

  private async assertNameFree(
    name: string,
    projectId: string | null,
    manager: EntityManager,
  ): Promise<void> {
    const existing = await this.repository.findLiveByName(name, manager);
    if (existing && existing.id !== projectId) throw this.nameTaken(name);
  }

  private nameTaken(name: string): AppError {
    return Errors.badRequest(
      `Invalid parameter json.name: a project named "${name}" already exists`,
      ErrorCode.projectNameTaken,
    );
  }

  /** The named link domains, each connected to this subscription (10003 otherwise), without duplicates. */
  private async connectedDomains(
    subscription: SubscriptionEntity,
    refs: Named[],
    manager: EntityManager,
  ): Promise<ConnectedDomain[]> {
    const wanted = refs.filter((ref) => ref.value !== this.config.defaultDomain);
    const found = await this.repository.findDomainsByHostnames(
      wanted.map((ref) => ref.value),
      manager,
    );
    const result = new Map<string, ConnectedDomain>();
    for (const ref of wanted) {
      const domain = found.find((d) => d.hostname === ref.value);
      if (!domain || domain.subscriptionId !== subscription.id) {
        throw Errors.badRequest(
          `Invalid parameter ${ref.parameter}: ${ref.value} is not a domain connected to this subscription (connect it with /domains/new first)`,
          ErrorCode.domainNotConnected,
        );
      }
      result.set(domain.id, domain);
    }
    return [...result.values()];
  }

  /**
   * Domains of an update: removals first, then additions (each connected to the subscription); the
   * default domain must stay reachable.
   */
  private async planDomains(
    subscription: SubscriptionEntity,
    project: ProjectEntity,
    input: UpdateProjectInput,
    manager: EntityManager,
  ): Promise<DomainPlan> {
    const current =
      (await this.repository.listAuthorisedDomains([project.id], manager)).get(project.id) ?? [];
    const remaining = new Map(current.map((domain) => [domain.hostname, domain]));
    for (const { value: hostname, parameter } of input.removeDomains) {
      const domain = remaining.get(hostname);
      if (!domain) {
        const why =
          hostname === this.config.defaultDomain
            ? `${hostname} is the shared default domain, available to every project`
            : `${hostname} is not a domain of this project`;
        throw Errors.invalid(parameter, why);
      }
      remaining.delete(hostname);
    }
    for (const domain of await this.connectedDomains(subscription, input.domains, manager)) {
      remaining.set(domain.hostname, domain);
    }
    const currentIds = new Set(current.map((domain) => domain.id));
    const finalIds = new Set([...remaining.values()].map((domain) => domain.id));
    const domainsToRemove = current
      .filter((domain) => !finalIds.has(domain.id))
      .map((domain) => domain.id);
    const domainsToAdd = [...finalIds].filter((id) => !currentIds.has(id));
    // The default domain must stay usable; a stale one (its domain disconnected) is left alone
    // until the caller changes it.
    const defaultDomain = input.defaultDomain?.value ?? project.defaultDomain;
    const reachable = defaultDomain === this.config.defaultDomain || remaining.has(defaultDomain);
    if (!reachable && input.defaultDomain) {
      throw Errors.invalid(
        'json.default_domain',
        `"${defaultDomain}" must be ${this.config.defaultDomain} or one of the project's domains`,
      );
    }
    const removal = input.removeDomains.find((ref) => ref.value === defaultDomain);
    if (!reachable && removal) {
      throw Errors.invalid(
        removal.parameter,
        `${defaultDomain} is the project's default_domain; change default_domain first`,
      );
    }
    return { remove: domainsToRemove, add: domainsToAdd, defaultDomain };
  }

  /**
   * Runs the work in one transaction, again when a concurrent request took the same new username
   * or e-mail; a concurrent project of the same name is the 10001 error.
   */
  private async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction(work);
      } catch (error) {
        const constraint = uniqueViolation(error);
        if (constraint === 'uq_projects_name_live') {
          throw Errors.badRequest(
            'Invalid parameter json.name: a project of that name already exists',
            ErrorCode.projectNameTaken,
          );
        }
        if (constraint?.startsWith('uq_users_') && attempt < TRANSACTION_ATTEMPTS) continue;
        throw error;
      }
    }
  }
}

/** The constraint a unique violation broke, or null for any other error. */
function uniqueViolation(error: unknown): string | null {
  if (!(error instanceof QueryFailedError)) return null;
  const driverError = error.driverError as { code?: string; constraint?: string; message?: string };
  if (driverError.code !== UNIQUE_VIOLATION) return null;
  return driverError.constraint ?? /"([a-z_]+)"/.exec(driverError.message ?? '')?.[1] ?? '';
}
