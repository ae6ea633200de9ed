import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError, ErrorCode, Errors } from '../common/app-error';
import { Lru } from '../common/lru';
import { AppConfig } from '../config/app-config';
import { InvalidationBus } from '../queue/invalidation-bus';
import { PUBLISHABLE_KEY_RE } from '../subscriptions/keys';
import type { ConnectedDomain } from '../connected-domains/connected-domains';
import { ProjectMembersRepository } from './project-members.repository';
import { ProjectEntity } from './project.entity';
import { ProjectsRepository } from './projects.repository';

const API_KEY_RE = /^[0-9a-f]{64}$/;

/**
 * Which key a request gave (docs/api.md, "Keys"): the project's API key, or its publishable key
 * (`pk_…`, published in landing pages), which may call only the endpoints that say so.
 */
export type KeyKind = 'secret' | 'publishable';

/** A live project and the kind of key that named it. */
export interface KeyedProject {
  project: ProjectEntity;
  kind: KeyKind;
}

/** The kind of key a value's format names, or null when it is neither (never looked up). */
export function keyKindOf(key: unknown): KeyKind | null {
  if (typeof key !== 'string') return null;
  if (API_KEY_RE.test(key)) return 'secret';
  if (PUBLISHABLE_KEY_RE.test(key)) return 'publishable';
  return null;
}

/** The answer to a key that names no live project (docs/api.md, "Errors": code 1000). */
export function invalidKey(): AppError {
  return new AppError(403, ErrorCode.invalidKey, 'Invalid API key specified');
}

/**
 * Live projects by API key or publishable key (one cache: the two formats never collide), kept
 * in-process so an API request does not pay a round trip to PostgreSQL for its key: dropped on
 * every instance when a project changes (InvalidationBus; a rotated publishable key stops at
 * once), and after KEY_CACHE_TTL_MS at the latest should an invalidation be missed. Unknown keys
 * are not kept (a project created a moment ago answers at once).
 */
const KEY_CACHE_SIZE = 10_000;
const KEY_CACHE_TTL_MS = 10_000;

/**
 * What other modules read of projects: the project a `key` names (ProjectKeyGuard) and the hosts
 * a project may create links on (links).
 */
@Injectable()
export class ProjectLookupsService implements OnModuleInit {
  private readonly byKey = new Lru<ProjectEntity>(KEY_CACHE_SIZE);
  /** Bumped by every invalidation: a lookup that raced one does not keep what it read. */
  private keyGeneration = 0;

  constructor(
    private readonly repository: ProjectsRepository,
    private readonly members: ProjectMembersRepository,
    private readonly invalidation: InvalidationBus,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // Any project change (settings, destruction; '*' after a reconnect) drops every cached key:
    // changes are rare, and a key's project is one query away.
    const dropKeys = () => {
      this.keyGeneration++;
      this.byKey.clear();
    };
    this.invalidation.register({ kinds: ['project'], drop: dropKeys, dropAll: dropKeys });
  }

  /** The live project a project API key names (a publishable key names none here). */
  findActiveByApiKey(apiKey: string): Promise<ProjectEntity | null> {
    return keyKindOf(apiKey) === 'secret'
      ? this.findCached(apiKey, 'secret')
      : Promise.resolve(null);
  }

  /**
   * The live project of `subscription` with this API key, for an administration request: 404 when
   * no live project has it, 403 when it is another subscription's.
   */
  async findOwned(subscriptionId: string, apiKey: string): Promise<ProjectEntity> {
    const project = await this.findActiveByApiKey(apiKey);
    if (!project) throw Errors.notFound('Project not found: no live project has this api_key');
    if (project.subscriptionId !== subscriptionId) {
      throw Errors.forbidden(
        'Not permitted: the project api_key belongs to another subscription than subscription_key',
      );
    }
    return project;
  }

  /** The live project a `key` names, API key or publishable key, and which of the two it is. */
  async findActiveByKey(key: string): Promise<KeyedProject | null> {
    const kind = keyKindOf(key);
    if (kind === null) return null;
    const project = await this.findCached(key, kind);
    return project ? { project, kind } : null;
  }

  /** The same, or 403 "Invalid API key specified" (docs/api.md, "Errors": code 1000). */
  async getActiveByKey(key: string): Promise<KeyedProject> {
    const found = await this.findActiveByKey(key);
    if (!found) throw invalidKey();
    return found;
  }

  private async findCached(key: string, kind: KeyKind): Promise<ProjectEntity | null> {
    const now = Date.now();
    const cached = this.byKey.get(key, now);
    if (cached) return cached.value;
    const generation = this.keyGeneration;
    const project =
      kind === 'secret'
        ? await this.repository.findLiveByApiKey(key)
        : await this.repository.findLiveByPublishableKey(key);
    if (project && generation === this.keyGeneration) {
      this.byKey.set(key, project, KEY_CACHE_TTL_MS, now);
    }
    return project;
  }

  /** The connected domains the project may create links on (the shared default domain is implied). */
  async getAuthorisedDomains(projectId: string): Promise<ConnectedDomain[]> {
    const byProject = await this.repository.listAuthorisedDomains([projectId]);
    return byProject.get(projectId) ?? [];
  }

  /** The username of a member of the project (a link's sharer_id), or null when not a member. */
  memberUsername(
    projectId: string,
    userId: string,
    manager?: EntityManager,
  ): Promise<string | null> {
    return this.members.findMemberUsername(projectId, userId, manager);
  }

  /** The project's admins and its name, to write to about it. */
  admins(projectId: string): Promise<{ userId: string; email: string; projectName: string }[]> {
    return this.members.listProjectAdmins(projectId);
  }

  /**
   * The hosts the project may create links on: the shared default domain and the domains connected
   * to it (docs/api.md, "Tracked links": domain).
   */
  async getLinkHosts(projectId: string): Promise<Set<string>> {
    const authorised = await this.getAuthorisedDomains(projectId);
    return new Set([this.config.defaultDomain, ...authorised.map((domain) => domain.hostname)]);
  }
}
