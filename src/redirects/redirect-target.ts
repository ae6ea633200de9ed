/** What a redirect needs of a link; links never change their target, so this caches well. */
export interface LinkTarget {
  linkId: string;
  projectId: string;
  svcId: string;
  redirectUrl: string;
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
