import type { Request } from 'express';

type Echo = Record<string, unknown>;

const ADMIN_METHODS: Record<string, string> = {
  new: 'new',
  update: 'update',
  show: 'show',
  list: 'list',
  destroy: 'delete',
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
  if (area !== 'projects' && area !== 'domains') return null;
  const object = area === 'projects' ? 'project' : 'domain';
  const echo = parameters(req);
  const action = segments[segments.length - 1] ?? '';
  if (segments.length === 3) {
    if (area === 'projects') echo.apikey = segments[1];
    else echo.hostname = segments[1];
  }
  echo.method = ADMIN_METHODS[action] ?? action;
  echo.object = object;
  return echo;
}

export function usesAdminShape(req: Request): boolean {
  return /^\/(projects|domains|conversions)(\/|$)/.test(req.path);
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
