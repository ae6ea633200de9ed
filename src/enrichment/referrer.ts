/**
 * The host a click was referred from: the referrer URL's hostname (WHATWG URL parsing)
 * lower-cased, without one leading `www.` or a trailing dot, so www.Google.com. and google.com
 * count together. Null for a direct visit (no referrer), an unparsable one, or a URL without a
 * host (mailto:, file:).
 */
export function referrerHost(referrer: string | null): string | null {
  if (!referrer) return null;
  let host: string;
  try {
    host = new URL(referrer).hostname.toLowerCase();
  } catch {
    return null;
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.startsWith('www.')) host = host.slice(4);
  return host === '' ? null : host;
}
