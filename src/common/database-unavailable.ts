import { AppError, ErrorCode } from './app-error';

/*
 * PostgreSQL out of reach, as the one exception filter answers it (503 with Retry-After; docs/api.md,
 * "Errors"). The classification reads only an error's code, message and causes, and imports neither
 * the driver nor TypeORM: it lives beside the filter, which every path's failures reach, the route
 * filters made with `new` included.
 */

/**
 * The socket's errors when the server is gone or not there yet: refused, reset, unreachable, timed
 * out, a name that does not resolve.
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exception), 57P01
 * admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, shutting down, in
 * recovery), 53300 too_many_connections.
 */
const SERVER_CODES = /^(?:08[0-9A-Z]{3}|57P0[123]|53300)$/;

/** What node-postgres and its pool say when a connection ends, breaks or cannot be had in time. */
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is not open|connect ECONNREFUSED|read ECONNRESET/i;

/**
 * Whether an error means PostgreSQL is out of reach (stopped, restarting, unreachable), as opposed
 * to an error of the statement itself. TypeORM wraps a failed query in QueryFailedError with the
 * driver's error as `driverError`; Node's connection attempts to several addresses end in an
 * AggregateError; both are looked through.
 */
export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const { code, message, driverError, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_CODES.test(code))) return true;
  if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return true;
  const inner: unknown[] = [
    driverError,
    cause,
    ...(Array.isArray(errors) ? (errors as unknown[]) : []),
  ];
  return inner.some((e) => e !== error && isDatabaseUnreachable(e, depth + 1));
}

/** PostgreSQL is out of reach: a request answers 503 with Retry-After (docs/api.md, "Errors"). */
export class DatabaseUnavailableError extends AppError {
  constructor() {
    super(
      503,
      ErrorCode.databaseUnavailable,
      'The database is temporarily unavailable; retry shortly',
    );
    this.name = 'DatabaseUnavailableError';
  }
}
