import { isoTimestamp } from '../common/time';
import { CampaignEntity } from './campaign.entity';
import { LinkEntity } from './link.entity';
import { svcUrl } from './link-path';
import { UserIdentityEntity } from './user-identity.entity';

/**
 * The link record (docs/api.md, "Tracked links"): every field present, null when unset; the link
 * controls only when set ("Link controls").
 */
export interface LinkRecord {
  svc_url: string;
  svc_id: string;
  domain: string;
  path: string;
  created_at: string;
  redirect_url: string;
  original_url: string;
  channel: string | null;
  service: string | null;
  tool: string;
  application: string;
  parent: string | null;
  sharer_id: string | null;
  username: string | null;
  service_userid: string | null;
  service_postid: string | null;
  service_postid_metadata: { reach: number | null; shared_at: string | null };
  campaign: string | null;
  campaign_metadata: { description: string | null; name: string | null };
  user_id: string | null;
  user_id_metadata: {
    icon_url: string | null;
    username: string | null;
    profile_url: string | null;
  };
  tag: string | null;
  notes: string | null;
  /** Link controls (docs/api.md, "Link controls"): present only when the link has them. */
  expires_at?: string;
  max_clicks?: number;
  expired_url?: string;
  disabled?: true;
  ios_url?: string;
  android_url?: string;
  geo?: Record<string, string>;
  password_protected?: true;
  /** Extension (docs/api.md, "Importing links"): present only on a link imported with a count. */
  imported_clicks?: number;
  new?: boolean;
  updated_at?: string;
}

export function toLinkRecord(
  link: LinkEntity,
  scheme: string,
  campaign: CampaignEntity | null,
  identity: UserIdentityEntity | null,
): LinkRecord {
  const record: LinkRecord = {
    svc_url: svcUrl(scheme, link.domain, link.path),
    svc_id: link.svcId,
    domain: link.domain,
    path: link.path,
    created_at: isoTimestamp(link.createdAt),
    redirect_url: link.redirectUrl,
    original_url: link.originalUrl,
    channel: link.channel,
    service: link.service,
    tool: link.tool,
    application: link.application,
    parent: link.parent,
    sharer_id: link.sharerId,
    username: link.username,
    service_userid: link.serviceUserid,
    service_postid: link.servicePostid,
    service_postid_metadata: {
      reach: link.servicePostidReach === null ? null : Number(link.servicePostidReach),
      shared_at: link.servicePostidSharedAt ? isoTimestamp(link.servicePostidSharedAt) : null,
    },
    campaign: link.campaign,
    campaign_metadata: { description: campaign?.description ?? null, name: campaign?.name ?? null },
    user_id: link.userId,
    user_id_metadata: {
      icon_url: identity?.iconUrl ?? null,
      username: identity?.username ?? null,
      profile_url: identity?.profileUrl ?? null,
    },
    tag: link.tag,
    notes: link.notes,
  };
  if (link.expiresAt) record.expires_at = isoTimestamp(link.expiresAt);
  if (link.maxClicks !== null && link.maxClicks !== undefined) record.max_clicks = link.maxClicks;
  if (link.expiredUrl) record.expired_url = link.expiredUrl;
  if (link.disabled) record.disabled = true;
  if (link.iosUrl) record.ios_url = link.iosUrl;
  if (link.androidUrl) record.android_url = link.androidUrl;
  if (link.geo) record.geo = link.geo;
  if (link.passwordHash) record.password_protected = true;
  if (link.importedClicks !== null && link.importedClicks !== undefined) {
    record.imported_clicks = Number(link.importedClicks);
  }
  return record;
}
