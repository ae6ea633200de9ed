import type { ServerResponse } from 'node:http';

// The redirect listener's plain answers, each written in one place.

const NOT_FOUND_PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>Link not found</title></head>' +
  '<body><h1>Link not found</h1><p>This short link does not exist.</p></body></html>';
const NOT_FOUND_BYTES = Buffer.byteLength(NOT_FOUND_PAGE);
const UNAVAILABLE = 'Temporarily unavailable, please retry';

/**
 * 302, never 301: a browser would cache a 301 and later visits would go uncounted. Locations are
 * header-safe already (locationOf, when the repository reads them). `close`: Node ends the
 * connection after the answer (a flood of unknown paths shed, NotFoundBrake).
 */
export function writeRedirect(res: ServerResponse, location: string, close = false): void {
  // Headers as a flat list: Node writes them without walking an object.
  const headers = [
    'Location',
    location,
    'Cache-Control',
    'private, max-age=0',
    'Content-Length',
    '0',
  ];
  if (close) headers.push('Connection', 'close');
  res.writeHead(302, headers);
  res.end();
}

/** A link host's path without a link, where no domain redirect applies; `close` as above. */
export function writeNotFound(res: ServerResponse, close = false): void {
  const headers = [
    'Content-Type',
    'text/html; charset=utf-8',
    'Cache-Control',
    'private, max-age=0',
    'Content-Length',
    String(NOT_FOUND_BYTES),
  ];
  if (close) headers.push('Connection', 'close');
  res.writeHead(404, headers);
  res.end(NOT_FOUND_PAGE);
}

/** The answer for a path of no link: the domain's redirect (`location`) if one applies, else the 404 page. */
export function writeMissing(res: ServerResponse, location: string | null, close = false): void {
  if (location === null) writeNotFound(res, close);
  else writeRedirect(res, location, close);
}

/**
 * A store out of reach, or too many password checks of the project pending: 503, plain text,
 * Retry-After 1 (docs/api.md, "Outages and logs" and "Passwords and proxies").
 */
export function writeUnavailable(res: ServerResponse): void {
  res.writeHead(503, ['Content-Type', 'text/plain; charset=utf-8', 'Retry-After', '1']);
  res.end(UNAVAILABLE);
}
