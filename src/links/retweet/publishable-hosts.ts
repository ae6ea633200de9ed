import { AppError, ErrorCode } from '../../common/app-error';
import { ProjectEntity } from '../../projects/project.entity';

/**
 * Whether a URL's host is one of the project's publishable_hosts or a subdomain of one. The URL
 * parser gives the host lowercased and in punycode, as the setting stores it.
 */
export function onPublishableHost(url: string, hosts: readonly string[]): boolean {
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return false;
  }
  return hosts.some((host) => hostname === host || hostname.endsWith(`.${host}`));
}

/**
 * A page's key (the publishable key, published in every page that carries the tracking script)
 * makes links, and redirects, only to the hosts its project lists in publishable_hosts; none
 * listed, it makes none (docs/api.md, "Keys"). 403 naming the parameter and the setting otherwise,
 * so that nobody makes links on the project's brand domain to a page of their own.
 */
export function requirePublishableHost(
  project: ProjectEntity,
  url: string,
  parameter: string,
): void {
  const hosts = project.settings.publishable_hosts ?? [];
  if (hosts.length === 0) {
    throw new AppError(
      403,
      ErrorCode.notPermitted,
      "The project's publishable_hosts setting lists no host: the publishable key makes no links",
    );
  }
  if (!onPublishableHost(url, hosts)) {
    throw new AppError(
      403,
      ErrorCode.notPermitted,
      `${parameter} leads to a host outside the project's publishable_hosts setting; the publishable key makes links and redirects only to those hosts`,
    );
  }
}
