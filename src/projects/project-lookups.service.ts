import { Injectable, OnModuleInit } from '@nestjs/common';
import { AppError, ErrorCode } from '../common/app-error';
import { Lru } from '../common/lru';
import { AppConfig } from '../config/app-config';
import { InvalidationBus } from '../queue/invalidation-bus';
import type { ConnectedDomain } from './connected-domains';
import { ProjectEntity } from './project.entity';
import { ProjectsRepository } from './projects.repository';

const API_KEY_RE = /^[0-9a-f]{64}$/;
/**
 * Live projects by API key, kept in-process so an API request does not pay a round trip to
 * PostgreSQL for its key: dropped on every instance when a project changes (InvalidationBus), and
 * after KEY_CACHE_TTL_MS at the latest should an invalidation be missed. Unknown keys are not kept
 * (a project created a moment ago answers at once).
 */
const KEY_CACHE_SIZE = 10_000;
const KEY_CACHE_TTL_MS = 10_000;

/**
 * What other modules read of projects: the project a `key` names (ProjectKeyGuard) and the hosts
 * a project may create links on (links).
 */
@Injectable()
export class ProjectLookupsService implements OnModuleInit {
  private readonly byApiKey = new Lru<ProjectEntity>(KEY_CACHE_SIZE);
  /** Bumped by every invalidation: a lookup that raced one does not keep what it read. */
  private keyGeneration = 0;

  constructor(
    private readonly repository: ProjectsRepository,
    private readonly bus: InvalidationBus,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // Any project change (settings, destruction; '*' after a reconnect) drops every cached key:
    // changes are rare, and a key's project is one query away.
    this.bus.onInvalidate((kind) => {
      if (kind !== 'project') return;
      this.keyGeneration++;
      this.byApiKey.clear();
    });
  }

  /** The live project a project API key (`key` of link, stats and conversion endpoints) names. */
  async findActiveByApiKey(apiKey: string): Promise<ProjectEntity | null> {
    if (typeof apiKey !== 'string' || !API_KEY_RE.test(apiKey)) return null;
    const now = Date.now();
    const cached = this.byApiKey.get(apiKey, now);
    if (cached) return cached.value;
    const generation = this.keyGeneration;
    const project = await this.repository.findLiveByApiKey(apiKey);
    if (project && generation === this.keyGeneration) {
      this.byApiKey.set(apiKey, project, KEY_CACHE_TTL_MS, now);
    }
    return project;
  }

  /** The same, or 403 "Invalid API key specified" (docs/api.md, "Errors": code 1000). */
  async getActiveByApiKey(apiKey: string): Promise<ProjectEntity> {
    const project = await this.findActiveByApiKey(apiKey);
    if (!project) throw new AppError(403, ErrorCode.invalidKey, 'Invalid API key specified');
    return project;
  }

  /** The connected domains the project may create links on (the shared default domain is implied). */
  async getAuthorisedDomains(projectId: string): Promise<ConnectedDomain[]> {
    const byProject = await this.repository.listAuthorisedDomains([projectId]);
    return byProject.get(projectId) ?? [];
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
