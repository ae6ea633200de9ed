/**
 * The click dimensions (docs/api.md, "Statistics"): where a click came from, on what, and from which
 * site. They group and filter clicks, not links, so shares and clicks per share have no value there.
 */
export const DIMENSIONS = [
  'country',
  'region',
  'city',
  'device',
  'browser',
  'os',
  'referrer_host',
] as const;

/** One of the click dimensions. */
export type Dimension = (typeof DIMENSIONS)[number];

/** A dimension's name as a column or filter label, and as a panel title. */
export const DIMENSION_LABELS: Record<Dimension, { name: string; title: string }> = {
  country: { name: 'Country', title: 'Top countries' },
  region: { name: 'Region', title: 'Top regions' },
  city: { name: 'City', title: 'Top cities' },
  device: { name: 'Device', title: 'Devices' },
  browser: { name: 'Browser', title: 'Browsers' },
  os: { name: 'Operating system', title: 'Operating systems' },
  referrer_host: { name: 'Referring site', title: 'Referring sites' },
};

/** Whether a group or filter field is a click dimension. */
export function isDimension(field: string): field is Dimension {
  return (DIMENSIONS as readonly string[]).includes(field);
}

let regions: Intl.DisplayNames | undefined;

/** A country's name in the reader's language from its ISO 3166 alpha-2 code (the code if unknown). */
export function countryName(code: string): string {
  try {
    regions ??= new Intl.DisplayNames(undefined, { type: 'region', fallback: 'code' });
    return regions.of(code.toUpperCase()) ?? code;
  } catch {
    // Not a region code at all (RangeError): shown as it is.
    return code;
  }
}

/** A group or filter value as a reader sees it: country names, device kinds capitalised. */
export function displayValue(field: string, value: unknown): string {
  if (value === null || value === undefined) {
    if (field === 'referrer_host') return '(direct)';
    return isDimension(field) ? '(unknown)' : '(none)';
  }
  const text =
    typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value);
  if (field === 'country') return countryName(text);
  if (field === 'device') return text.charAt(0).toUpperCase() + text.slice(1);
  return text;
}
