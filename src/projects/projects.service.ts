import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { AppError, ErrorCode, Errors } from '../common/app-error';
import { parseJsonObject } from '../common/json-parameter';
import { Lru } from '../common/lru';
import { AppConfig } from '../config/app-config';
import { InvalidationBus } from '../queue/invalidation-bus';
import { DomainEntity } from '../domains/domain.entity';
import { MailService } from '../mail/mail.service';
import { generateProjectApiKey } from '../subscriptions/keys';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import { AdminCredentials, SubscriptionsService } from '../subscriptions/subscriptions.service';
import {
  ConversionsInput,
  MemberRef,
  Named,
  applyLinkSettings,
  isEmail,
  isUuid,
  parseProjectCreation,
  parseProjectUpdate,
} from './project-input';
import { ProjectRole } from './project-user.entity';
import { ConversionDomains, GoalLabels, ProjectEntity } from './project.entity';
import { MemberRow, ProjectChanges, ProjectsRepository } from './projects.repository';
import { UserEntity } from './user.entity';

/** A project with what its record shows: authorised domains and members. */
export interface ProjectDetails {
  project: ProjectEntity;
  domains: DomainEntity[];
  members: MemberRow[];
}

export interface ProjectParams extends AdminCredentials {
  json?: unknown;
}

/** A user invited by e-mail in this request: gets a welcome e-mail once the transaction commits. */
interface Invitation {
  user: UserEntity;
  role: ProjectRole;
}

/** A user named in the request, found or to be created. */
type ResolvedUser = { user: UserEntity; email?: undefined } | { user: null; email: string };

const API_KEY_RE = /^[0-9a-f]{64}$/;
const UNIQUE_VIOLATION = '23505';
const TRANSACTION_ATTEMPTS = 3;
/**
 * Live projects by API key, kept in-process so an API request does not pay a round trip to
 * PostgreSQL for its key: dropped on every instance when a project changes (InvalidationBus), and
 * after KEY_CACHE_TTL_MS at the latest should an invalidation be missed. Unknown keys are not kept
 * (a project created a moment ago answers at once).
 */
const KEY_CACHE_SIZE = 10_000;
const KEY_CACHE_TTL_MS = 10_000;

/** Projects administration (SPEC.md 4.10): the use cases behind /projects/*. */
@Injectable()
export class ProjectsService implements OnModuleInit {
  private readonly logger = new Logger('ProjectsService');
  private readonly byApiKey = new Lru<ProjectEntity>(KEY_CACHE_SIZE);
  /** Bumped by every invalidation: a lookup that raced one does not keep what it read. */
  private keyGeneration = 0;

  constructor(
    private readonly repository: ProjectsRepository,
    private readonly subscriptions: SubscriptionsService,
    private readonly mail: MailService,
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly bus: InvalidationBus,
  ) {}

  /** The live project a project API key (`key` of link, stats and conversion endpoints) names. */
  async findActiveByApiKey(apiKey: string): Promise<ProjectEntity | null> {
    if (typeof apiKey !== 'string' || !API_KEY_RE.test(apiKey)) return null;
    const now = Date.now();
    const cached = this.byApiKey.get(apiKey, now);
    if (cached) return cached.value;
    const generation = this.keyGeneration;
    const project = await this.repository.findLiveByApiKey(apiKey);
    if (project && generation === this.keyGeneration) this.byApiKey.set(apiKey, project, KEY_CACHE_TTL_MS, now);
    return project;
  }

  onModuleInit(): void {
    // Any project change (settings, destruction; '*' after a reconnect) drops every cached key:
    // changes are rare, and a key's project is one query away.
    this.bus.onInvalidate((kind) => {
      if (kind !== 'project') return;
      this.keyGeneration++;
      this.byApiKey.clear();
    });
  }

