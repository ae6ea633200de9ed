/**
 * A link's controls (docs/api.md, "Link controls") as the console's form edits them, and the
 * parameters of the update that saves them.
 */
import type { Controlled } from './components/control-badges';

/** The controls update clears with an empty value, edited as text. */
export type TextControl = 'expires_at' | 'max_clicks' | 'expired_url' | 'ios_url' | 'android_url';

/** One country rule of `geo`, as typed. */
export interface GeoRow {
  id: number;
  country: string;
  url: string;
}

/** A link's controls as the form edits them: text as typed, the expiry in the browser's time. */
export interface ControlForm extends Record<TextControl, string> {
  disabled: boolean;
  geo: GeoRow[];
}

/** What the form does to the password: set a new one (none when empty), or remove it. */
export type PasswordChange = { set: string } | 'remove';

let rowIds = 0;

/** A new row of the country rules (empty unless given), with an id of its own. */
export function geoRow(country = '', url = ''): GeoRow {
  return { id: ++rowIds, country, url };
}

/** An instant as a datetime-local value in the browser's time zone, to the minute. */
export function localDateTime(iso: string): string {
  const d = new Date(iso);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** The form of a link record's controls (empty where a control is not set). */
export function formOf(link: Controlled): ControlForm {
  return {
    expires_at: link.expires_at ? localDateTime(link.expires_at) : '',
    max_clicks: link.max_clicks !== undefined ? String(link.max_clicks) : '',
    expired_url: link.expired_url ?? '',
    ios_url: link.ios_url ?? '',
    android_url: link.android_url ?? '',
    disabled: link.disabled === true,
    geo: Object.entries(link.geo ?? {}).map(([country, url]) => geoRow(country, url)),
  };
}

/**
 * The rules of the rows (codes upper case, blank rows left out); an Error naming a half-filled or
 * repeated row.
 */
export function geoOf(rows: GeoRow[]): Record<string, string> {
  const geo: Record<string, string> = {};
  rows.forEach((row, i) => {
    const country = row.country.trim().toUpperCase();
    const url = row.url.trim();
    if (country === '' && url === '') return;
    if (country === '' || url === '') {
      throw new Error(`Country rule ${i + 1}: give both a country and the URL its visitors go to`);
    }
    if (country in geo) throw new Error(`Country rule ${i + 1}: ${country} has a rule already`);
    geo[country] = url;
  });
  return geo;
}

function sameGeo(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/**
 * The parameters of url/update that make the saved controls (`base`) what the form says: only those
 * that changed; an empty value clears a control; geo as JSON ('' for none). An Error when a
 * country rule is half filled or repeated.
 */
export function changesOf(
  base: ControlForm,
  form: ControlForm,
  password: PasswordChange,
): Record<string, string> {
  const changes: Record<string, string> = {};
  for (const name of ['max_clicks', 'expired_url', 'ios_url', 'android_url'] as const) {
    const value = form[name].trim();
    if (value !== base[name].trim()) changes[name] = value;
  }
  if (form.expires_at !== base.expires_at) {
    const at = new Date(form.expires_at).getTime();
    if (form.expires_at !== '' && Number.isNaN(at)) {
      throw new Error('Expires at: give a date and a time');
    }
    changes.expires_at = form.expires_at === '' ? '' : new Date(at).toISOString();
  }
  if (form.disabled !== base.disabled) changes.disabled = String(form.disabled);
  const geo = geoOf(form.geo);
  if (!sameGeo(geo, geoOf(base.geo))) {
    changes.geo = Object.keys(geo).length === 0 ? '' : JSON.stringify(geo);
  }
  if (password === 'remove') changes.password = '';
  else if (password.set !== '') changes.password = password.set;
  return changes;
}

/** Whether the form changes anything (a half-filled rule counts: saving then says what is wrong). */
export function changed(base: ControlForm, form: ControlForm, password: PasswordChange): boolean {
  try {
    return Object.keys(changesOf(base, form, password)).length > 0;
  } catch {
    return true;
  }
}
