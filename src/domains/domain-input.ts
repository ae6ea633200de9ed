import { Errors } from '../common/app-error';
import { rejectUnknownFields as rejectFields } from '../common/json-parameter';
import { isHttpUrl, normaliseLinkHost, parseLinkHost } from '../common/validators';

/** The fields of the domain creation object (docs/api.md, "Administration"). */
export const CREATE_FIELDS = [
  'hostname',
  'root_redirect',
  'not_found_redirect',
  'projects',
] as const;

/** The fields of the domain update object: include only what changes. */
export const UPDATE_FIELDS = [
  'root_redirect',
  'not_found_redirect',
  'projects',
  'remove_projects',
] as const;

/**
 * Refuses fields the object does not know, naming them (a typo must not pass silently). Same
 * wording as the projects API.
 */
export function rejectUnknownFields(
  input: Record<string, unknown>,
  allowed: readonly string[],
  what: string,
  parameter = 'json',
): void {
  if ('hostname' in input && !allowed.includes('hostname')) {
    throw Errors.invalid(
      `${parameter}.hostname`,
      'a domain cannot be renamed; destroy it and connect the new hostname',
    );
  }
  rejectFields(input, allowed, parameter, what);
}

/** A link domain as stored in `domains.hostname` (see normaliseLinkHost). */
export const normaliseHostname = normaliseLinkHost;

/** The host part (`hostname[:port]`) of a link domain, without its `_segment`. */
export function hostPart(hostname: string): string {
  const underscore = hostname.indexOf('_');
  return underscore === -1 ? hostname : hostname.slice(0, underscore);
}

/**
 * A hostname as the creation object gives it: no scheme, no path, host part lowercased; `:port`
 * and one `_segment` allowed. The shared default domain belongs to every project and cannot be connected.
 */
export function parseDomainHostname(
  value: unknown,
  defaultDomain: string,
  parameter = 'json.hostname',
): string {
  if (value === undefined || value === null || value === '') throw Errors.missing(parameter);
  if (typeof value !== 'string') throw Errors.invalid(parameter, 'must be a string');
  const hostname = normaliseHostname(value);
  if (hostname.includes('://')) {
    throw Errors.invalid(
      parameter,
      `"${value}" must be a hostname without a scheme (e.g. go.example.com)`,
    );
  }
  if (hostname.includes('/')) {
    throw Errors.invalid(
      parameter,
      `"${value}" must be a hostname without a path; write one extra path segment as hostname_segment`,
    );
  }
  const parsed = parseLinkHost(hostname);
  if (!parsed) {
    throw Errors.invalid(
      parameter,
      `"${value}" is not a valid hostname (hostname, optionally :port and one _segment of A-Z, a-z, 0-9 and -)`,
    );
  }
  if (parsed.port !== null && (Number(parsed.port) < 1 || Number(parsed.port) > 65535)) {
    throw Errors.invalid(parameter, `"${value}" has a port outside 1 to 65535`);
  }
  const defaultHost = defaultDomain.toLowerCase();
  const host = hostPart(hostname);
  if (host === defaultHost || parsed.hostname === defaultHost.replace(/:\d+$/, '')) {
    throw Errors.invalid(
      parameter,
      `${defaultDomain} is the shared default domain and cannot be connected`,
    );
  }
  return hostname;
}

/** root_redirect and not_found_redirect: absolute http(s) URLs (required on creation). */
export function parseRedirect(value: unknown, parameter: string, required = true): string {
  if (required && (value === undefined || value === null || value === ''))
    throw Errors.missing(parameter);
  if (!isHttpUrl(value)) throw Errors.invalid(parameter, 'must be an absolute http(s) URL');
  return value;
}
