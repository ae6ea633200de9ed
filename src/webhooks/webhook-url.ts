import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isAllowedAddress } from '../crawler/url-guard';

/** docs/api.md, "Webhooks and live events (extension)": a webhook URL is at most 2,048 characters. */
const MAX_LENGTH = 2048;

/**
 * Why a webhook URL is refused, or null when it is acceptable (docs/api.md, "Webhooks and live
 * events (extension)"): an absolute https URL without credentials whose host resolves to public
 * addresses only, by the crawler's SSRF guard. Plain http is for loopback receivers only, and only
 * with `allowLoopback` (WEBHOOK_ALLOW_LOOPBACK, tests). The reason completes a 400 message naming
 * `url`. Delivery checks the addresses again when it connects (WebhookSender).
 */
export async function checkWebhookUrl(
  text: string,
  options: { allowLoopback: boolean },
): Promise<string | null> {
  if (text.length > MAX_LENGTH) return `longer than ${MAX_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not an absolute URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not contain credentials';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (url.protocol === 'http:') {
    if (!options.allowLoopback || !isLoopback(host)) return 'must be https';
  } else if (url.protocol !== 'https:') {
    return 'must be https';
  }
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    return `cannot resolve ${host}`;
  }
  // Every address must pass: a host that also resolves to a private address is refused.
  if (addresses.length === 0) return `cannot resolve ${host}`;
  if (!addresses.every((a) => isAllowedAddress(a.address, options))) {
    return `${host} resolves to a forbidden address`;
  }
  return null;
}

/**
 * `localhost` or a loopback address: one the guard refuses but lets through for loopback (the
 * guard's ranges stay in one place).
 */
function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  return (
    isIP(host) !== 0 && !isAllowedAddress(host) && isAllowedAddress(host, { allowLoopback: true })
  );
}
