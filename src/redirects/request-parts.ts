import type { IncomingMessage } from 'node:http';
import type { ProjectTarget } from './redirect-target';

// What the redirect listener reads of a request, straight from its raw form, and how it adds svc=.

/** A request header's value, at most 2,048 characters; null when absent or empty. */
export function header(req: IncomingMessage, name: string): string | null {
  const value = rawHeader(req.rawHeaders, name);
  return value !== undefined && value !== '' ? value.slice(0, 2048) : null;
}

/**
 * A request header by its lowercase name, read from rawHeaders: `req.headers` would build an object
 * of every header on first use, which the redirect path does not need. The first of repeated
 * headers, as Node keeps it (X-Forwarded-For, whose copies count in full: forwardedHeader).
 */
export function rawHeader(raw: string[], name: string): string | undefined {
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i];
    if (key.length === name.length && key.toLowerCase() === name) return raw[i + 1];
  }
  return undefined;
}

/**
 * X-Forwarded-For with its repeated headers joined by commas in order, as Node joins them into
 * `req.headers` (a proxy may add its entry as a header of its own); undefined without one.
 */
export function forwardedHeader(raw: string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i];
    if (key.length === 15 && key.toLowerCase() === 'x-forwarded-for') {
      value = value === undefined ? raw[i + 1] : `${value},${raw[i + 1]}`;
    }
  }
  return value;
}

/** The request's Host header in lower case ('' without one). */
export function hostOf(req: IncomingMessage): string {
  return (rawHeader(req.rawHeaders, 'host') ?? '').toLowerCase();
}

/** The request target's path, without its query string (as sent: not decoded). */
export function rawPathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The link path of a request path: decoded, without leading or trailing slashes; null if it does
 * not decode to clean text (malformed escapes, invalid UTF-8, a lone surrogate or a NUL). Only a
 * path with a `%` pays for the checks.
 */
export function decodePath(raw: string): string | null {
  let path = raw;
  if (raw.includes('%')) {
    try {
      path = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (path.includes('\0')) return null;
  }
  return trimSlashes(path);
}

export function trimSlashes(path: string): string {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 47) start++;
  while (end > start && path.charCodeAt(end - 1) === 47) end--;
  return start === 0 && end === path.length ? path : path.slice(start, end);
}

/** `svc=<svc_id>` on the landing URL when conversions are tracked for its host (docs/architecture.md). */
export function withSvc(
  url: string,
  conversions: ProjectTarget['conversions'],
  svcId: string,
): string {
  if (conversions === null) return url;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return url;
  }
  if (conversions !== 'all' && !conversions.includes(target.hostname.toLowerCase())) return url;
  target.searchParams.set('svc', svcId);
  return target.toString();
}
