import type { ServerResponse } from 'node:http';

// The redirect listener's plain answers, each written in one place.

const NOT_FOUND_PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>Link not found</title></head>' +
  '<body><h1>Link not found</h1><p>This short link does not exist.</p></body></html>';
const NOT_FOUND_BYTES = Buffer.byteLength(NOT_FOUND_PAGE);
const UNAVAILABLE = 'Temporarily unavailable, please retry';

/**
 * 302, never 301: a browser would cache a 301 and later visits would go uncounted. Locations are
 * header-safe already (locationOf, when the repository reads them).
 */
export function writeRedirect(res: ServerResponse, location: string): void {
  // Headers as a flat list: Node writes them without walking an object.
  res.writeHead(302, [
    'Location',
    location,
    'Cache-Control',
    'private, max-age=0',
    'Content-Length',
    '0',
  ]);
  res.end();
}

/** A link host's path without a link, where no domain redirect applies. */
export function writeNotFound(res: ServerResponse): void {
  res.writeHead(404, [
    'Content-Type',
    'text/html; charset=utf-8',
    'Cache-Control',
    'private, max-age=0',
    'Content-Length',
    String(NOT_FOUND_BYTES),
  ]);
  res.end(NOT_FOUND_PAGE);
}

/**
 * A store out of reach, or too many password checks of the project pending: 503, plain text,
 * Retry-After 1 (docs/api.md, "Outages and logs" and "Passwords and proxies").
 */
export function writeUnavailable(res: ServerResponse): void {
  res.writeHead(503, ['Content-Type', 'text/plain; charset=utf-8', 'Retry-After', '1']);
  res.end(UNAVAILABLE);
}
