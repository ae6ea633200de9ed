import { createHash } from 'node:crypto';
import { LINK_METADATA, NewLink } from './links.repository';

/**
 * The fingerprint of a static link: its domain, URL and every metadata value (LINK_METADATA), and
 * its path when one was asked for (docs/api.md, "Tracked links": static).
 */
export function staticFingerprint(row: NewLink, customPath: boolean): string {
  const parts = [
    row.domain,
    row.originalUrl,
    ...LINK_METADATA.map(([property]) => row[property]),
    customPath ? row.path : null,
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/**
 * The fingerprint a static link with a password holds: its own (the salted hash makes it unique),
 * since two links of one fingerprint may carry different passwords. Static finds such a link by
 * verifying the password given against each candidate's hash (docs/api.md, static).
 */
export function protectedFingerprint(fingerprint: string, passwordHash: string): string {
  return createHash('sha256')
    .update(JSON.stringify([fingerprint, passwordHash]))
    .digest('hex');
}

/** Whether an update changes a fingerprinted value (tag arrays compared element by element). */
export function changesMetadata(changes: Partial<NewLink>, link: NewLink): boolean {
  return LINK_METADATA.some(
    ([property]) => property in changes && !sameValue(changes[property], link[property]),
  );
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
