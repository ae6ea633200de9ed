import type { LinkEntity } from '../link.entity';

type Raw = Record<string, unknown>;

/** The control columns of `links` (migration LinkControls), by LinkEntity property. */
type ControlProperty =
  | 'expiresAt'
  | 'maxClicks'
  | 'expiredUrl'
  | 'disabled'
  | 'iosUrl'
  | 'androidUrl'
  | 'geo'
  | 'ruleRedirects'
  | 'passwordHash';

export const CONTROL_COLUMNS: [ControlProperty, string][] = [
  ['expiresAt', 'expires_at'],
  ['maxClicks', 'max_clicks'],
  ['expiredUrl', 'expired_url'],
  ['disabled', 'disabled'],
  ['iosUrl', 'ios_url'],
  ['androidUrl', 'android_url'],
  ['geo', 'geo'],
  ['ruleRedirects', 'rule_redirects'],
  ['passwordHash', 'password_hash'],
];

const JSON_COLUMNS = new Set<string>(['geo', 'ruleRedirects']);

/**
 * A property's value as a statement parameter: jsonb as JSON text (node-postgres would write an
 * array as a PostgreSQL array), `disabled` false when not given, anything else null when unset.
 */
export function columnValue(property: string, value: unknown): unknown {
  if (value === undefined || value === null) return property === 'disabled' ? false : null;
  return JSON_COLUMNS.has(property) ? JSON.stringify(value) : value;
}

/** The control properties of a link read from a row, typed (jsonb as objects, max_clicks a number). */
export function readControlColumns(raw: Raw, link: LinkEntity): void {
  const expiresAt = raw.expires_at as string | Date | null | undefined;
  link.expiresAt = expiresAt ? new Date(expiresAt) : null;
  const maxClicks = raw.max_clicks as number | string | null | undefined;
  link.maxClicks = maxClicks === null || maxClicks === undefined ? null : Number(maxClicks);
  link.disabled = raw.disabled === true;
  link.geo = json(raw.geo) as LinkEntity['geo'];
  link.ruleRedirects = json(raw.rule_redirects) as LinkEntity['ruleRedirects'];
}

function json(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? JSON.parse(value) : value;
}
