import type { IncomingMessage } from 'node:http';

/**
 * The body parsers' test of whether to read a body: a request of `mediaType` (parameters ignored,
 * any case), and never a GET or HEAD one. Their parameters come from the query string alone
 * (docs/api.md, "Security"): a body sent with them is not parsed, so no handler sees it.
 */
export function bodyOfType(mediaType: string): (req: IncomingMessage) => boolean {
  return (req) =>
    req.method !== 'GET' &&
    req.method !== 'HEAD' &&
    (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase() === mediaType;
}
