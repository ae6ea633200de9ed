import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { Request } from 'express';

/**
 * Query-string and form parameters merged into one object (SPEC.md: parameters go in the query
 * string for GET, form or query for POST). With a DTO type, the global ValidationPipe validates it
 * (validateCustomDecorators) and the first error names the parameter.
 */
export const Params = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): Record<string, unknown> =>
    requestParams(ctx.switchToHttp().getRequest<Request>()),
);

/** A request's query-string and form parameters as one object; a form value wins over a query one. */
export function requestParams(req: Request): Record<string, unknown> {
  const body =
    typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>) : {};
  return { ...(req.query as Record<string, unknown>), ...body };
}
