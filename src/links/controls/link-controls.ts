import { Errors } from '../../common/app-error';
import { parseJsonObject } from '../../common/json-parameter';
import { RawParams, parseDate } from '../../common/params';
import { isHttpUrl } from '../../common/validators';
import { COUNTRY_CODES } from './country-codes';
import { PASSWORD_MAX, hashPassword } from './link-password';
import type { LinkEntity } from '../link.entity';
import type { ControlProperty } from './link-control-columns';

/**
 * Caps on what a link carries to every redirect cache (docs/api.md, "Limits"): a batch copies its
 * controls to up to 1,000 links.
 */
const GEO_MAX_COUNTRIES = 50;
/** The geo rules in all: the JSON as given, or as stored when given as an object. */
const GEO_MAX_BYTES = 16 * 1024;
const URL_MAX = 4096;
/** The largest max_clicks: the column is a PostgreSQL integer. */
const MAX_CLICKS_MAX = 2 ** 31 - 1;

/**
 * The control columns a request sets: a property left out is not given (unchanged on update), a
 * null clears the control (update only), `disabled: false` enables the link again.
 */
export type ControlChanges = Partial<Pick<LinkEntity, ControlProperty>>;

/** Controls as read from a request: the password still in clear (null: removed on update). */
export interface ControlValues {
  changes: ControlChanges;
  password?: string | null;
}

/**
 * create, batch and static take a control only with a value (an empty one is refused, naming it:
 * a blank password must not make an unprotected link); on update an empty value removes it.
 */
export type ControlMode = 'create' | 'update';

function text(params: RawParams, name: string, max: number, mode: ControlMode): string | null {
  const value = params[name];
  if (typeof value !== 'string') {
    throw Errors.invalid(name, 'must be given once, as a single value');
  }
  if (value === '') {
    if (mode === 'update') return null;
    throw Errors.invalid(name, 'must not be empty (leave it out for none; update removes it so)');
  }
  if (value.length > max) throw Errors.invalid(name, `must be at most ${max} characters`);
  return value;
}

function url(name: string, value: string | null): string | null {
  if (value === null) return null;
  if (value.length > URL_MAX) throw Errors.invalid(name, `must be at most ${URL_MAX} characters`);
  if (!isHttpUrl(value)) throw Errors.invalid(name, 'must be an absolute http(s) URL');
  return value;
}

/** Whether a string's UTF-8 form is longer than `max` bytes, without encoding a long one. */
function overBytes(value: string, max: number): boolean {
  return value.length > max || Buffer.byteLength(value, 'utf8') > max;
}

function expiry(value: string | null, now: number): Date | null {
  if (value === null) return null;
  // To the second, as the link record shows it.
  const at = new Date(Math.floor(parseDate(value, 'expires_at').getTime() / 1000) * 1000);
  if (at.getTime() <= now) throw Errors.invalid('expires_at', 'must be in the future');
  return at;
}

function maxClicks(value: string | null): number | null {
  if (value === null) return null;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || number > MAX_CLICKS_MAX) {
    throw Errors.invalid('max_clicks', `must be a positive integer (at most ${MAX_CLICKS_MAX})`);
  }
  return number;
}

function disabled(value: string | null): boolean {
  const lower = value?.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  throw Errors.invalid('disabled', 'must be true or false');
}

/**
 * `geo`: a JSON object of country code (ISO 3166-1 alpha-2, any case) → absolute http(s) URL, as a
 * string or, from a JSON body or `geo[US]=…`, the object itself. Codes are kept upper case; `{}`
 * is no rule. Null when empty. At most GEO_MAX_COUNTRIES rules and GEO_MAX_BYTES in all, checked
 * before the JSON is parsed when it comes as a string.
 */
