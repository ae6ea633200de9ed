import {
  CallHandler,
  ExecutionContext,
  HttpCode,
  Injectable,
  NestInterceptor,
  SetMetadata,
  UseInterceptors,
  applyDecorators,
} from '@nestjs/common';
import { ApiParam, ApiQuery } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Observable, map } from 'rxjs';
import { Errors } from './app-error';

export type ApiFormat = 'json' | 'txt';

const CALLBACK_RE = /^[A-Za-z_$][\w$.]*$/;

/**
 * Marks a route whose `{format}` and `callback` FormatInterceptor checks, so that a guard that
 * answers before it (ProjectKeyGuard) checks them first, as the interceptor would.
 */
export const API_FORMATTED = 'svc:api-formatted';

/**
 * What a link/stats handler returns: the JSON body and, where the endpoint has a txt form, its
 * plain-text rendering (docs/api.md, "Tracked links": bare svc_url, one per line for batch,
 * svc_text for retweet).
 */
export class FormattedResult<T = unknown> {
  constructor(
    readonly body: T,
    readonly text?: () => string,
    /** When set, the answer is a 302 to this address instead of a body (retweet/share destination). */
    readonly location?: string,
  ) {}

  static redirect(location: string): FormattedResult<null> {
    return new FormattedResult(null, undefined, location);
  }
}

/** Reads and checks `{format}` and `callback`; throws a 400 naming the parameter. */
export function readFormat(req: Request): { format: ApiFormat; callback: string | null } {
  const raw = (req.params as Record<string, string | undefined>).format ?? 'json';
  if (raw !== 'json' && raw !== 'txt') {
    throw Errors.invalid('format', `"${raw}" is not supported; use json or txt`);
  }
  const callbackValue =
    (req.query as Record<string, unknown>).callback ??
    (req.body as Record<string, unknown> | undefined)?.callback;
  if (callbackValue === undefined || callbackValue === '') return { format: raw, callback: null };
  if (typeof callbackValue !== 'string' || !CALLBACK_RE.test(callbackValue)) {
    throw Errors.invalid('callback', 'must be a JavaScript identifier ([A-Za-z_$][\\w$.]*)');
  }
  if (raw !== 'json') throw Errors.invalid('callback', 'requires the json format');
  return { format: raw, callback: callbackValue };
}

/** Writes a body as JSON, JSON-P or text per the request's format and callback. */
export function sendFormatted(
  res: Response,
  format: ApiFormat,
  callback: string | null,
  body: unknown,
  text?: string,
): void {
  if (format === 'txt') {
    res.type('text/plain; charset=utf-8').send(text ?? '');
  } else if (callback) {
    res.type('application/javascript; charset=utf-8').send(`${callback}(${JSON.stringify(body)});`);
  } else {
    res.json(body);
  }
}

@Injectable()
export class FormatInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const { format, callback } = readFormat(req);
    return next.handle().pipe(
      map((result: unknown) => {
        const formatted = result instanceof FormattedResult ? result : new FormattedResult(result);
        if (formatted.location !== undefined) {
          res.setHeader('Cache-Control', 'private, max-age=0');
          res.redirect(302, formatted.location);
          return undefined;
        }
        if (format === 'txt' && !formatted.text) {
          throw Errors.invalid('format', 'txt is not available on this endpoint; use json');
        }
        sendFormatted(res, format, callback, formatted.body, formatted.text?.());
        return undefined;
      }),
    );
  }
}

/**
 * For endpoints with `{format}` in the path and a `callback` parameter: validates both before the
 * handler runs and renders its FormattedResult as json, txt or JSON-P.
 */
export function ApiFormatted(
  options: { txt?: boolean; formatInPath?: boolean } = {},
): MethodDecorator & ClassDecorator {
  const { txt = true, formatInPath = true } = options;
  return applyDecorators(
    HttpCode(200),
    SetMetadata(API_FORMATTED, true),
    UseInterceptors(FormatInterceptor),
    ...(formatInPath
      ? [
          ApiParam({
            name: 'format',
            enum: txt ? ['json', 'txt'] : ['json'],
            description: 'Response format, part of the path. Anything else is a 400.',
          }),
        ]
      : []),
    ApiQuery({
      name: 'callback',
      required: false,
      description: 'JSON-P: wraps the JSON body as `callback(<json>);` (json format only).',
    }),
  );
}
