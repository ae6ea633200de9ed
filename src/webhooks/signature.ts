import { createHmac, randomBytes } from 'node:crypto';

/**
 * Signing of webhook deliveries by the Standard Webhooks specification (docs/api.md, "Webhooks
 * and live events (extension)"), so that a receiver verifies them with any Standard Webhooks
 * library: HMAC-SHA256 over `${id}.${timestamp}.${body}`, keyed by the base64-decoded part of the
 * `whsec_` secret.
 */

const SECRET_PREFIX = 'whsec_';

/** A new webhook secret: `whsec_` and the base64 of 24 random bytes (192 bits). */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

/** The `v1,<base64>` signature of one delivery under one secret. */
export function signatureOf(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`, 'utf8');
  return `v1,${mac.digest('base64')}`;
}

/**
 * The headers of one delivery. `secrets` holds the current secret and, while a rotation's grace
 * period lasts, the previous one: the receiver accepts either signature, so it may switch secrets
 * at its own pace.
 */
export function webhookHeaders(
  secrets: string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets
      .map((secret) => signatureOf(secret, id, timestampSeconds, body))
      .join(' '),
    'content-type': 'application/json',
    'user-agent': 'svc-webhooks/1',
  };
}
