import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { API_FORMATTED, readFormat } from '../common/api-format';
import { Errors } from '../common/app-error';
import { RawParams, requireKey, requireVersion } from '../common/params';
import { requestParams } from '../common/params.decorator';
import { ProjectLookupsService } from './project-lookups.service';
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
}

/** A request once ProjectKeyGuard has let it through. */
export interface ProjectRequest extends Request {
  project?: ProjectEntity;
  projects?: ProjectEntity[];
}

export const PROJECT_KEY_OPTIONS = 'svc:project-key';

/**
 * The one way into the link, statistics and conversion endpoints: reads `key` as the handlers
 * read parameters (a form value over a query one) and puts its live project on the request, or
 * answers 400 (missing, repeated) or 403 "Invalid API key specified". The checks that answered
 * before the key when handlers authenticated still answer first, in the same order: the format
 * and callback (on routes FormatInterceptor renders), the endpoint's own (`before`), then `v`.
 * A class-level guard (the rate limit) runs before this one.
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
    if (this.reflector.getAllAndOverride<boolean>(API_FORMATTED, [handler, context.getClass()])) {
      readFormat(req);
    }
    const params = requestParams(req);
    options.before?.(params, req);
    if (options.version) requireVersion(params);
    if (options.many !== undefined && Array.isArray(params.key)) {
      req.projects = await this.projectsOf(params.key as unknown[], options.many);
      return true;
    }
    const project = await this.projects.getActiveByApiKey(requireKey(params));
    req.project = project;
    req.projects = [project];
    return true;
  }

  /** Each distinct key of `key[]`, in order: the first that is not a live project's key is a 403. */
  private async projectsOf(keys: unknown[], max: number): Promise<ProjectEntity[]> {
    if (keys.length === 0 || keys.length > max) {
      throw Errors.invalid('key', `takes 1 to ${max} project keys`);
    }
    const projects: ProjectEntity[] = [];
    for (const key of new Set(keys)) {
      if (typeof key !== 'string') throw Errors.invalid('key', 'must be project API keys');
      projects.push(await this.projects.getActiveByApiKey(key));
    }
    return projects;
  }
}