function readGeo(value: unknown, mode: ControlMode): Record<string, string> | null {
  if (value === '' && mode === 'update') return null;
  if (Array.isArray(value)) throw Errors.invalid('geo', 'must be a JSON object');
  const tooBig = () => Errors.invalid('geo', `must be at most ${GEO_MAX_BYTES} bytes of JSON`);
  if (typeof value === 'string' && overBytes(value, GEO_MAX_BYTES)) throw tooBig();
  if (value === '') throw Errors.invalid('geo', 'must not be empty (leave it out for none)');
  const object = parseJsonObject(value, 'geo');
  const entries = Object.entries(object);
  if (entries.length > GEO_MAX_COUNTRIES) {
    throw Errors.invalid('geo', `at most ${GEO_MAX_COUNTRIES} countries`);
  }
  const geo: Record<string, string> = {};
  for (const [key, target] of entries) {
    const code = key.toUpperCase();
    if (!/^[A-Z]{2}$/.test(code) || !COUNTRY_CODES.has(code)) {
      throw Errors.invalid(`geo.${key}`, 'is not an ISO 3166-1 alpha-2 country code');
    }
    if (code in geo) throw Errors.invalid(`geo.${key}`, `${code} is given twice`);
    if (typeof target !== 'string') {
      throw Errors.invalid(`geo.${key}`, 'must be an absolute http(s) URL');
    }
    geo[code] = url(`geo.${key}`, target)!;
  }
  // An object (a JSON body, geo[US]=…) is weighed as stored: at most 50 rules of 4,096 characters.
  if (typeof value !== 'string' && overBytes(JSON.stringify(geo), GEO_MAX_BYTES)) throw tooBig();
  return entries.length === 0 ? null : geo;
}

/**
 * The control parameters of a request (docs/api.md, "Link controls"), checked: 400 naming the
 * parameter. `now` is when the request is read (expires_at must come after it).
 */
export function readLinkControls(
  params: RawParams,
  mode: ControlMode,
  now = Date.now(),
): ControlValues {
  const changes: ControlChanges = {};
  const values: ControlValues = { changes };
  const given = (name: string) => params[name] !== undefined && params[name] !== null;
  if (given('expires_at')) {
    changes.expiresAt = expiry(text(params, 'expires_at', 64, mode), now);
  }
  if (given('max_clicks')) changes.maxClicks = maxClicks(text(params, 'max_clicks', 20, mode));
  if (given('expired_url')) {
    changes.expiredUrl = url('expired_url', text(params, 'expired_url', URL_MAX, mode));
  }
  if (given('disabled')) changes.disabled = disabled(text(params, 'disabled', 10, mode));
  if (given('ios_url')) changes.iosUrl = url('ios_url', text(params, 'ios_url', URL_MAX, mode));
  if (given('android_url')) {
    changes.androidUrl = url('android_url', text(params, 'android_url', URL_MAX, mode));
  }
  if (given('geo')) changes.geo = readGeo(params.geo, mode);
  if (given('password')) {
    const password = text(params, 'password', 4 * PASSWORD_MAX, mode);
    if (password !== null && [...password].length > PASSWORD_MAX) {
      throw Errors.invalid('password', `must be 1 to ${PASSWORD_MAX} characters`);
    }
    values.password = password;
  }
  return values;
}

/**
 * The control columns to write: the password hashed (scrypt, about 50 ms of a thread). Services
 * call it once a request has passed the checks that need no hash, so a refused request costs none.
 */
export async function resolveControls(values: ControlValues): Promise<ControlChanges> {
  if (values.password === undefined) return values.changes;
  return {
    ...values.changes,
    passwordHash: values.password === null ? null : await hashPassword(values.password),
  };
}

/**
 * Each request's control columns (none for undefined), a password hashed once for the requests
 * that share their controls: the links of a batch.
 */
export function resolveEach(all: (ControlValues | undefined)[]): Promise<ControlChanges[]> {
  const resolved = new Map<ControlValues, Promise<ControlChanges>>();
  return Promise.all(
    all.map((values) => {
      if (values === undefined) return Promise.resolve({});
      let changes = resolved.get(values);
      if (changes === undefined) {
        changes = resolveControls(values);
        resolved.set(values, changes);
      }
      return changes;
    }),
  );
}

/** Whether a request gives any control (a password removed included). */
export function givesControls(values: ControlValues | undefined): boolean {
  return (
    values !== undefined &&
    (Object.keys(values.changes).length > 0 || values.password !== undefined)
  );
}

/** Whether the changes touch a targeting URL, whose served form (rule_redirects) is then built anew. */
export function changesTargets(changes: ControlChanges): boolean {
  return 'iosUrl' in changes || 'androidUrl' in changes || 'geo' in changes;
}
