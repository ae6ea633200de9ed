import type { LinkRecord } from '../api/client';

/** The link controls a record shows (docs/api.md, "Link controls"): each present only when set. */
export type Controlled = Pick<
  LinkRecord,
  | 'expires_at'
  | 'max_clicks'
  | 'expired_url'
  | 'disabled'
  | 'ios_url'
  | 'android_url'
  | 'geo'
  | 'password_protected'
>;

/** A date and time in the reader's language and time zone. */
export function dateTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * Why a link has expired (its time has passed, or its counted clicks reached max_clicks), or null.
 * `clicks` are its all-time human clicks, as the redirect counts them.
 */
export function expiredBecause(link: Controlled, clicks: number, now = Date.now()): string | null {
  if (link.expires_at !== undefined && Date.parse(link.expires_at) <= now) {
    return `Expired on ${dateTime(link.expires_at)}`;
  }
  if (link.max_clicks !== undefined && clicks >= link.max_clicks) {
    return `Expired after ${link.max_clicks.toLocaleString()} clicks`;
  }
  return null;
}

function countries(n: number): string {
  return n === 1 ? '1 country' : `${n} countries`;
}

interface Badge {
  text: string;
  /** What the badge means, in full (its title). */
  detail: string;
  warn?: boolean;
}

/** The badges of a link's controls: expired or expiring, disabled, password, targeted. */
export function controlBadges(link: Controlled, clicks: number): Badge[] {
  const badges: Badge[] = [];
  const expired = expiredBecause(link, clicks);
  if (expired) badges.push({ text: 'Expired', detail: expired, warn: true });
  else if (link.expires_at !== undefined || link.max_clicks !== undefined) {
    const limits = [
      link.expires_at !== undefined ? `on ${dateTime(link.expires_at)}` : null,
      link.max_clicks !== undefined
        ? `after ${link.max_clicks.toLocaleString()} clicks (${clicks.toLocaleString()} so far)`
        : null,
    ].filter(Boolean);
    badges.push({ text: 'Expires', detail: `Expires ${limits.join(' or ')}` });
  }
  if (link.disabled) {
    badges.push({ text: 'Disabled', detail: 'Disabled: answers as not found', warn: true });
  }
  if (link.password_protected) {
    badges.push({ text: 'Password', detail: 'Visitors must give a password' });
  }
  const targets = [
    link.geo && countries(Object.keys(link.geo).length),
    link.ios_url && 'iOS',
    link.android_url && 'Android',
  ].filter(Boolean);
  if (targets.length > 0) {
    badges.push({ text: 'Targeted', detail: `Own targets for ${targets.join(', ')}` });
  }
  return badges;
}

/** A link's controls as badges (a dash without any), each titled with what it means. */
export function ControlBadges({ link, clicks }: { link: Controlled; clicks: number }) {
  const badges = controlBadges(link, clicks);
  if (badges.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="badges">
      {badges.map((b) => (
        <li key={b.text} class={b.warn ? 'badge warn' : 'badge'} title={b.detail}>
          {b.text}
        </li>
      ))}
    </ul>
  );
}
