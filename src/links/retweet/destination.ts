import { Errors } from '../../common/app-error';
import { RawParams, bool, single } from '../../common/params';
import { isHttpUrl } from '../../common/validators';
import { TEXT_MAX, extractLinks } from './text-links';

/** The longest `url` share takes (as create). */
export const URL_MAX = 4096;

/**
 * The `destination` of retweet and share: an absolute http(s) URL in which placeholders are
 * replaced (SVC_TEXT by the text, SVC_URL by the link) before the visitor is sent there.
 */
export function readDestination(params: RawParams): string | undefined {
  const destination = single(params, 'destination', 8192);
  if (destination !== undefined && !isHttpUrl(destination)) {
    throw Errors.invalid('destination', 'must be an absolute http(s) URL');
  }
  return destination;
}

/** Every SVC_URL replaced by the URL-escaped link. */
export function fillUrl(destination: string, url: string): string {
  return destination.split('SVC_URL').join(encodeURIComponent(url));
}

/**
 * A retweet's destination: SVC_URL replaced by its first link, then SVC_TEXT by the text (so a text
 * holding the word SVC_URL arrives as written). The text keeps the escapes its caller made: callers
 * of a microblogging share address double-encode `&` and `#` in `text` as docs/api.md asks, so
 * `Tom%2526Jerry` arrives here as `Tom%26Jerry` and must reach the destination so; what is left
 * unescaped (a space, a bare `&` or `#`, any other character) is escaped. Both kinds of caller get
 * their text through.
 */
export function retweetDestination(destination: string, text: string, url: string): string {
  return fillUrl(destination, url).split('SVC_TEXT').join(escapeKeepingEscapes(text));
}

/** Percent-encodes a query value, leaving each `%XX` escape already in it as it is. */
function escapeKeepingEscapes(text: string): string {
  return text
    .split(/(%[0-9A-Fa-f]{2})/)
    .map((part, i) => (i % 2 === 1 ? part : encodeURIComponent(part)))
    .join('');
}

/**
 * Where a retweet's visitor goes when the retweet fails and `errors` is false: the destination
 * with the text as given and its first link as it is. Null when the failure must be answered as an
 * error instead: no destination, an invalid one, `errors` not false, or a text the retweet itself
 * refuses (not one value, over TEXT_MAX: the cap holds here too). The caller decides first that the
 * key is valid (DestinationFallbackFilter).
 */
export function retweetFallback(params: RawParams): string | null {
  const destination = fallbackDestination(params);
  const text = fallbackValue(params, 'text', TEXT_MAX);
  if (destination === null || text === null) return null;
  return retweetDestination(destination, text, extractLinks(text)[0]?.url ?? '');
}

/** The same for share: the destination with `url` as given (as share caps it) for SVC_URL. */
export function shareFallback(params: RawParams): string | null {
  const destination = fallbackDestination(params);
  const url = fallbackValue(params, 'url', URL_MAX);
  if (destination === null || url === null) return null;
  return fillUrl(destination, url);
}

function fallbackDestination(params: RawParams): string | null {
  try {
    const destination = readDestination(params);
    return destination !== undefined && !bool(params, 'errors', false) ? destination : null;
  } catch {
    return null;
  }
}

/** A parameter as the endpoint reads it ('' when absent), or null when the endpoint refuses it. */
function fallbackValue(params: RawParams, name: string, max: number): string | null {
  try {
    return single(params, name, max) ?? '';
  } catch {
    return null;
  }
}
