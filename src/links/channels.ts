import { Errors } from '../common/app-error';

/**
 * Known channels and the service each belongs to (docs/api.md, "Tracked links": channel →
 * service). Any other channel belongs to the part
 * before its first `-`, or to itself.
 */
const CHANNEL_SERVICES: Record<string, string> = {
  twitter: 'twitter',
  'twitter-message': 'twitter',
  'twitter-share': 'twitter',
  x: 'twitter',
  facebook: 'facebook',
  'facebook-post': 'facebook',
  'facebook-share': 'facebook',
  'facebook-send': 'facebook',
  'facebook-message': 'facebook',
  'facebook-like': 'facebook',
  email: 'email',
  'email-share': 'email',
  copypaste: 'copypaste',
  linkedin: 'linkedin',
  'linkedin-share': 'linkedin',
  gplus: 'googleplus',
  googleplus: 'googleplus',
  'googleplus-share': 'googleplus',
  pinterest: 'pinterest',
  'pinterest-pin': 'pinterest',
  tumblr: 'tumblr',
  'tumblr-post': 'tumblr',
  reddit: 'reddit',
  'reddit-post': 'reddit',
  sms: 'sms',
  whatsapp: 'whatsapp',
  telegram: 'telegram',
  mastodon: 'mastodon',
  bluesky: 'bluesky',
  threads: 'threads',
  instagram: 'instagram',
  youtube: 'youtube',
  manual: 'manual',
  other: 'other',
  static: 'static',
};

/** The known channels, in the order above: the channel picker of the console (OpenAPI KnownChannel). */
export const KNOWN_CHANNELS = Object.keys(CHANNEL_SERVICES);

export function serviceForChannel(channel: string): string {
  const known = CHANNEL_SERVICES[channel.toLowerCase()];
  if (known) return known;
  const dash = channel.indexOf('-');
  return (dash > 0 ? channel.slice(0, dash) : channel).toLowerCase();
}

/** Whether the channel is in the known table (a bare numeric service_userid then gets a prefix). */
function isKnownChannel(channel: string): boolean {
  return channel.toLowerCase() in CHANNEL_SERVICES;
}

export type ServiceIdCheck = { ok: true; value: string } | { ok: false; reason: string };

/**
 * service_userid / service_postid are `service:id`, the service matching the channel's. A bare
 * numeric id with a known channel gets `service:` prepended (docs/api.md, "Tracked links").
 */
export function normaliseServiceId(value: string, channel: string | null): ServiceIdCheck {
  const service = channel ? serviceForChannel(channel) : null;
  const colon = value.indexOf(':');
  if (colon === -1) {
    if (service && channel && isKnownChannel(channel) && /^\d+$/.test(value)) {
      return { ok: true, value: `${service}:${value}` };
    }
    return { ok: false, reason: 'must be service:id' };
  }
  const given = value.slice(0, colon).toLowerCase();
  const id = value.slice(colon + 1);
  if (given === '' || id === '') return { ok: false, reason: 'must be service:id' };
  if (service && given !== service) {
    return {
      ok: false,
      reason: `service "${given}" does not match the channel's service "${service}"`,
    };
  }
  return { ok: true, value: `${given}:${id}` };
}

/** The same, or a 400 naming the parameter. */
export function requireServiceId(value: string, channel: string | null, parameter: string): string {
  const check = normaliseServiceId(value, channel);
  if (!check.ok) throw Errors.invalid(parameter, check.reason);
  return check.value;
}
