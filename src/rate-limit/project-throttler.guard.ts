import { createHash } from 'node:crypto';
import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerException,
  ThrottlerGuard,
  ThrottlerLimitDetail,
  normalizeIp,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Request, Response } from 'express';
import type { ProjectRequest } from '../projects/project-key.guard';
import { PROJECT_KEY_OPTIONS, type ProjectKeyOptions } from '../projects/project-key.guard';
import { ProjectLookupsService, type KeyedProject } from '../projects/project-lookups.service';
import { requestParams } from '../common/params.decorator';
import { AppConfig, type HourlyBudget } from '../config/app-config';

/** The options of the read budget (READ_RATE_LIMIT), beside the create budget's ThrottlerModule. */
export const READ_THROTTLER_OPTIONS = 'svc:read-throttler-options';

/**
 * The most keys one request is counted for: statistics totals take `key[]` of up to 100 projects
 * (docs/api.md, "Statistics"); a longer list is refused by the key guard and counted per address.
 */
const MAX_COUNTED_KEYS = 100;

/** One count a request makes: in which budget, for whom, against what limit, and its 429's message. */
interface Count {
  budget: string;
  tracker: string;
  limit: number;
  message: string;
}

/**
 * A per-project budget of requests per hour (docs/api.md, "Limits"). A request is counted for the
 * live project each of its keys names (read as the handlers read them: a form value over a query
 * one); a request whose key is missing or names no live project is counted for its client
 * address instead (an IPv6 address by its /48), so random keys create no entries of their own.
 * So is a publishable key where the endpoint refuses it. Where the endpoint takes it, the
 * publishable key, which is published in pages, is counted in a budget of its own, for its
 * client address and for its project (publishableCounts), so that nobody can spend the api_key's.
 * Runs before ProjectKeyGuard (a class-level guard): once an address or a project is over the
 * limit, no key is looked up.
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

  /** Counts the request once in each budget, for each project (or address) it is counted for. */
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const [throttler] = this.throttlers;
    const ttl = throttler.ttl as number;
    const req = context.switchToHttp().getRequest<Request>();
    const options = this.reflector.get<ProjectKeyOptions | undefined>(
      PROJECT_KEY_OPTIONS,
      context.getHandler(),
    );
    for (const count of await this.counts(req, options?.publishable !== undefined)) {
      try {
        await this.handleRequest({
          context,
          limit: count.limit,
          ttl,
          throttler,
          blockDuration: ttl,
          getTracker: () => count.tracker,
          generateKey: () => storageKey(count),
        });
      } catch (error) {
        throw error instanceof ThrottlerException ? new ThrottlerException(count.message) : error;
      }
    }
    return true;
  }

  /**
   * What a request is counted for in this budget: its project's key (the API key), its address
   * otherwise. Subclasses change what a publishable key, or no key at all, costs.
   */
  protected countFor(
    found: KeyedProject | null,
    address: string,
    takesPublishable: boolean,
  ): Count[] {
    const counted = found && (found.kind === 'secret' || takesPublishable);
    return [this.count(counted ? `project:${found.project.id}` : address)];
  }

  /** A count in this budget, at the limit and with the message of its throttler options. */
  protected count(tracker: string): Count {
    const [throttler] = this.throttlers;
    const { errorMessage } = this.options as { errorMessage?: unknown };
    return {
      budget: this.budget,
      tracker,
      limit: throttler.limit as number,
      message: typeof errorMessage === 'string' ? errorMessage : this.errorMessage,
    };
  }

  private async counts(req: Request, takesPublishable: boolean): Promise<Count[]> {
    const raw = requestParams(req).key;
    const keys = Array.isArray(raw) ? raw.slice(0, MAX_COUNTED_KEYS + 1) : [raw];
    const byAddress = `ip:${addressOf(req)}`;
    if (keys.length > MAX_COUNTED_KEYS || keys.length === 0) {
      return this.countFor(null, byAddress, takesPublishable);
    }
    const counts = new Map<string, Count>();
    // ProjectKeyGuard, which runs next, takes what was found here instead of looking up again.
    const keyed = new Map<string, KeyedProject | null>();
    (req as ProjectRequest).keyed = keyed;
    for (const key of new Set(keys)) {
      const found =
        typeof key === 'string' && key !== '' ? await this.projects.findActiveByKey(key) : null;
      if (typeof key === 'string') keyed.set(key, found);
      for (const count of this.countFor(found, byAddress, takesPublishable)) {
        counts.set(storageKey(count), count);
      }
      // Known before a 429: retweet's and share's destination fallback redirects a valid key's
      // visitor even over the limit (DestinationFallbackFilter; ProjectKeyGuard sets it again).
      if (found && keys.length === 1) (req as ProjectRequest).project = found.project;
    }
    return [...counts.values()];
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

/** The storage key names the budget and a hash of the tracker (no client address in plain text). */
function storageKey(count: Count): string {
  return `${count.budget}-${createHash('sha256').update(count.tracker).digest('hex')}`;
}

/**
 * The client address as Express resolves it (TRUST_PROXY): an IPv4-mapped address as IPv4, IPv6
 * by its /48 (one site, as the password limit counts it), however it is written.
 */
function addressOf(req: Request): string {
  return normalizeIp(req.ip ?? 'unknown', 48);
}

/**
 * A budget the publishable key is counted in too, in one of its own (docs/api.md, "Limits"): one
 * count for its client address, checked first, so that one address cannot spend its project's
 * whole budget, and one for its project.
 */
@Injectable()
abstract class PageBudgetGuard extends ProjectBudgetGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    projects: ProjectLookupsService,
    protected readonly config: AppConfig,
  ) {
    super(options, storage, reflector, projects);
  }

  /** The publishable key's counts in `budget`, its 429s saying per what and for what. */
  protected pageCounts(
    budget: string,
    limits: HourlyBudget,
    projectId: string,
    address: string,
    what: string,
  ): Count[] {
    const message = (limit: number, per: string) =>
      `Rate limit exceeded: at most ${limit} ${what} per hour ${per} with the publishable key`;
    return [
      {
        budget,
        tracker: address,
        limit: limits.address,
        message: message(limits.address, 'per client address'),
      },
      {
        budget,
        tracker: `project:${projectId}`,
        limit: limits.project,
        message: message(limits.project, 'per project'),
      },
    ];
  }
}

