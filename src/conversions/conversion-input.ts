import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { Errors } from '../common/app-error';
import { plainIp } from '../common/ip';
import { CONVERSION_TYPES } from '../common/goals';
import { RawParams, bool, isAbsent, singleOf } from '../common/params';
import { svcIdOfUrl } from '../links/link-path';

/** The request's own client data, for read_headers. */
export interface RequestContext {
  headers: IncomingHttpHeaders;
  /** The client's address as TRUST_PROXY resolves it (Express's req.ip; docs/operations.md, "Proxies"). */
  clientIp: string | null;
}

/** conversions/new's parameters, checked (docs/api.md, "Conversions and the tracking script"). */
export interface ConversionInput {
  /** As given, for the 404 that names it. */
  svcUrl: string;
  /** The link's svc_id: svc_url itself, or the svc_id of the full short link given. */
  svcId: string;
  type: string;
  value: number;
  accountConversionId?: string;
  accountUserId?: string;
  convertedAt: Date;
  ip?: string;
  userAgent?: string;
  language?: string;
  referrer?: string;
  sessionId?: string;
}

/**
 * Reads conversions/new's parameters, each under its docs/api.md name or the original service's
 * spelling; with read_headers, the visitor's data the parameters leave out comes from the request.
 */
export function readConversion(params: RawParams, request: RequestContext): ConversionInput {
  const svcUrl = singleOf(params, ['svc_url'], 2048);
  if (svcUrl === undefined) throw Errors.missing('svc_url');
  const type = singleOf(params, ['conversion_type'], 20);
  if (type === undefined) throw Errors.missing('conversion_type');
  if (!(CONVERSION_TYPES as readonly string[]).includes(type)) {
    throw Errors.invalid('conversion_type', `must be one of ${CONVERSION_TYPES.join(', ')}`);
  }
  const value = conversionValue(params, type);
  const accountConversionId = singleOf(
    params,
    ['account_conversion_id', 'account_conversionid'],
    50,
  );
  const accountUserId = singleOf(params, ['account_user', 'account_userid'], 50);
  const createdAt = singleOf(params, ['created_at', 'converted_at'], 20);
  if (createdAt !== undefined && !/^\d{1,11}$/.test(createdAt)) {
    throw Errors.invalid('created_at', 'must be a UNIX timestamp (seconds)');
  }
  const convertedAt = createdAt === undefined ? new Date() : new Date(Number(createdAt) * 1000);
  const readHeaders = bool(params, 'read_headers', false);
  let ip = singleOf(params, ['ip', 'ip_address'], 64);
  if (ip !== undefined && isIP(ip) === 0) throw Errors.invalid('ip', 'must be an IP address');
  // An IPv4 visitor as IPv4, however the caller wrote it (docs/api.md, "Security").
  if (ip !== undefined) ip = plainIp(ip);
  let userAgent = singleOf(params, ['user_agent'], 2048);
  let language = singleOf(params, ['language'], 255);
  let referrer = singleOf(params, ['referrer'], 2048);
  if (readHeaders) {
    ip ??=
      request.clientIp !== null && isIP(request.clientIp) !== 0
        ? plainIp(request.clientIp)
        : undefined;
    userAgent ??= header(request.headers, 'user-agent');
    language ??= header(request.headers, 'accept-language');
    referrer ??= header(request.headers, 'referer');
  }
  const sessionId = singleOf(params, ['session_id'], 255);
  return {
    svcUrl,
    svcId: svcIdOf(svcUrl),
    type,
    value,
    accountConversionId,
    accountUserId,
    convertedAt,
    ip,
    userAgent,
    language,
    referrer,
    sessionId,
  };
}

/**
 * clicker_id and href, read when a new conversion is stored: after the link is found and a
 * repeated account_conversion_id has returned the first conversion.
 */
export function readVisitDetails(params: RawParams): {
  clickerId: string | null;
  href: string | null;
} {
  return {
    clickerId: singleOf(params, ['clicker_id'], 255) ?? null,
    href: singleOf(params, ['href'], 2048) ?? null,
  };
}

/**
 * conversion_value: required, an integer for a goal. A pageview has no value: whatever is given
 * (a tracking snippet may send a placeholder such as `n/a`) is recorded as 0 (docs/api.md).
 */
function conversionValue(params: RawParams, type: string): number {
  if (type === 'pageview') {
    if (isAbsent(params.conversion_value)) throw Errors.missing('conversion_value');
    return 0;
  }
  const raw = singleOf(params, ['conversion_value'], 20);
  if (raw === undefined) throw Errors.missing('conversion_value');
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw Errors.invalid('conversion_value', 'must be an integer (cents suggested for money)');
  }
  return Number(raw);
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value.slice(0, 2048) : undefined;
}

/** svc_url is the link's svc_id; a full short link is accepted too. */
function svcIdOf(value: string): string {
  if (!/^https?:\/\//i.test(value)) return value;
  return svcIdOfUrl(value)?.svcId ?? value;
}
