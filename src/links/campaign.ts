const STUB_RE = /^[a-z0-9_-]+$/;

/** Whether a campaign value is already a stub (a-z0-9_-). */
export function isStub(value: string): boolean {
  return STUB_RE.test(value);
}

/**
 * The campaign identifier of a submitted value: lower case, accents dropped, every run of other
 * characters turned into one `_`, no `_` at either end ("Summer Sale 2026!" → "summer_sale_2026").
 * Returns null when nothing is left.
 */
export function stubify(value: string): string | null {
  const stub = value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 255);
  return stub === '' ? null : stub;
}