/**
 * The create API's budget (CREATE_RATE_LIMIT): one for create, batch, static, retweet, share and
 * update together (docs/api.md, "Rate limit"), not one per handler as the stock guard counts. The
 * publishable key's retweets and shares count in a budget of their own instead (page-links).
 */
@Injectable()
export class ProjectThrottlerGuard extends PageBudgetGuard {
  // The create budget's storage keys are named 'default', so a deployment keeps its windows.
  protected readonly budget = 'default';

  protected override countFor(
    found: KeyedProject | null,
    address: string,
    takesPublishable: boolean,
  ): Count[] {
    if (found?.kind !== 'publishable' || !takesPublishable) {
      return super.countFor(found, address, takesPublishable);
    }
    const { links } = this.config.publishableRateLimits;
    return this.pageCounts(
      'page-links',
      links,
      found.project.id,
      address,
      'retweet and share requests',
    );
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

/**
 * conversions/new's budget for the publishable key (PUBLISHABLE_CONVERSION_RATE_LIMIT and
 * PUBLISHABLE_CONVERSION_ADDRESS_LIMIT), per client address and per project; a key that names no
 * live project is counted for its address in the same budget. The api_key's conversions, sent by
 * the publisher's own servers, are not counted.
 */
@Injectable()
export class ConversionThrottlerGuard extends PageBudgetGuard {
  protected readonly budget = 'page-conversions';

  protected override countFor(found: KeyedProject | null, address: string): Count[] {
    if (found?.kind === 'secret') return [];
    const { conversions } = this.config.publishableRateLimits;
    const counts = this.pageCounts(
      this.budget,
      conversions,
      found?.project.id ?? '',
      address,
      'conversions',
    );
    return found ? counts : counts.slice(0, 1);
  }
}
