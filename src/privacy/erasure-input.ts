import { isIP } from 'node:net';
import { Errors } from '../common/app-error';
import { plainIp } from '../common/ip';
import { parseJsonObject } from '../common/json-parameter';

/** What an erasure names (docs/api.md, "Erasure"): a visitor by one identifier, or a sharer. */
export const ERASURE_KINDS = ['session_id', 'clicker_id', 'ip', 'sharer_id', 'user_id'] as const;
export type ErasureKind = (typeof ERASURE_KINDS)[number];

/** The kinds that name a visitor of the links (the others name a sharer of them). */
export const VISITOR_KINDS: readonly ErasureKind[] = ['session_id', 'clicker_id', 'ip'];

/** One erasure's target: the kind of identifier and its value (normalised). */
export interface ErasureTarget {
  kind: ErasureKind;
  value: string;
}

/** The longest value each kind takes: what conversions/new and the link API accept. */
const MAX_LENGTH: Record<ErasureKind, number> = {
  session_id: 255,
  clicker_id: 255,
  ip: 45,
  sharer_id: 36,
  user_id: 255,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The erase request's `json`: an object with exactly one of ERASURE_KINDS, a non-empty string;
 * anything else is a 400 naming the parameter. An IP address is taken as the service stores it
 * (plainIp: `::ffff:a.b.c.d` is IPv4); a sharer_id is a user id (a UUID), lowercased.
 */
export function parseErasure(json: unknown): ErasureTarget {
  const object = parseJsonObject(json);
  const allowed = ERASURE_KINDS as readonly string[];
  const unknown = Object.keys(object).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    throw Errors.invalid(
      `json.${unknown[0]}`,
      `not a field of the erasure object (allowed: ${ERASURE_KINDS.join(', ')})`,
    );
  }
  const given = ERASURE_KINDS.filter((kind) => object[kind] !== undefined);
  if (given.length !== 1) {
    throw Errors.invalid(
      'json',
      `give exactly one of ${ERASURE_KINDS.join(', ')}` +
        (given.length > 1 ? ` (got ${given.join(', ')}): one erasure per request` : ''),
    );
  }
  const [kind] = given;
  const raw = object[kind];
  const parameter = `json.${kind}`;
  if (typeof raw !== 'string' || raw.trim() === '')
    throw Errors.invalid(parameter, 'must be a non-empty string');
  const value = raw.trim();
  if (value.length > MAX_LENGTH[kind])
    throw Errors.invalid(parameter, `must be at most ${MAX_LENGTH[kind]} characters`);
  if (kind === 'ip') {
    const plain = plainIp(value);
    if (isIP(plain) === 0) throw Errors.invalid(parameter, 'must be an IPv4 or IPv6 address');
    return { kind, value: plain };
  }
  if (kind === 'sharer_id') {
    if (!UUID.test(value)) throw Errors.invalid(parameter, 'must be a user id (a UUID)');
    return { kind, value: value.toLowerCase() };
  }
  return { kind, value };
}
