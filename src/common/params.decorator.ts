import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { Request } from 'express';
import type { RawParams } from './params';

/**
 * Query-string and form parameters merged into one object (docs/api.md: parameters go in the query
 * string for GET, form or query for POST). With a DTO type, the global ValidationPipe validates it
 * (validateCustomDecorators) and the first error names the parameter.
 */
export const Params = createParamDecorator((_: unknown, ctx: ExecutionContext): RawParams =>
  requestParams(ctx.switchToHttp().getRequest<Request>()),
);

/** A request's query-string and form parameters as one object; a form value wins over a query one. */
export function requestParams(req: Request): RawParams {
  const body =
    typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>) : {};
  return { ...(req.query as Record<string, unknown>), ...body };
}
