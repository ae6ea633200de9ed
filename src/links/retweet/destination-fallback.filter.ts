import { ArgumentsHost, Catch, HttpException } from '@nestjs/common';
import type { Response } from 'express';
import { AppError, ErrorCode } from '../../common/app-error';
import { AppExceptionFilter } from '../../common/exception.filter';
import { requestParams } from '../../common/params.decorator';
import type { ProjectRequest } from '../../projects/project-key.guard';

/**
 * Retweet and share with a `destination` are called from end-user pages: when anything fails (a
 * parameter, a link that cannot be made, the store) and `errors` is not true, the visitor is still
 * sent on to the destination, with what they gave (docs/api.md, "Retweet"). Only for a valid key:
 * ProjectKeyGuard has put its project on the request (also when a check before the key failed).
 * Without one the service would be an open redirect, so the key's 403 is answered instead
 * (docs/api.md, "Security"); with the publishable key, the error itself. A route filter, so it sees the guards' refusals as well as the
 * handler's; any other failure is answered by the application's filter as usual.
 */
@Catch()
export class DestinationFallbackFilter extends AppExceptionFilter {
  constructor(private readonly fallback: (params: Record<string, unknown>) => string | null) {
    super();
  }

  override catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<ProjectRequest & { id?: string }>();
    const res = host.switchToHttp().getResponse<Response>();
    const location = res.headersSent ? null : this.fallback(requestParams(req));
    if (location === null) {
      super.catch(exception, host);
      return;
    }
    if (req.project === undefined) {
      super.catch(withoutValidKey(exception), host);
      return;
    }
    // A page's key, which anyone can read, sends nobody anywhere after a failure: the error is
    // answered (docs/api.md, "Keys").
    if (requestParams(req).key === req.project.publishableKey) {
      super.catch(exception, host);
      return;
    }
    this.normalise(exception, req); // logs an unexpected failure, as an answered one would be
    res.setHeader('Cache-Control', 'private, max-age=0');
    res.redirect(302, location);
  }
}

/**
 * What a failure without a valid key answers: 403 "Invalid API key specified", whichever check
 * failed first, except the rate limit (checked before the key) and the store's failures, which say
 * nothing of the key and are answered as they are.
 */
function withoutValidKey(exception: unknown): unknown {
  const status =
    exception instanceof AppError
      ? exception.status
      : exception instanceof HttpException
        ? exception.getStatus()
        : 500;
  if (status === 429 || status >= 500) return exception;
  return new AppError(403, ErrorCode.invalidKey, 'Invalid API key specified');
}
