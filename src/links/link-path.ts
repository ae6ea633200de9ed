import { randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 from a CSPRNG: 62^7 ≈ 3.5e12 paths at the default length, unguessable. */
export function randomPath(length = 7): string {
  let path = '';
  for (let i = 0; i < length; i++) path += BASE62[randomInt(62)];
  return path;
}

const CUSTOM_PATH_RE = /^[A-Za-z0-9_.~-]+(\/[A-Za-z0-9_.~-]+)*$/;

/** A custom `path`: URL-safe segments, at most 200 characters. */
export function isValidCustomPath(path: string): boolean {
  return path.length <= 200 && CUSTOM_PATH_RE.test(path);
}

/**
 * The link id: domain and path joined by `_`, every `/` of the path (and of a `domain_segment`
 * host, written with `_` already) as `_` (docs/api.md, "Tracked links").
 */
export function svcId(domain: string, path: string): string {
  return `${domain}_${path.includes('/') ? path.replace(/\//g, '_') : path}`;
}

/**
 * The svc_id a short link URL denotes (`host/segment/path` and `host/path` share one form; svc_id
 * is unique), with its lowercased host; null when the URL has no path or does not parse.
 */
export function svcIdOfUrl(url: string): { host: string; svcId: string } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const path = parsed.pathname.replace(/^\/+|\/+$/g, '');
  if (path === '') return null;
  const host = parsed.host.toLowerCase();
  return { host, svcId: svcId(host, path) };
}

/** The short link: `scheme://domain/path`, where a `host_segment` domain reads `host/segment`. */
export function svcUrl(scheme: string, domain: string, path: string): string {
  const underscore = domain.indexOf('_');
  const host =
    underscore === -1 ? domain : `${domain.slice(0, underscore)}/${domain.slice(underscore + 1)}`;
  return `${scheme}://${host}/${path}`;
}
