import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { Request } from 'express';

/**
 * Query-string and form parameters merged into one object (SPEC.md: parameters go in the query
 * string for GET, form or query for POST). With a DTO type, the global ValidationPipe validates it
 * (validateCustomDecorators) and the first error names the parameter.
 */
export const Params = createParamDecorator((_: unknown, ctx: ExecutionContext): Record<string, unknown> => {
  const req = ctx.switchToHttp().getRequest<Request>();
  const body = typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>) : {};
  return { ...(req.query as Record<string, unknown>), ...body };
});
