import { PatternValues, expandPattern } from '../common/redirect-pattern';
import { isoTimestamp } from '../common/time';
import type { ProjectSettings } from '../projects/project.entity';
import type { CampaignEntity } from './campaign.entity';
import type { RuleRedirects } from './link.entity';
import { svcUrl } from './link-path';
import type { NewLink } from './links.repository';
import type { UserIdentityEntity } from './user-identity.entity';

/** What a link's redirect_url is built from; built again when a collision changes its path. */
export interface RedirectInputs {
  pageUrl: string;
  settings: ProjectSettings;
  toolLabel: string;
  scheme: string;
  campaign: CampaignEntity | null;
  identity: UserIdentityEntity | null;
  createdAt: Date | null;
}

/** URL query parameters that do not change the page (dropped when canonicalising). */
const TRACKING_PARAMETERS = /^(utm_[a-z]+|fbclid|gclid|svc)$/i;

/** The page address without fragment, default port and tracking parameters. */
export function canonicalUrl(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  for (const name of [...parsed.searchParams.keys()]) {
    if (TRACKING_PARAMETERS.test(name)) parsed.searchParams.delete(name);
  }
  return parsed.toString();
}

/**
 * Sets original_url and redirect_url: the project's redirection pattern for the page's hostname, if
 * any (then original_url is canonical), then the UTM parameters when the project has them on
 * (docs/api.md, "Tracked links": redirection patterns and UTM). Stored campaign and user identity
 * values fill their %fields%. The link's targeting URLs (ios_url, android_url, geo) are served the
 * same way: rule_redirects holds them so.
 */
export function applyRedirect(row: NewLink, inputs: RedirectInputs): void {
  const main = redirectOf(row, inputs, inputs.pageUrl);
  row.originalUrl = main.originalUrl;
  row.redirectUrl = main.redirectUrl;
  if (row.iosUrl || row.androidUrl || row.geo) row.ruleRedirects = ruleRedirects(row, inputs);
}

/**
 * The targeting URLs of a link as its redirects serve them (docs/api.md, "Link controls"): each
 * through the project's pattern for its hostname and UTM, as redirect_url is; null without any.
 */
export function ruleRedirects(row: NewLink, inputs: RedirectInputs): RuleRedirects | null {
  const served = (url: string) => redirectOf(row, inputs, url).redirectUrl;
  const rules: RuleRedirects = {};
  if (row.iosUrl) rules.ios = served(row.iosUrl);
  if (row.androidUrl) rules.android = served(row.androidUrl);
  if (row.geo) {
    rules.geo = Object.fromEntries(
      Object.entries(row.geo).map(([country, url]) => [country, served(url)]),
    );
  }
  return Object.keys(rules).length > 0 ? rules : null;
}

/** A page address as a link of `row` serves it: original_url (canonical under a pattern) and redirect_url. */
function redirectOf(
  row: NewLink,
  inputs: RedirectInputs,
  pageUrl: string,
): { originalUrl: string; redirectUrl: string } {
  const { settings, campaign, identity, createdAt } = inputs;
  let originalUrl = pageUrl;
  let redirectUrl = pageUrl;
  const hostname = new URL(originalUrl).hostname.toLowerCase();
  const pattern = settings.redirection_patterns?.[hostname];
  if (pattern) {
    originalUrl = canonicalUrl(originalUrl);
    const values: PatternValues = {
      svc_url: svcUrl(inputs.scheme, row.domain, row.path),
      svc_id: row.svcId,
      domain: row.domain,
      path: row.path,
      created_at: createdAt ? isoTimestamp(createdAt) : null,
      original_url: originalUrl,
      channel: row.channel,
      service: row.service,
      tool: row.tool,
      application: row.application,
      parent: row.parent,
      sharer_id: row.sharerId,
      username: row.username,
      service_userid: row.serviceUserid,
      service_postid: row.servicePostid,
      service_postid_reach: row.servicePostidReach,
      service_postid_shared_at: row.servicePostidSharedAt
        ? isoTimestamp(row.servicePostidSharedAt)
        : null,
      campaign: row.campaign,
      campaign_name: campaign?.name ?? null,
      campaign_description: campaign?.description ?? null,
      user_id: row.userId,
      user_id_username: identity?.username ?? null,
      user_id_icon_url: identity?.iconUrl ?? null,
      user_id_profile_url: identity?.profileUrl ?? null,
      tag: row.tag,
      notes: row.notes,
    };
    redirectUrl = expandPattern(pattern, values);
  }
  if (settings.utm_parameters) {
    const target = new URL(redirectUrl);
    if (row.campaign) target.searchParams.set('utm_campaign', row.campaign);
    target.searchParams.set('utm_medium', `${row.domain}-${row.channel ?? 'static'}`);
    target.searchParams.set('utm_source', `direct-${row.domain}`);
    target.searchParams.set('utm_content', inputs.toolLabel);
    redirectUrl = target.toString();
  }
  return { originalUrl, redirectUrl };
}
