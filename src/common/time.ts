/** `YYYY-MM-DD HH:MM:SS` in UTC, the administration API's timestamp format. */
export function adminTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** `YYYY-MM-DDTHH:MM:SSZ`, the link and stats timestamp format. */
export function isoTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
