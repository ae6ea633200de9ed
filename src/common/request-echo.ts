import type { Request } from 'express';

type Echo = Record<string, unknown>;

const ADMIN_METHODS: Record<string, string> = {
  new: 'new',
  update: 'update',
  show: 'show',
  list: 'list',
  destroy: 'delete',
};

/** The administration areas: the `object` each echoes, and the name of the path's identifier. */
const ADMIN_AREAS: Record<string, { object: string; pathKey: string } | undefined> = {
  projects: { object: 'project', pathKey: 'apikey' },
  domains: { object: 'domain', pathKey: 'hostname' },
  webhooks: { object: 'webhook', pathKey: 'id' },
};

/** Query and form parameters as the caller sent them, echoed as strings. */
function parameters(req: Request): Echo {
  const echo: Echo = {};
  const sources = [req.query, typeof req.body === 'object' && req.body !== null ? req.body : {}];
  for (const source of sources) {
    for (const [name, value] of Object.entries(source as Echo)) {
      echo[name] = Array.isArray(value) ? value.map((v) => stringify(v)) : stringify(value);
    }
  }
  return echo;
}

function stringify(value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return value.toString();
  try {
    return JSON.stringify(value);
  } catch {
    // Nested too deeply for the stack (a hostile JSON body): the error must still be answered.
    return null;
  }
}

/**
 * The `request` member of admin and conversion responses (docs/api.md), derived from the path so
 * that errors raised before a handler runs (bad key, bad body) carry the same echo as successes.
 */
export function requestEcho(req: Request): Echo | null {
  const segments = req.path.split('/').filter(Boolean).map(decodeURIComponentSafe);
  const [area] = segments;
  if (area === 'conversions') {
    return { ...parameters(req), action: segments[1] ?? 'new', controller: 'conversion' };
  }
  const names = ADMIN_AREAS[area];
  if (!names) return null;
  const echo = parameters(req);
  const action = segments[segments.length - 1] ?? '';
  if (segments.length === 3) echo[names.pathKey] = segments[1];
  echo.method = ADMIN_METHODS[action] ?? action;
  echo.object = names.object;
  return echo;
}

export function usesAdminShape(req: Request): boolean {
  return /^\/(projects|domains|webhooks|conversions)(\/|$)/.test(req.path);
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The success body of admin and conversion endpoints: `{request: <echo>, response}`. */
export function adminResponse<T>(
  req: Request,
  response: T,
): { request: Record<string, unknown> | null; response: T } {
  return { request: requestEcho(req), response };
}
