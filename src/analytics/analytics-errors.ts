import { AppError, ErrorCode } from '../common/app-error';

/**
 * The analytics store's errors as the API answers them (docs/api.md, "Statistics limits"): every
 * ClickHouse error code the service gives a meaning is mapped here, and only here.
 */

/** The limits every read of the store carries (AnalyticsClient.limits), named in the answers. */
export interface ReadLimits {
  /** max_execution_time, in seconds (0: none). */
  seconds: number;
  /** max_memory_usage, in megabytes (0: none). */
  megabytes: number;
}

/** The ClickHouse error codes with a meaning of their own (ClickHouse's ErrorCodes.cpp). */
export const ClickHouseCode = {
  TIMEOUT_EXCEEDED: 159,
  /** The engine's estimate of the statement's time is past max_execution_time. */
  TOO_SLOW: 160,
  MEMORY_LIMIT_EXCEEDED: 241,
  QUERY_WAS_CANCELLED: 394,
} as const;

/** The analytics store did not answer: a request answers 503, a job retries. */
export class AnalyticsUnavailableError extends AppError {
  constructor(readonly reason: unknown) {
    super(
      503,
      ErrorCode.unavailable,
      `Statistics are temporarily unavailable: the analytics store does not answer (${messageOf(reason)}); retry shortly`,
    );
    this.name = 'AnalyticsUnavailableError';
  }
}

/**
 * A read stopped at a limit of the store: its time (503: the store is busy, retry), its memory
 * (400: the request asks too much; narrow it), or the store's own memory (503).
 */
export class AnalyticsLimitError extends AppError {
  constructor(
    readonly limit: 'time' | 'memory' | 'store memory',
    limits: ReadLimits,
  ) {
    super(...limitAnswer(limit, limits));
    this.name = 'AnalyticsLimitError';
  }
}

/**
 * A read cancelled because its answer is no longer wanted (its client went away, or the statement
 * was killed on the server): answered 503, which a gone client never reads.
 */
export class StatementCancelledError extends AppError {
  constructor() {
    super(
      503,
      ErrorCode.unavailable,
      'Statistics query cancelled: its request was closed before the answer; retry shortly',
    );
    this.name = 'StatementCancelledError';
  }
}

function limitAnswer(
  limit: AnalyticsLimitError['limit'],
  limits: ReadLimits,
): [number, number, string] {
  switch (limit) {
    case 'time':
      return [
        503,
        ErrorCode.unavailable,
        `Statistics are temporarily unavailable: the query ran past the ${limits.seconds} s the analytics store allows one; retry shortly, or narrow start_date/end_date`,
      ];
    case 'memory':
      return [
        400,
        ErrorCode.invalidParameter,
        `Statistics query too large: it needs more than the ${limits.megabytes} MB the analytics store allows one; narrow start_date/end_date, group_by or pivot, or add filters`,
      ];
    case 'store memory':
      return [
        503,
        ErrorCode.unavailable,
        'Statistics are temporarily unavailable: the analytics store is short of memory; retry shortly',
      ];
  }
}

/**
 * What a failed statement becomes: a store out of reach (refused or reset connection, timeout, a
 * closed engine) AnalyticsUnavailableError (503); a limit AnalyticsLimitError; a statement killed
 * StatementCancelledError; any other error of the statement itself (bad SQL, a type) stays as it
 * is: a bug, logged and answered 500.
 */
export function analyticsError(error: unknown, limits: ReadLimits): unknown {
  if (error instanceof AppError) return error;
  switch (clickHouseCode(error)) {
    case ClickHouseCode.TIMEOUT_EXCEEDED:
    case ClickHouseCode.TOO_SLOW:
      return new AnalyticsLimitError('time', limits);
    case ClickHouseCode.MEMORY_LIMIT_EXCEEDED:
      // The statement's own limit, or the store's (total, or its user's): busy, whatever its size.
      return new AnalyticsLimitError(
        QUERY_MEMORY.test(messageOf(error)) ? 'memory' : 'store memory',
        limits,
      );
    case ClickHouseCode.QUERY_WAS_CANCELLED:
      return new StatementCancelledError();
    default:
      return unavailableOr(error);
  }
}

/** A statement's own memory limit: "Memory limit (for query) exceeded" (18.16), "Query memory limit exceeded". */
const QUERY_MEMORY = /memory limit \(for query\)|query memory limit/i;

function unavailableOr(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return (typeof code === 'string' && UNREACHABLE_CODES.has(code)) || UNREACHABLE.test(message)
    ? new AnalyticsUnavailableError(error)
    : error;
}

/**
 * The ClickHouse error code of an error: @clickhouse/client (and chDB's connection) parse it from
 * "Code: 159. DB::Exception: …" into `code`; an older server's "Code: 159, e.displayText() = …",
 * or an exception line inside a result, leaves it in the message.
 */
export function clickHouseCode(error: unknown): number | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^\d+$/.test(code)) return Number(code);
  const found = /^Code: (\d+)[.,]/.exec(error instanceof Error ? error.message : '');
  return found ? Number(found[1]) : null;
}

/** What a store out of reach fails with: the socket's errors, the client's timeout, a closed engine. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'CHDB_CLOSED',
  'CHDB_CONNECTION',
]);
const UNREACHABLE =
  /socket hang up|timeout error|connect ECONNREFUSED|ECONNRESET|other side closed|connection (is )?closed/i;

export function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0].slice(0, 300);
}
