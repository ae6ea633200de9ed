import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { API_FORMATTED, readFormat } from '../common/api-format';
import { AppError, ErrorCode, Errors } from '../common/app-error';
import { RawParams, requireKey, requireVersion } from '../common/params';
import { requestParams } from '../common/params.decorator';
import {
  KeyKind,
  KeyedProject,
  ProjectLookupsService,
  invalidKey,
} from './project-lookups.service';
import { ProjectEntity } from './project.entity';

/** How an endpoint takes its project key (ProjectKeyAuth). */
export interface ProjectKeyOptions {
  /** `v` must be 3, checked before the key (link and statistics endpoints). */
  version?: boolean;
  /**
   * `key[]=…` may name this many projects at most, each key a credential of its own project, of
   * any subscription (totals: docs/api.md, "Statistics"); the handler takes @CurrentProjects().
   */
  many?: number;
  /** The endpoint's own checks that answer before `v` and the key (retweet and share). */
  before?: (params: RawParams, req: Request) => void;
  /**
   * Whether the project's publishable key may call the endpoint too (docs/api.md, "Keys"); by
   * default only its API key may. `refuse` names the parameters a publishable key may not give
   * (retweet and share: the link controls), each answered 403 naming it.
   */
  publishable?: true | { refuse: readonly string[] };
}

/** A request once ProjectKeyGuard has let it through. */
export interface ProjectRequest extends Request {
  /** Set once the key names a live project, of either kind, even when the endpoint refuses it. */
  project?: ProjectEntity;
  projects?: ProjectEntity[];
  /** Which key named it: `secret` (the API key) or `publishable`. */
  keyKind?: KeyKind;
  /**
   * What the rate limit (a guard that runs first) found for each key it looked up, null for none:
   * ProjectKeyGuard does not look those keys up again.
   */
  keyed?: ReadonlyMap<string, KeyedProject | null>;
}

/** The answer to a publishable key on an endpoint that needs the API key. */
export const PUBLISHABLE_KEY_REFUSED =
  "This endpoint needs the project's api_key; a publishable key may not call it";

export const PROJECT_KEY_OPTIONS = 'svc:project-key';

/**
 * The one way into the link, statistics and conversion endpoints: reads `key` as the handlers
 * read parameters (a form value over a query one) and puts its live project and the kind of key on
 * the request, or answers 400 (missing, repeated) or 403 "Invalid API key specified"; a
 * publishable key gets a 403 of its own where the endpoint does not accept it. The checks that
 * answered before the key when handlers authenticated still answer first, in the same order: the
 * format and callback (on routes FormatInterceptor renders), the endpoint's own (`before`), then
 * `v`. A class-level guard (the rate limit) runs before this one.
 */
@Injectable()
export class ProjectKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly projects: ProjectLookupsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const handler = context.getHandler();
    const options =
      this.reflector.get<ProjectKeyOptions | undefined>(PROJECT_KEY_OPTIONS, handler) ?? {};
    const req = context.switchToHttp().getRequest<ProjectRequest>();
    const formatted = this.reflector.getAllAndOverride<boolean>(API_FORMATTED, [
      handler,
      context.getClass(),
    ]);
    const params = requestParams(req);
    try {
      if (formatted) readFormat(req);
      options.before?.(params, req);
      if (options.version) requireVersion(params);
    } catch (error) {
      // Retweet's and share's destination fallback (the endpoints with `before`) redirects only for
      // a valid key, also when a check before the key failed (DestinationFallbackFilter).
      if (options.before && typeof params.key === 'string') {
        const found = req.keyed?.has(params.key)
          ? req.keyed.get(params.key)
          : await this.projects.findActiveByKey(params.key).catch(() => null);
        req.project = found?.project;
      }
      throw error;
    }
    if (options.many !== undefined && Array.isArray(params.key)) {
      req.projects = await this.projectsOf(req, params.key as unknown[], options.many);
      req.keyKind = 'secret';
      return true;
    }
    const { project, kind } = await this.getActiveByKey(req, requireKey(params));
    req.project = project;
    req.projects = [project];
    req.keyKind = kind;
    if (kind === 'publishable') refusePublishable(options, params);
    return true;
  }

  /**
   * Each distinct key of `key[]`, in order: the first that is not a live project's key is a 403,
   * and so is a publishable key (the endpoints that take several projects read statistics).
   */
  private async projectsOf(
    req: ProjectRequest,
    keys: unknown[],
    max: number,
  ): Promise<ProjectEntity[]> {
    if (keys.length === 0 || keys.length > max) {
      throw Errors.invalid('key', `takes 1 to ${max} project keys`);
    }
    const found: KeyedProject[] = [];
    for (const key of new Set(keys)) {
      if (typeof key !== 'string') throw Errors.invalid('key', 'must be project API keys');
      found.push(await this.getActiveByKey(req, key));
    }
    if (found.some((keyed) => keyed.kind === 'publishable')) throw publishableRefused();
    return found.map((keyed) => keyed.project);
  }

  /** The key's live project, as the rate limit found it if it looked the key up, or 403. */
  private getActiveByKey(req: ProjectRequest, key: string): Promise<KeyedProject> {
    if (!req.keyed?.has(key)) return this.projects.getActiveByKey(key);
    const found = req.keyed.get(key);
    return found ? Promise.resolve(found) : Promise.reject(invalidKey());
  }
}

function publishableRefused(): AppError {
  return new AppError(403, ErrorCode.notPermitted, PUBLISHABLE_KEY_REFUSED);
}

/**
 * A publishable key is published in landing pages: it calls only the endpoints that accept it,
 * and gives none of the parameters they refuse it (docs/api.md, "Keys").
 */
function refusePublishable(options: ProjectKeyOptions, params: RawParams): void {
  if (options.publishable === undefined) throw publishableRefused();
  if (options.publishable === true) return;
  const given = options.publishable.refuse.find((name) => params[name] !== undefined);
  if (given !== undefined) {
    throw new AppError(
      403,
      ErrorCode.notPermitted,
      `A publishable key may not set ${given}; it needs the project's api_key`,
    );
  }
}
