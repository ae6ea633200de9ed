import type { NextFunction, Request, Response } from 'express';
import * as qs from 'qs';

/** The most parameters one query string or form body may hold (the form body parser's limit too). */
export const PARAMETER_LIMIT = 5000;

/**
 * The query string parser: Express's extended one (`name[]=value` arrays for batch, `tag_3[]`,
 * `key[]`), but with the array limit the form body parser uses. qs's default of 20 turns a 21st
 * `name[]` value into an object, so GET would refuse a batch that POST accepts; each endpoint's own
 * limit (a batch's 1,000 values) is the one that answers over it (docs/api.md, "Arrays").
 */
export function parseQueryString(query: string | null | undefined): Record<string, unknown> {
  if (!query) return {};
  // Pairs without a name (`&&`, `&=x`) give nothing, but qs would first combine them all into one
  // array, in time quadratic in their number (docs/api.md, "Security": linear-time parsing).
  const parts = query.split('&').filter((part) => part !== '' && !part.startsWith('='));
  return qs.parse(parts.join('&'), {
    allowPrototypes: true,
    arrayLimit: Math.max(100, parts.length),
    parameterLimit: PARAMETER_LIMIT,
  });
}

/**
 * Express 5 parses the query string again on every read of `req.query`, and a request's guards,
 * decorators and filters read it several times: a request's query is parsed once, here, and kept.
 */
export function parseQueryOnce(req: Request, _res: Response, next: NextFunction): void {
  const query: unknown = req.query;
  Object.defineProperty(req, 'query', {
    value: query,
    writable: true,
    configurable: true,
    enumerable: true,
  });
  next();
}
