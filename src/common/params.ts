import { Errors } from './app-error';

/**
 * The hand-parsed parameters of the link, statistics and conversion endpoints: query string and
 * form merged (a form value wins: requestParams), each value a string, an array (`name[]=…`) or an
 * object (`name[a]=…`) as the query parser gives it (docs/api.md, "Arrays"). Every reader below
 * answers a 400 that names the parameter.
 */
export type RawParams = Record<string, unknown>;

/** Whether a parameter counts as not given: absent, null or empty. */
export function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** A single-valued string parameter; absent or empty → undefined; repeated → 400. */
export function single(params: RawParams, name: string, max = 2048): string | undefined {
  const value = params[name];
  if (isAbsent(value)) return undefined;
  if (typeof value !== 'string') {
    throw Errors.invalid(name, 'must be given once, as a single value');
  }
  if (value.length > max) throw Errors.invalid(name, `must be at most ${max} characters`);
  return value;
}

/**
 * The first of several spellings of one parameter that is given (docs/api.md lists the original
 * service's spellings beside the documented ones), read as `single` reads it.
 */
export function singleOf(params: RawParams, names: string[], max: number): string | undefined {
  const name = names.find((candidate) => !isAbsent(params[candidate]));
  return name === undefined ? undefined : single(params, name, max);
}

/** A boolean written true/false (or 1/0) in any case (docs/api.md). */
export function bool(params: RawParams, name: string, fallback: boolean): boolean {
  const value = single(params, name, 10);
  if (value === undefined) return fallback;
  const lower = value.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  throw Errors.invalid(name, 'must be true or false');
}

/** A non-negative integer parameter within bounds; `fallback` when absent. */
export function readInt(
  params: RawParams,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const value = single(params, name, 12);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) {
    throw Errors.invalid(name, `must be an integer from ${min} to ${max}`);
  }
  return number;
}

/** A date or timestamp: ISO 8601, `YYYY-MM-DD[ HH:MM:SS]` (UTC), or UNIX seconds. */
export function parseDate(value: string, name: string): Date {
  let date: Date;
  if (/^\d{9,11}$/.test(value)) date = new Date(Number(value) * 1000);
  else if (/^\d{4}-\d{2}-\d{2}$/.test(value)) date = new Date(`${value}T00:00:00Z`);
  else if (/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) {
    date = new Date(`${value.replace(' ', 'T')}Z`);
  } else date = new Date(value);
  if (Number.isNaN(date.getTime()) || !/^\d/.test(value)) {
    throw Errors.invalid(
      name,
      'must be a date (YYYY-MM-DD), a timestamp (ISO 8601) or UNIX seconds',
    );
  }
  return date;
}

/** A date parameter, or undefined when absent. */
export function optionalDate(params: RawParams, name: string): Date | undefined {
  const value = single(params, name, 64);
  return value === undefined ? undefined : parseDate(value, name);
}

/** A date parameter that must be given. */
export function requiredDate(params: RawParams, name: string): Date {
  const date = optionalDate(params, name);
  if (!date) throw Errors.missing(name);
  return date;
}

/** `v` must be 3 on every link and stats endpoint (docs/api.md). */
export function requireVersion(params: RawParams): void {
  const v = single(params, 'v', 10);
  if (v === undefined) throw Errors.missing('v');
  if (v !== '3') throw Errors.invalid('v', 'must be 3');
}

/** `key`: one project API key, as given (ProjectKeyGuard checks it). */
export function requireKey(params: RawParams): string {
  const key = single(params, 'key', 200);
  if (key === undefined) throw Errors.missing('key');
  return key;
}

/** per_page's default and largest value (docs/api.md, "Statistics": pagination). */
export const PER_PAGE = 10;
export const MAX_PER_PAGE = 1000;

/** A page of a list, as statistics and the link list take it. */
export interface Paging {
  /** The page asked for (1 by default); null when `offset` was given, which overrides it. */
  page: number | null;
  perPage: number;
  offset: number;
}

/**
 * `per_page` (10, at most 1000), then `page` (from 1) or `offset` (overrides page: the previous
 * answer's last_offset), each a 400 naming it when out of range.
 */
export function readPaging(params: RawParams): Paging {
  const perPage = readInt(params, 'per_page', PER_PAGE, 1, MAX_PER_PAGE);
  const offsetGiven = single(params, 'offset', 12) !== undefined;
  const page = offsetGiven ? null : readInt(params, 'page', 1, 1, 1_000_000);
  const offset = offsetGiven ? readInt(params, 'offset', 0, 0, 100_000_000) : (page! - 1) * perPage;
  return { page, perPage, offset };
}

/** A sort order parameter: `asc` or `desc` (the default), in any case. */
export function readSortOrder(params: RawParams, name: string): 'asc' | 'desc' {
  const value = (single(params, name, 10) ?? 'desc').toLowerCase();
  if (value !== 'asc' && value !== 'desc') throw Errors.invalid(name, 'must be asc or desc');
  return value;
}
