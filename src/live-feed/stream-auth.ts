import type { IncomingHttpHeaders } from 'node:http';
import { CanActivate, ExecutionContext, Injectable, createParamDecorator } from '@nestjs/common';
import type { Request } from 'express';
import { Errors } from '../common/app-error';
import { requestParams } from '../common/params.decorator';
import { ProjectKeyGuard, type ProjectRequest } from '../projects/project-key.guard';
import { StreamTokens } from './stream-tokens';

/** A live-feed request once its stream's project is known (StreamAuthGuard). */
interface StreamRequest extends ProjectRequest {
  streamProjectId?: string;
}

const BEARER_RE = /^Bearer +(\S+) *$/i;

/**
 * The api_key a token request gives in a header, `Authorization: Bearer <api_key>` or
 * `X-Api-Key: <api_key>` (docs/api.md, "Live feed"); null for neither. 400 naming the header when
 * Authorization is not a Bearer credential, and naming `key` when both headers are given.
 */
export function headerKey(headers: IncomingHttpHeaders): string | null {
  const { authorization } = headers;
  const apiKey = headers['x-api-key'];
  let bearer: string | null = null;
  if (authorization !== undefined) {
    const match = BEARER_RE.exec(authorization);
    if (!match) throw Errors.invalid('Authorization', 'must be "Bearer <api_key>"');
    bearer = match[1];
  }
  const given = typeof apiKey === 'string' ? apiKey : null;
  if (bearer !== null && given !== null) throw givenTwice();
  return bearer ?? given;
}

function givenTwice() {
  return Errors.invalid(
    'key',
    'given more than once; send the api_key once: Authorization, X-Api-Key or the form body',
  );
}

/**
 * The token request takes the api_key in a header or the form body, never in its URL: a URL is
 * what proxies, browsers and access logs keep (docs/api.md, "Security"). A header's key is put in
 * the body, where the rate limit and ProjectKeyGuard, which run next, read `key`. Applied to the
 * controller before ReadThrottlerGuard, so that the request counts in its project's read budget.
 */
@Injectable()
export class KeyInHeaderGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    const query = req.query as Record<string, unknown>;
    if (Object.hasOwn(query, 'key')) {
      throw Errors.invalid(
        'key',
        'never in the URL here; send it in the Authorization or X-Api-Key header, or the form body',
      );
    }
    const key = headerKey(req.headers);
    if (key === null) return true;
    const body: unknown = req.body;
    const fields =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : {};
    if (Object.hasOwn(fields, 'key')) throw givenTwice();
    req.body = { ...fields, key };
    return true;
  }
}

/**
 * Who may open a stream (docs/api.md, "Live feed"): a stream token (`token`), used up by this
 * request, or else the api_key in `key` as ProjectKeyGuard checks it (kept for compatibility;
 * discouraged, since it puts the key in the URL). Either way the project's id goes on the request
 * for @StreamProjectId(). A class-level guard (the rate limit) runs before this one.
 */
@Injectable()
export class StreamAuthGuard implements CanActivate {
  constructor(
    private readonly keys: ProjectKeyGuard,
    private readonly tokens: StreamTokens,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<StreamRequest>();
    const { token, key } = requestParams(req);
    if (token === undefined) {
      await this.keys.canActivate(context);
      req.streamProjectId = req.project?.id;
      return req.streamProjectId !== undefined;
    }
    if (key !== undefined) throw Errors.invalid('token', 'give token or key, not both');
    req.streamProjectId = await this.tokens.redeem(token);
    return true;
  }
}

/** The project whose stream StreamAuthGuard let open. */
export const StreamProjectId = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const projectId = ctx.switchToHttp().getRequest<StreamRequest>().streamProjectId;
  if (projectId === undefined)
    throw new Error('No stream project: the route lacks StreamAuthGuard');
  return projectId;
});
