import isEmail from 'validator/lib/isEmail';

/** docs/api.md, "Administration": an e-mail address is at most 254 characters (RFC 5321). */
const MAX_EMAIL_LENGTH = 254;

/**
 * An e-mail address as users are invited by it (docs/api.md, "Administration"): the `validator`
 * package's check (one dot-atom or quoted local part, a domain with a TLD, no display name), plus
 * no whitespace or control character anywhere, which a quoted local part would allow: the address
 * is written into a mail header line.
 */
export function isEmailAddress(value: string): boolean {
  return (
    value.length <= MAX_EMAIL_LENGTH &&
    !/[\s\p{Cc}]/u.test(value) &&
    isEmail(value, { allow_display_name: false, require_tld: true, allow_ip_domain: false })
  );
}

/** An absolute http(s) URL with a host. */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 4096) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOSTNAME_RE = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*$`);
const SEGMENT_RE = /^[A-Za-z0-9-]{1,64}$/;

/**
 * A link domain as the admin API writes it: a lowercase hostname (optionally :port), or
 * `hostname_segment` for links of the form hostname/segment/path (docs/api.md, "Administration").
 */
export function parseLinkHost(
  value: string,
): { hostname: string; port: string | null; segment: string | null } | null {
  const underscore = value.indexOf('_');
  const hostPart = underscore === -1 ? value : value.slice(0, underscore);
  const segment = underscore === -1 ? null : value.slice(underscore + 1);
  if (segment !== null && !SEGMENT_RE.test(segment)) return null;
  const match = /^(.*?)(?::(\d{1,5}))?$/.exec(hostPart);
  if (!match || !HOSTNAME_RE.test(match[1])) return null;
  return { hostname: match[1], port: match[2] ?? null, segment };
}

/**
 * A link domain as stored in `domains.hostname`: the host part lowercased, a `_segment` kept as
 * written (it is a path segment of the links).
 */
export function normaliseLinkHost(value: string): string {
  const trimmed = value.trim();
  const underscore = trimmed.indexOf('_');
  return underscore === -1
    ? trimmed.toLowerCase()
    : `${trimmed.slice(0, underscore).toLowerCase()}${trimmed.slice(underscore)}`;
}
