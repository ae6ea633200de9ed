import { IpMode, storedIp } from './ip';

/**
 * How much of a visitor a project keeps (docs/api.md, "Addresses" under "Security"): its
 * `ip_storage` and `ua_storage` settings. Every copy of a click or conversion follows them: the
 * analytics store's clicks, the conversion records in PostgreSQL and their answers; places, devices
 * and bot flags are taken from the whole address and user agent first.
 */
export interface VisitorStorage {
  /** `ip_storage`: the address in full, anonymised (IPv4 /24, IPv6 /48), or none. */
  ip: IpMode;
  /** `ua_storage`: the user agent in full, or `parsed`: only its browser, OS and device. */
  userAgent: UserAgentMode;
}

export const IP_MODES: readonly IpMode[] = ['full', 'anonymised', 'none'];

export type UserAgentMode = 'full' | 'parsed';
export const USER_AGENT_MODES: readonly UserAgentMode[] = ['full', 'parsed'];

/** A user agent as `mode` stores it: `parsed` keeps no string (the click's dimensions hold what it said). */
export function storedUserAgent(
  userAgent: string | null | undefined,
  mode: UserAgentMode,
): string | null {
  return mode === 'parsed' ? null : (userAgent ?? null);
}

/** A visitor's address and user agent as `storage` keeps them. */
export function storedVisitor(
  visitor: { ip?: string | null; userAgent?: string | null },
  storage: VisitorStorage,
): { ip: string | null; userAgent: string | null } {
  return {
    ip: storedIp(visitor.ip, storage.ip),
    userAgent: storedUserAgent(visitor.userAgent, storage.userAgent),
  };
}
