import {
  ExecutionContext,
  SetMetadata,
  UseGuards,
  applyDecorators,
  createParamDecorator,
} from '@nestjs/common';
import { ApiKeys } from '../common/api-security';
import {
  PROJECT_KEY_OPTIONS,
  ProjectKeyGuard,
  ProjectKeyOptions,
  ProjectRequest,
} from './project-key.guard';
import type { KeyKind } from './project-lookups.service';
import { ProjectEntity } from './project.entity';

/**
 * The endpoint takes a project `key`: ProjectKeyGuard authenticates it before the handler runs,
 * and the OpenAPI document says so (security scheme projectKey).
 */
export function ProjectKeyAuth(options: ProjectKeyOptions = {}): MethodDecorator {
  return applyDecorators(
    SetMetadata(PROJECT_KEY_OPTIONS, options),
    UseGuards(ProjectKeyGuard),
    ApiKeys('projectKey'),
  );
}

/** The project ProjectKeyGuard authenticated; a route without @ProjectKeyAuth() never gets one. */
export const CurrentProject = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): ProjectEntity => {
    const project = ctx.switchToHttp().getRequest<ProjectRequest>().project;
    if (!project) throw new Error('No authenticated project: the route lacks @ProjectKeyAuth()');
    return project;
  },
);

/** The projects of `key` or `key[]` (@ProjectKeyAuth({ many })), in the order given. */
export const CurrentProjects = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): ProjectEntity[] => {
    const projects = ctx.switchToHttp().getRequest<ProjectRequest>().projects;
    if (!projects) throw new Error('No authenticated projects: the route lacks @ProjectKeyAuth()');
    return projects;
  },
);

/** Which key ProjectKeyGuard authenticated: `secret` (the API key) or `publishable`. */
export const CurrentKeyKind = createParamDecorator((_: unknown, ctx: ExecutionContext): KeyKind => {
  const kind = ctx.switchToHttp().getRequest<ProjectRequest>().keyKind;
  if (!kind) throw new Error('No authenticated key: the route lacks @ProjectKeyAuth()');
  return kind;
});
