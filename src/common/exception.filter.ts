import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError, ErrorCode } from './app-error';
import { ApiFormat, sendFormatted } from './api-format';
import { requestEcho, usesAdminShape } from './request-echo';
import { routeParamsOf } from './clean-input';
import { DatabaseUnavailableError, isDatabaseUnreachable } from './database-unavailable';

const CALLBACK_RE = /^[A-Za-z_$][\w$.]*$/;

/** A 503's Retry-After: PostgreSQL or the analytics store restarting takes seconds. */
const RETRY_AFTER_SECONDS = 5;

/** At most one log line per this interval while PostgreSQL is out of reach (every request fails). */
const UNREACHABLE_LOG_INTERVAL_MS = 10_000;

interface Normalised {
  status: number;
  code: number;
  message: string;
}

/**
 * The one error layer. Link and stats endpoints answer `{error, error_message}` (txt: the message;
 * callback: JSON-P); conversions and administration answer `{request, error: {code, message}}`.
 * Anything unexpected is logged with the request id and answered 500 in the same shape; PostgreSQL
 * out of reach is answered 503 with Retry-After, as every 503 is (docs/api.md, "Errors").
 */
@Catch()
export class AppExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('AppExceptionFilter');
  private unreachableLoggedAt = 0;

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request & { id?: string }>();
    const res = ctx.getResponse<Response>();
    // A failed readiness check answers its report (which dependency is down, and why).
    if (
      !res.headersSent &&
      exception instanceof HttpException &&
      isHealthReport(exception.getResponse())
    ) {
      res.status(exception.getStatus()).json(exception.getResponse());
      return;
    }
    const error = this.normalise(exception, req);
    if (res.headersSent) return;
    if (error.status === 503) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    if (usesAdminShape(req)) {
      res.status(error.status).json({
        request: requestEcho(req),
        error: { code: error.code, message: error.message },
      });
      return;
    }
    const { format, callback } = this.formatOf(req);
    res.status(error.status);
    sendFormatted(
      res,
      format,
      callback,
      { error: error.status, error_message: error.message },
      error.message,
    );
  }

  /** The status, code and message of an exception; logs an unexpected one with the request id. */
  protected normalise(exception: unknown, req: Request & { id?: string }): Normalised {
    if (exception instanceof AppError) {
      return { status: exception.status, code: exception.code, message: exception.message };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status >= 500) this.logUnexpected(exception, req);
      let message = messageOf(exception);
      // The router's 404 quotes the URL with its query string, where keys travel: quote the path only.
      if (status === 404 && message === `Cannot ${req.method} ${req.originalUrl}`) {
        message = `Cannot ${req.method} ${req.path}`;
      }
      return { status, code: codeForStatus(status), message };
    }
    const parserStatus = bodyParserStatus(exception);
    if (parserStatus) {
      return {
        status: parserStatus,
        code: ErrorCode.invalidParameter,
        message: (exception as Error).message,
      };
    }
    if (isDatabaseUnreachable(exception)) {
      this.logUnreachable(exception, req);
      return this.normalise(new DatabaseUnavailableError(), req);
    }
    this.logUnexpected(exception, req);
    return {
      status: 500,
      code: ErrorCode.internal,
      message: `Internal error; quote request id ${String(req.id ?? 'unknown')} when reporting it`,
    };
  }

  private logUnexpected(exception: unknown, req: Request & { id?: string }): void {
    this.logger.error(
      { err: exception, reqId: req.id, method: req.method, url: req.originalUrl },
      `unexpected error on ${req.method} ${req.path}`,
    );
  }

  private logUnreachable(exception: unknown, req: Request & { id?: string }): void {
    const now = Date.now();
    if (now - this.unreachableLoggedAt < UNREACHABLE_LOG_INTERVAL_MS) return;
    this.unreachableLoggedAt = now;
    this.logger.warn(
      { reqId: req.id, reason: exception instanceof Error ? exception.message : String(exception) },
      `PostgreSQL out of reach: ${req.method} ${req.path} answered 503 (logged once per 10 s)`,
    );
  }

  /** The error is rendered in the request's format when that format and callback are valid. */
  private formatOf(req: Request): { format: ApiFormat; callback: string | null } {
    // Before routing (hostile bytes, a body parser's error) the route's parameters are not set yet.
    const params = (req.params as Record<string, string | undefined> | undefined) ?? {};
    const format = 'format' in params ? params.format : routeParamsOf(req)?.format;
    if (format === 'txt') return { format: 'txt', callback: null };
    const body =
      typeof req.body === 'object' && req.body !== null
        ? (req.body as Record<string, unknown>)
        : {};
    const callback = (req.query as Record<string, unknown> | undefined)?.callback ?? body.callback;
    return {
      format: 'json',
      callback: typeof callback === 'string' && CALLBACK_RE.test(callback) ? callback : null,
    };
  }
}

/** The body @nestjs/terminus gives a failed health check: {status: 'error', info, error, details}. */
function isHealthReport(response: unknown): boolean {
  return (
    typeof response === 'object' &&
    response !== null &&
    (response as { status?: unknown }).status === 'error' &&
    'details' in response
  );
}

function codeForStatus(status: number): number {
  switch (status) {
    case 403:
      return ErrorCode.notPermitted;
    case 404:
      return ErrorCode.notFound;
    case 409:
      return ErrorCode.conflict;
    case 429:
      return ErrorCode.rateLimited;
    default:
      return status >= 500 ? ErrorCode.internal : ErrorCode.invalidParameter;
  }
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

/** body-parser errors (malformed body, too large) carry their own 4xx status. */
function bodyParserStatus(exception: unknown): number | null {
  const status = (exception as { status?: unknown; type?: unknown } | null)?.status;
  const type = (exception as { type?: unknown } | null)?.type;
  return typeof status === 'number' && status >= 400 && status < 500 && typeof type === 'string'
    ? status
    : null;
}
