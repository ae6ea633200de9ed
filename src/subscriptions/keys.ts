import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new subscription or application key: 256 random bits, URL-safe. */
export function generateSecretKey(): string {
  return randomBytes(32).toString('base64url');
}

/** A new project API key: 64 lowercase hex characters (256 bits). */
export function generateProjectApiKey(): string {
  return randomBytes(32).toString('hex');
}

/** The prefix that tells a publishable key from a project API key at a glance. */
export const PUBLISHABLE_KEY_PREFIX = 'pk_';
export const PUBLISHABLE_KEY_RE = /^pk_[0-9a-f]{32}$/;

/**
 * A new publishable key (docs/api.md, "Keys"): `pk_` and 32 lowercase hex characters (128 bits).
 * Not a secret (it is published in landing pages), so stored as it is. The migration that added the
 * column fills existing projects with the same format from PostgreSQL's own random source.
 */
export function generatePublishableKey(): string {
  return PUBLISHABLE_KEY_PREFIX + randomBytes(16).toString('hex');
}

/** Secrets are stored as SHA-256 hashes only. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Compares a presented key with a stored hash in constant time. */
export function keyMatches(key: string, storedHash: string): boolean {
  const presented = Buffer.from(hashKey(key), 'hex');
  const stored = Buffer.from(storedHash.trim(), 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
