/**
 * What a redirect needs of a link; a link's redirect_url never changes, so this caches well (an
 * update of its controls drops it on every instance).
 */
export interface LinkTarget {
  linkId: string;
  projectId: string;
  svcId: string;
  redirectUrl: string;
  /** Only on a link with controls (docs/api.md, "Link controls"): the one check plain links pay. */
  controls?: RedirectControls;
}

/** A link's controls as the redirect applies them; locations header-safe (locationOf). */
export interface RedirectControls {
  disabled?: true;
  /** Ms since the epoch: from then on the link has expired. */
  expiresAt?: number;
  maxClicks?: number;
  expiredUrl?: string;
  /** The targeting URLs as served (the rule_redirects column: pattern and UTM applied). */
  ios?: string;
  android?: string;
  /** Country code (upper case) → URL. */
  geo?: Record<string, string>;
  /** The password's scrypt hash (link-password.ts). */
  password?: string;
}

/** What a redirect needs of the link's project. */
export interface ProjectTarget {
  live: boolean;
  /** null: conversions off; 'all'; or the landing hostnames that get `svc=`. */
  conversions: 'all' | string[] | null;
}

/** A link host's domains: the host itself and its `host_segment` domains. */
export interface HostDomains {
  /** root_redirect / not_found_redirect of the host itself, when connected. */
  own: DomainRedirects | null;
  /** segment → its domain's redirects. */
  segments: Record<string, DomainRedirects>;
}

export interface DomainRedirects {
  rootRedirect: string;
  notFoundRedirect: string;
}

/** Printable ASCII without space: what a Location header may carry as it is. */
const HEADER_SAFE = /^[\x21-\x7e]*$/;

/**
 * A redirect target as a Location header can carry it. Stored URLs may hold spaces or non-ASCII
 * characters (an address shared as typed: `https://example.com/日本`, `http://例え.jp/`); Node
 * refuses those in a header, or sends them as Latin-1 bytes. They are written the way a browser
 * sends them: percent-encoded UTF-8, and the host in Punycode (WHATWG URL). Other URLs are
 * untouched.
 */
export function locationOf(url: string): string {
  if (HEADER_SAFE.test(url)) return url;
  try {
    return new URL(url).href;
  } catch {
    return url.replace(/[^\x21-\x7e]/gu, (char) => {
      try {
        return encodeURIComponent(char);
      } catch {
        return '%EF%BF%BD'; // a lone surrogate: U+FFFD
      }
    });
  }
}
