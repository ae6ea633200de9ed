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
  const count = query.split('&').length;
  return qs.parse(query, {
    allowPrototypes: true,
    arrayLimit: Math.max(100, count),
    parameterLimit: PARAMETER_LIMIT,
  });
}