  /** The connected domains the project may create links on (the shared default domain is implied). */
  async getAuthorisedDomains(projectId: string): Promise<DomainEntity[]> {
    const byProject = await this.repository.listAuthorisedDomains([projectId]);
    return byProject.get(projectId) ?? [];
  }

  async create(params: ProjectParams): Promise<ProjectDetails> {
    const subscription = await this.subscriptions.authenticate(params, false);
    const input = parseProjectCreation(parseJsonObject(params.json));
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
      const conversions = this.applyConversions(null, input.conversions);
      const project = await this.repository.insertProject(
        {
          subscriptionId: subscription.id,
          name: input.name,
          apiKey: generateProjectApiKey(),
          defaultDomain,
          ...conversions,
          settings: applyLinkSettings({}, input.settings),
        },
        manager,
      );
      await this.repository.addProjectDomains(
        project.id,
        domains.map((domain) => domain.id),
        manager,
      );
      const invitations = await this.addMembers(
        subscription,
        project,
        input.members,
        new Map(),
        manager,
      );
      return { details: await this.details(subscription.id, project, manager), invitations };
    });
    await this.sendWelcomes(details.project, invitations);
    return details;
  }

  async update(apiKey: string, params: ProjectParams): Promise<ProjectDetails> {
    const subscription = await this.subscriptions.authenticate(params, false);
    const found = await this.getOwnedProject(subscription, apiKey);
    const input = parseProjectUpdate(parseJsonObject(params.json));
    const { details, invitations } = await this.transaction(async (manager) => {
      const project = await this.repository.lockById(found.id, manager);
      if (!project || project.deletedAt) throw this.projectNotFound();
      const changes: ProjectChanges = {};

      if (input.name !== null && input.name !== project.name) {
        await this.assertNameFree(input.name, project.id, manager);
        changes.name = input.name;
      }

      // Domains: removals first, then additions; the default domain must stay reachable.
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
      if (defaultDomain !== project.defaultDomain) changes.defaultDomain = defaultDomain;
      if (input.conversions) {
        Object.assign(changes, this.applyConversions(project, input.conversions));
      }
      if (Object.keys(input.settings.redirectionPatterns).length > 0 || input.settings.utmParameters !== undefined) {
        changes.settings = applyLinkSettings(project.settings, input.settings);
      }

      // Members: additions and role changes, then removals; nobody may be named twice.
      const members = new Map(
        (await this.repository.listMembers(subscription.id, [project.id], manager)).map((m) => [
          m.userId,
          m,
        ]),
      );
      const named = new Map<string, string>();
      const invitations = await this.addMembers(
        subscription,
        project,
        input.members,
        members,
        manager,
        named,
      );
      for (const ref of input.changeRoles) {
        const member = this.findMember(members, ref, named);
        if (member.role !== ref.role) {
          await this.repository.upsertMember(project.id, member.userId, ref.role, manager);
        }
      }
      const removedUsers = input.removeUsers.map(
        (ref) => this.findMember(members, ref, named).userId,
      );
      await this.repository.removeMembers(project.id, removedUsers, manager);

      await this.repository.removeProjectDomains(project.id, domainsToRemove, manager);
      await this.repository.addProjectDomains(project.id, domainsToAdd, manager);
      const changed =
        Object.keys(changes).length > 0 ||
        input.members.length + input.changeRoles.length + removedUsers.length > 0 ||
        domainsToRemove.length + domainsToAdd.length > 0;
      if (changed) await this.repository.updateProject(project.id, changes, manager);
      const saved = (await this.repository.findById(project.id, manager))!;
      return { details: await this.details(subscription.id, saved, manager), invitations };
    });
    // Redirects read the project's conversion settings and liveness from their caches.
    await this.bus.publish('project', [details.project.id]);
    await this.sendWelcomes(details.project, invitations);
    return details;
  }

  async show(apiKey: string, params: ProjectParams): Promise<ProjectDetails> {
    const subscription = await this.subscriptions.authenticate(params, true);
    const project = await this.getOwnedProject(subscription, apiKey);
    return this.details(subscription.id, project);
  }

  async list(params: ProjectParams): Promise<ProjectDetails[]> {
    const subscription = await this.subscriptions.authenticate(params, true);
    const projects = await this.repository.listLiveBySubscription(subscription.id);
    const ids = projects.map((project) => project.id);
    const domains = await this.repository.listAuthorisedDomains(ids);
    const members = await this.repository.listMembers(subscription.id, ids);
    return projects.map((project) => ({
      project,
      domains: domains.get(project.id) ?? [],
      members: members.filter((member) => member.projectId === project.id),
    }));
  }

  /** SPEC.md 3.3: only a project without users can be destroyed; its key is refused at once. */
  async destroy(apiKey: string, params: ProjectParams): Promise<void> {
    const subscription = await this.subscriptions.authenticate(params, true);
    const found = await this.getOwnedProject(subscription, apiKey);
    await this.transaction(async (manager) => {
      const project = await this.repository.lockById(found.id, manager);
      if (!project || project.deletedAt) throw this.projectNotFound();
      const users = await this.repository.countMembers(project.id, manager);
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
    await this.bus.publish('project', [found.id]);
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
    const members = await this.repository.listMembers(subscriptionId, [project.id], manager);
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
  ): Promise<DomainEntity[]> {
    const wanted = refs.filter((ref) => ref.value !== this.config.defaultDomain);
    const found = await this.repository.findDomainsByHostnames(
      wanted.map((ref) => ref.value),
      manager,
    );
    const result = new Map<string, DomainEntity>();
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

  /** The conversion columns after applying the conversions object to the project (null: a new one). */
  private applyConversions(
    project: ProjectEntity | null,
    input: ConversionsInput | null,
  ): ProjectChanges {
    const changes: ProjectChanges = project
      ? {}
      : { conversionsEnabled: false, conversionDomains: [], goalLabels: {} };
    if (!input) return changes;
    if (input.enabled !== undefined) changes.conversionsEnabled = input.enabled;
    let domains: ConversionDomains = project ? project.conversionDomains : [];
    for (const { value: host, parameter } of input.removeDomains) {
      if (host === 'all') {
        if (domains === 'all') domains = [];
        continue;
      }
      if (domains === 'all') {
        throw Errors.invalid(
          parameter,
          `conversions are tracked on all domains; remove "all" to list hostnames`,
        );
      }
      if (!domains.includes(host))
        throw Errors.invalid(parameter, `${host} is not a conversions domain of this project`);
      domains = domains.filter((existing) => existing !== host);
    }
    if (input.domains === 'all') {
      domains = 'all';
    } else if (input.domains && domains !== 'all') {
      const list: string[] = domains;
      domains = [...list, ...input.domains.filter((host) => !list.includes(host))];
    }
    if (project === null || input.removeDomains.length > 0 || input.domains !== undefined) {
      changes.conversionDomains = domains;
    }
    if (Object.keys(input.goalLabels).length > 0 || project === null) {
      const labels: GoalLabels = { ...(project?.goalLabels ?? {}) };
      for (const [goal, label] of Object.entries(input.goalLabels)) {
        if (label === null) delete labels[goal];
        else labels[goal] = label;
      }
      changes.goalLabels = labels;
    }
    return changes;
  }

  /**
   * Adds the named users with their roles (an existing member named again takes that role). New
   * users are created from their e-mail address; they are returned for the welcome e-mail.
   */
  private async addMembers(
    subscription: SubscriptionEntity,
    project: ProjectEntity,
    refs: MemberRef[],
    members: Map<string, MemberRow>,
    manager: EntityManager,
    named = new Map<string, string>(),
  ): Promise<Invitation[]> {
    const invitations: Invitation[] = [];
    for (const ref of refs) {
      const resolved = await this.resolveUser(subscription, ref, manager);
      const key = resolved.user ? resolved.user.id : resolved.email;
      this.noteNamed(named, key, ref);
      let user = resolved.user;
      if (!user) {
        user = await this.repository.insertUser(
          {
            email: resolved.email!,
            username: await this.freeUsername(resolved.email!, manager),
            name: resolved.email!.slice(0, resolved.email!.lastIndexOf('@')),
            defaultProjectId: project.id,
          },
          manager,
        );
        invitations.push({ user, role: ref.role });
      }
      if (members.get(user.id)?.role !== ref.role) {
        await this.repository.upsertMember(project.id, user.id, ref.role, manager);
      }
    }
    return invitations;
  }

  /**
   * A user by e-mail (anywhere: new users only by e-mail), sharer_id or username (only among the
   * users of this subscription's projects, so other tenants' users stay invisible).
   */
  private async resolveUser(
    subscription: SubscriptionEntity,
    ref: MemberRef,
    manager: EntityManager,
  ): Promise<ResolvedUser> {
    if (ref.value.includes('@')) {
      const email = ref.value.toLowerCase();
      if (!isEmail(email))
        throw Errors.invalid(ref.parameter, `"${ref.value}" is not a valid e-mail address`);
      const user = await this.repository.findUserByEmail(email, manager);
      return user ? { user } : { user: null, email };
    }
    const user = isUuid(ref.value)
      ? await this.repository.findSubscriptionUserById(
          subscription.id,
          ref.value.toLowerCase(),
          manager,
        )
      : await this.repository.findSubscriptionUserByUsername(subscription.id, ref.value, manager);
    if (!user) {
      throw Errors.badRequest(
        `Invalid parameter ${ref.parameter}: "${ref.value}" is not a user of this subscription; new users are added by e-mail address`,
        ErrorCode.unknownUser,
      );
    }
    return { user };
  }

  /** A member of the project named by e-mail, sharer_id or username (remove_user, change_role). */
  private findMember(
    members: Map<string, MemberRow>,
    ref: Named,
    named: Map<string, string>,
  ): MemberRow {
    const value = ref.value.toLowerCase();
    const member = [...members.values()].find(
      (m) => m.email === value || m.userId === value || m.username === ref.value,
    );
    if (!member)
      throw Errors.invalid(ref.parameter, `"${ref.value}" is not a user of this project`);
    this.noteNamed(named, member.userId, ref);
    return member;
  }

  private noteNamed(named: Map<string, string>, key: string, ref: Named): void {
    const earlier = named.get(key);
    if (earlier)
      throw Errors.invalid(ref.parameter, `"${ref.value}" names the same user as ${earlier}`);
    named.set(key, ref.parameter);
  }

  /** The e-mail's local part as a username, with the smallest numeric suffix that makes it unique. */
  private async freeUsername(email: string, manager: EntityManager): Promise<string> {
    const local = email.slice(0, email.lastIndexOf('@'));
    let base = local.replace(/[^a-z0-9_.-]/g, '_').slice(0, 50) || 'user';
    // A username must not read as a sharer_id, or lookups by username could never find it.
    if (isUuid(base)) base = `${base.slice(0, 36)}_`;
    const taken = new Set(await this.repository.listUsernamesStartingWith(base, manager));
    if (!taken.has(base)) return base;
    for (let n = 2; ; n++) if (!taken.has(`${base}${n}`)) return `${base}${n}`;
  }

  /** After commit: a welcome e-mail per invited user; a queue failure is logged, not the request's. */
  private async sendWelcomes(project: ProjectEntity, invitations: Invitation[]): Promise<void> {
    for (const { user, role } of invitations) {
      const message = this.mail.welcomeMessage(
        `welcome-${user.id}-${project.id}`,
        user.email,
        project.name,
        role,
      );
      try {
        await this.mail.enqueue(message);
      } catch (error) {
        this.logger.error(
          { err: error, messageId: message.id },
          'welcome e-mail could not be queued',
        );
      }
    }
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
