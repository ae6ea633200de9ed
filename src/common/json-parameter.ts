import { Errors } from './app-error';

/** Parses a parameter that carries a JSON object as a string (admin `json`); 400 naming it otherwise. */
export function parseJsonObject(value: unknown, parameter = 'json'): Record<string, unknown> {
  if (value === undefined || value === null || value === '') throw Errors.missing(parameter);
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw Errors.invalid(parameter, 'is not valid JSON');
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw Errors.invalid(parameter, 'must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

/**
 * A single string where an array is expected is taken as an array of one (docs/api.md,
 * "Administration").
 */
export function stringList(value: unknown, parameter: string): string[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, index) => {
    if (typeof item !== 'string' || item.trim() === '') {
      throw Errors.invalid(`${parameter}[${index}]`, 'must be a non-empty string');
    }
    return item.trim();
  });
}

/**
 * Refuses fields an object does not know, naming them (a typo must not pass silently):
 * `Invalid parameter json.colour: not a field of … (allowed: …)`.
 */
export function rejectUnknownFields(
  object: Record<string, unknown>,
  allowed: readonly string[],
  parameter: string,
  what: string,
): void {
  const unknown = Object.keys(object).filter((key) => !allowed.includes(key));
  if (unknown.length === 0) return;
  const fields = `allowed: ${allowed.join(', ')}`;
  if (unknown.length === 1) {
    throw Errors.invalid(`${parameter}.${unknown[0]}`, `not a field of ${what} (${fields})`);
  }
  throw Errors.invalid(parameter, `unknown fields ${unknown.join(', ')} in ${what} (${fields})`);
}
