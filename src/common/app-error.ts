/**
 * Our own error kinds, thrown by services, processors and the CLI alike. The exception filter
 * turns them into the two response shapes of docs/api.md, "Errors". `code` is the
 * admin/conversions error code (that section lists them); link and stats responses carry the HTTP
 * status instead.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const ErrorCode = {
  invalidKey: 1000,
  missingParameter: 1001,
  invalidParameter: 1002,
  notFound: 1003,
  notPermitted: 1004,
  conflict: 1005,
  rateLimited: 1006,
  unavailable: 1007,
  databaseUnavailable: 1008,
  internal: 1099,
  projectNameTaken: 10001,
  projectHasUsers: 10002,
  domainNotConnected: 10003,
  hostnameTaken: 10004,
  unknownUser: 10005,
} as const;

export const Errors = {
  missing(parameter: string): AppError {
    return new AppError(
      400,
      ErrorCode.missingParameter,
      `Missing required parameter: ${parameter}`,
    );
  },
  invalid(parameter: string, why: string): AppError {
    return new AppError(400, ErrorCode.invalidParameter, `Invalid parameter ${parameter}: ${why}`);
  },
  badRequest(message: string, code: number = ErrorCode.invalidParameter): AppError {
    return new AppError(400, code, message);
  },
  invalidKey(parameter = 'key'): AppError {
    return new AppError(403, ErrorCode.invalidKey, `Invalid API key specified (${parameter})`);
  },
  forbidden(message: string, code: number = ErrorCode.notPermitted): AppError {
    return new AppError(403, code, message);
  },
  notFound(message: string): AppError {
    return new AppError(404, ErrorCode.notFound, message);
  },
  conflict(message: string): AppError {
    return new AppError(409, ErrorCode.conflict, message);
  },
};
