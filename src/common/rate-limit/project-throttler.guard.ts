import { createHash } from 'node:crypto';
import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  ThrottlerLimitDetail,
  normalizeIp,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Request, Response } from 'express';
import type { ProjectRequest } from '../../projects/project-key.guard';
import { PROJECT_KEY_OPTIONS, type ProjectKeyOptions } from '../../projects/project-key.guard';
import { ProjectLookupsService, type KeyedProject } from '../../projects/project-lookups.service';
import { requestParams } from '../params.decorator';

/** The options of the read budget (READ_RATE_LIMIT), beside the create budget's ThrottlerModule. */
export const READ_THROTTLER_OPTIONS = 'svc:read-throttler-options';

/**
 * The most keys one request is counted for: statistics totals take `key[]` of up to 100 projects
 * (docs/api.md, "Statistics"); a longer list is refused by the key guard and counted per address.
 */
const MAX_COUNTED_KEYS = 100;

/**
 * A per-project budget of requests per hour (docs/api.md, "Limits"). A request is counted for the
 * live project each of its keys names (read as the handlers read them: a form value over a query
 * one); a request whose key is missing or names no live project is counted for its client
 * address instead (an IPv6 address by its /48), so random keys create no entries of their own.
 * So is a publishable key where the endpoint refuses it: it is published in pages, and anyone
 * must not spend its project's budget with it. Runs before ProjectKeyGuard (a class-level guard):
 * once an address or a project is over the limit, no key is looked up.
 */
abstract class ProjectBudgetGuard extends ThrottlerGuard {
  /** The budget's name in its storage keys. */
  protected abstract readonly budget: string;

  constructor(
    options: ThrottlerModuleOptions,
    storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly projects: ProjectLookupsService,
  ) {
    super(options, storage, reflector);
  }

  /** Counts the request once for each project (or address) it is counted for; 429 over the limit. */
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const [throttler] = this.throttlers;
    const limit = throttler.limit as number;
    const ttl = throttler.ttl as number;
    const req = context.switchToHttp().getRequest<Request>();
    const options = this.reflector.get<ProjectKeyOptions | undefined>(
      PROJECT_KEY_OPTIONS,
      context.getHandler(),
    );
    for (const tracker of await this.trackers(req, options?.publishable !== undefined)) {
      await this.handleRequest({
        context,
        limit,
        ttl,
        throttler,
        blockDuration: ttl,
        getTracker: () => tracker,
        generateKey: (ctx, suffix, name) => this.generateKey(ctx, suffix, name),
      });
    }
    return true;
  }

  private async trackers(req: Request, takesPublishable: boolean): Promise<Set<string>> {
    const raw = requestParams(req).key;
    const keys = Array.isArray(raw) ? raw.slice(0, MAX_COUNTED_KEYS + 1) : [raw];
    const trackers = new Set<string>();
    const byAddress = `ip:${addressOf(req)}`;
    if (keys.length > MAX_COUNTED_KEYS || keys.length === 0) return trackers.add(byAddress);
    // ProjectKeyGuard, which runs next, takes what was found here instead of looking up again.
    const keyed = new Map<string, KeyedProject | null>();
    (req as ProjectRequest).keyed = keyed;
    for (const key of new Set(keys)) {
      const found =
        typeof key === 'string' && key !== '' ? await this.projects.findActiveByKey(key) : null;
      if (typeof key === 'string') keyed.set(key, found);
      const counted = found && (found.kind === 'secret' || takesPublishable);
      trackers.add(counted ? `project:${found.project.id}` : byAddress);
      // Known before a 429: retweet's and share's destination fallback redirects a valid key's
      // visitor even over the limit (DestinationFallbackFilter; ProjectKeyGuard sets it again).
      if (found && keys.length === 1) (req as ProjectRequest).project = found.project;
    }
    return trackers;
  }

  /** The storage key names the budget and a hash of the tracker (no client address in plain text). */
  protected override generateKey(
    _context: ExecutionContext,
    tracker: string,
    _name: string,
  ): string {
    return `${this.budget}-${createHash('sha256').update(tracker).digest('hex')}`;
  }

  /** A 429 carries the X-RateLimit-* headers too (the stock guard sets only Retry-After). */
  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const res = context.switchToHttp().getResponse<Response>();
    res.setHeader(`${this.headerPrefix}-Limit`, detail.limit);
    res.setHeader(`${this.headerPrefix}-Remaining`, 0);
    res.setHeader(`${this.headerPrefix}-Reset`, detail.timeToExpire);
    return super.throwThrottlingException(context, detail);
  }
}

/**
 * The client address as Express resolves it (TRUST_PROXY): an IPv4-mapped address as IPv4, IPv6
 * by its /48 (one site, as the password limit counts it), however it is written.
 */
function addressOf(req: Request): string {
  return normalizeIp(req.ip ?? 'unknown', 48);
}

/**
 * The create API's budget (CREATE_RATE_LIMIT): one for create, batch, static, retweet, share and
 * update together (docs/api.md, "Rate limit"), not one per handler as the stock guard counts.
 */
@Injectable()
export class ProjectThrottlerGuard extends ProjectBudgetGuard {
  // The create budget's storage keys are named 'default', so a deployment keeps its windows.
  protected readonly budget = 'default';

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    projects: ProjectLookupsService,
  ) {
    super(options, storage, reflector, projects);
  }
}

/** The read budget (READ_RATE_LIMIT): url/list, the statistics endpoints and the live feed together. */
@Injectable()
export class ReadThrottlerGuard extends ProjectBudgetGuard {
  protected readonly budget = 'read';

  constructor(
    @Inject(READ_THROTTLER_OPTIONS) options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    projects: ProjectLookupsService,
  ) {
    super(options, storage, reflector, projects);
  }
}
