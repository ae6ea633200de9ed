import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { Errors } from './app-error';

/**
 * The one place where hostile bytes are refused (docs/api.md, "Errors"): a NUL, a lone surrogate or invalid
 * UTF-8 in any parameter — path, query string, form or JSON body, and the fields inside the admin
 * `json` parameter — is a 400 naming the parameter, before any handler (or PostgreSQL, which
 * refuses such text with an error) sees it.
 *
 * Invalid UTF-8 can only be seen in the raw bytes: the query parser and the body parsers decode it
 * leniently (`%FF` stays as written, a raw 0xFF byte becomes U+FFFD). So the path and query string
 * are read from the request line, bodies through the body parsers' `verify` hook
 * (`rawBodyVerifier`), and NUL and surrogates in the parsed values.
 */

type Flaw =
  | 'contains a NUL character'
  | 'contains an unpaired surrogate'
  | 'is not valid UTF-8'
  | 'has a malformed %-escape'
  | `is nested more than ${number} levels deep`;

interface Found {
  /** The parameter as the error names it: `channel`, `url[1]`, `json.admins[0]`. */
  name: string;
  flaw: Flaw;
  /** The flaw is in the parameter's name rather than its value. */
  inName?: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const HOSTILE_TEXT = /[\0\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Percent-escapes and raw bytes ≥ 0x80 (the request line and latin1-read bodies hold bytes as chars ≤ 0xFF). */
const ENCODED_RUN = /(?:%[0-9A-Fa-f]{2}|[\x80-\xff])+/g;
const MAY_BE_ENCODED = /[%\x80-\xff]/;

/** Why a decoded text is refused, or null. */
export function textFlaw(value: string): Flaw | null {
  if (!HOSTILE_TEXT.test(value)) return null;
  if (value.includes('\0')) return 'contains a NUL character';
  return LONE_SURROGATE.test(value) ? 'contains an unpaired surrogate' : null;
}

/** Whether the bytes a run of percent-escapes and raw bytes stands for are valid UTF-8. */
function isUtf8Run(run: string): boolean {
  const bytes = new Uint8Array(run.length);
  let n = 0;
  for (let i = 0; i < run.length; i++) {
    if (run.charCodeAt(i) === 37) {
      bytes[n++] = parseInt(run.slice(i + 1, i + 3), 16);
      i += 2;
    } else {
      bytes[n++] = run.charCodeAt(i);
    }
  }
  try {
    utf8.decode(bytes.subarray(0, n));
    return true;
  } catch {
    return false;
  }
}

/** Whether a raw (percent-encoded) component decodes to valid UTF-8; a lone `%` is a literal. */
export function isUtf8Encoded(raw: string): boolean {
  if (!MAY_BE_ENCODED.test(raw)) return true;
  for (const run of raw.match(ENCODED_RUN) ?? []) if (!isUtf8Run(run)) return false;
  return true;
}

/** A name fit for a message: invalid bytes and NUL percent-encoded, lone surrogates escaped. */
function printable(name: string): string {
  return name
    .replace(
      /[\0\x80-\xff]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .replace(new RegExp(LONE_SURROGATE.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

function safeDecode(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** The first `name=value` pair of a raw query string or form body that is not valid UTF-8. */
export function encodedPairsFlaw(raw: string): Found | null {
  if (!MAY_BE_ENCODED.test(raw)) return null;
  for (const pair of raw.split('&')) {
    if (!MAY_BE_ENCODED.test(pair)) continue;
    const eq = pair.indexOf('=');
    const key = eq === -1 ? pair : pair.slice(0, eq);
    if (!isUtf8Encoded(key))
      return { name: printable(key), flaw: 'is not valid UTF-8', inName: true };
    if (eq !== -1 && !isUtf8Encoded(pair.slice(eq + 1))) {
      return { name: printable(safeDecode(key)), flaw: 'is not valid UTF-8' };
    }
  }
  return null;
}

/**
 * How parsed values are walked: `dotted` names members `json.a` (inside the admin `json` text)
 * rather than `a[b]` (as the query parser reads them); `replacement` looks for the U+FFFD a JSON
 * body parser made of invalid bytes instead of NUL and surrogates.
 */
interface Walk {
  dotted: boolean;
  replacement: boolean;
}

const PARAMETERS: Walk = { dotted: false, replacement: false };
const JSON_TEXT: Walk = { dotted: true, replacement: false };
const JSON_BODY_BYTES: Walk = { dotted: false, replacement: true };

/** Deeper than any request of this API nests; deeper ones would also overflow the stack. */
const MAX_DEPTH = 32;

function stringFlaw(value: string, walk: Walk): Flaw | null {
  if (!walk.replacement) return textFlaw(value);
  return value.includes('\uFFFD') ? 'is not valid UTF-8' : null;
}

/**
 * The first hostile string in a parsed value, named as the caller wrote it (`url[1]`, `a[b]`); in
 * the admin `json` parameter, the fields of the JSON text (`json.admins[0]`).
 */
function valueFlaw(value: unknown, name: string, walk: Walk, depth: number): Found | null {
  if (typeof value === 'string') {
    const flaw = stringFlaw(value, walk);
    if (flaw) return { name, flaw };
    if (walk === PARAMETERS && name === 'json' && value.includes('\\u')) {
      // JSON escapes (\u0000, \ud800) become hostile only once the text is parsed.
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        return null; // the endpoint refuses malformed JSON itself
      }
      return valueFlaw(parsed, name, JSON_TEXT, 0);
    }
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  if (depth >= MAX_DEPTH) return { name, flaw: `is nested more than ${MAX_DEPTH} levels deep` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = valueFlaw(value[i], `${name}[${i}]`, walk, depth + 1);
      if (found) return found;
    }
    return null;
  }
  const nameOf = (key: string) => (walk.dotted ? `${name}.${key}` : `${name}[${key}]`);
  return membersFlaw(value as Record<string, unknown>, nameOf, walk, depth + 1);
}

function membersFlaw(
  object: Record<string, unknown>,
  nameOf: (key: string) => string,
  walk: Walk,
  depth = 0,
): Found | null {
  for (const [key, value] of Object.entries(object)) {
    const flaw = stringFlaw(key, walk);
    if (flaw) return { name: printable(nameOf(key)), flaw, inName: true };
    const found = valueFlaw(value, nameOf(key), walk, depth);
    if (found) return found;
  }
  return null;
}

/** What the body parsers' verify hook saw in a request's raw body. */
const rawBodyFlaws = new WeakMap<IncomingMessage, Found | 'json'>();

/**
 * The body parsers' `verify` hook: remembers invalid UTF-8 in a form body (the pair that holds
 * it) or a JSON body (the parser turns it into U+FFFD; the member is found after parsing).
 */
export function rawBodyVerifier(
  kind: 'form' | 'json',
): (req: IncomingMessage, res: unknown, body: Buffer) => void {
  return (req, _res, body) => {
    if (kind === 'form') {
      const found = encodedPairsFlaw(body.toString('latin1'));
      if (found) rawBodyFlaws.set(req, found);
      return;
    }
    try {
      utf8.decode(body);
    } catch {
      rawBodyFlaws.set(req, 'json');
    }
  };
}

interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean | undefined> };
  matchers?: ((path: string) => { params: Record<string, string> } | false)[];
}

/** Runs of escapes and raw bytes, and a `%` that starts no escape (Express refuses it in a path). */
const PATH_RUN = /(?:%[0-9A-Fa-f]{2}|[\x80-\xff])+|%/g;

/**
 * The request path with every run of escapes or bytes that is not UTF-8, and every malformed
 * escape, replaced by `%00`; and the worst flaw seen.
 */
function sanitisedPath(rawPath: string): { path: string; flaw: Flaw | null } {
  if (!MAY_BE_ENCODED.test(rawPath)) return { path: rawPath, flaw: null };
  let flaw: Flaw | null = null;
  const path = rawPath.replace(PATH_RUN, (run) => {
    if (run === '%') {
      flaw = 'has a malformed %-escape';
      return '%00';
    }
    if (isUtf8Run(run)) return run;
    flaw ??= 'is not valid UTF-8';
    return '%00';
  });
  return { path, flaw: flaw ?? (path.includes('%00') ? 'contains a NUL character' : null) };
}

/**
 * The parameters of the route a request is for, by Express's own matchers, its invalid bytes read
 * as NUL: to name a path parameter, and for the error filter to render an error raised before
 * routing (here, or by a body parser) in the route's format (txt, JSON-P).
 */
export function routeParamsOf(
  req: Request,
  path = sanitisedPath(rawPathOf(req)).path,
): Record<string, string> | null {
  const router = (req.app as unknown as { router?: { stack?: RouteLayer[] } }).router;
  const method = req.method.toLowerCase();
  for (const layer of router?.stack ?? []) {
    const route = layer.route;
    // A wildcard route is middleware (the request logger's `/{*path}`), not an endpoint.
    if (!route || route.path.includes('*')) continue;
    if (!(route.methods[method] || (method === 'head' && route.methods.get))) continue;
    for (const match of layer.matchers ?? []) {
      try {
        const found = match(path);
        if (found) return found.params;
      } catch {
        // a parameter that does not decode: not this route
      }
    }
  }
  return null;
}

function rawPathOf(req: Request): string {
  const url = req.originalUrl;
  const mark = url.indexOf('?');
  return mark === -1 ? url : url.slice(0, mark);
}

/**
 * Express middleware, mounted after the body parsers and before any route: refuses the request
 * with a 400 naming the first hostile parameter (AppError, rendered by the one exception filter).
 */
export function cleanInput(req: Request, _res: Response, next: NextFunction): void {
  const url = req.originalUrl;
  const mark = url.indexOf('?');
  const rawPath = mark === -1 ? url : url.slice(0, mark);
  // Every invalid run becomes %00, so that the route's matchers decode it and name its parameter.
  const { path, flaw } = sanitisedPath(rawPath);
  let found: Found | null = null;
  if (flaw) {
    const params = routeParamsOf(req, path);
    if (!params) return next(Errors.notFound(`Cannot ${req.method} ${printable(rawPath)}`));
    const name = Object.keys(params).find((key) => params[key].includes('\0'));
    if (name !== undefined) found = { name, flaw };
  }
  found ??= mark === -1 ? null : encodedPairsFlaw(url.slice(mark + 1));
  const bodyFlaw = rawBodyFlaws.get(req);
  const body =
    typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>) : {};
  if (!found && bodyFlaw) {
    found =
      bodyFlaw === 'json'
        ? (membersFlaw(body, (key) => key, JSON_BODY_BYTES) ?? {
            name: 'body',
            flaw: 'is not valid UTF-8',
          })
        : bodyFlaw;
  }
  found ??= membersFlaw(req.query, (key) => key, PARAMETERS);
  found ??= membersFlaw(body, (key) => key, PARAMETERS);
  if (!found) return next();
  next(Errors.invalid(found.name, found.inName ? `its name ${found.flaw}` : found.flaw));
}
