import type { LinkEntity } from '../link.entity';

type Raw = Record<string, unknown>;

/**
 * The link controls, the one list of them (docs/api.md, "Link controls"; migration LinkControls):
 * each request parameter, the LinkEntity property that stores it and that property's column of
 * `links`. The password is stored as its hash.
 */
export const CONTROLS = [
  { parameter: 'expires_at', property: 'expiresAt', column: 'expires_at' },
  { parameter: 'max_clicks', property: 'maxClicks', column: 'max_clicks' },
  { parameter: 'expired_url', property: 'expiredUrl', column: 'expired_url' },
  { parameter: 'disabled', property: 'disabled', column: 'disabled' },
  { parameter: 'ios_url', property: 'iosUrl', column: 'ios_url' },
  { parameter: 'android_url', property: 'androidUrl', column: 'android_url' },
  { parameter: 'geo', property: 'geo', column: 'geo' },
  { parameter: 'password', property: 'passwordHash', column: 'password_hash' },
] as const satisfies readonly { parameter: string; property: keyof LinkEntity; column: string }[];

export type ControlParameter = (typeof CONTROLS)[number]['parameter'];
export type ControlProperty = (typeof CONTROLS)[number]['property'];

/**
 * The control columns of `links` by LinkEntity property: each control's, then the served form of
 * the targeting URLs (rule_redirects, built from ios_url, android_url and geo).
 */
export const CONTROL_COLUMNS: [ControlProperty | 'ruleRedirects', string][] = [
  ...CONTROLS.map(({ property, column }): [ControlProperty, string] => [property, column]),
  ['ruleRedirects', 'rule_redirects'],
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
