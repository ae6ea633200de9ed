import { ArgumentsHost, Catch } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppExceptionFilter } from '../common/exception.filter';
import { requestParams } from '../common/params.decorator';

/**
 * Retweet and share with a `destination` are called from end-user pages: when anything fails (the
 * rate limit, a parameter, a link that cannot be made, the store) and `errors` is not true, the
 * visitor is still sent on to the destination, with what they gave (docs/api.md, "Retweet"). A
 * route filter, so it sees the guard's refusals as well as the handler's; any other failure is
 * answered by the application's filter as usual.
 */
@Catch()
export class DestinationFallbackFilter extends AppExceptionFilter {
  constructor(private readonly fallback: (params: Record<string, unknown>) => string | null) {
    super();
  }

  override catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request & { id?: string }>();
    const res = host.switchToHttp().getResponse<Response>();
    const location = res.headersSent ? null : this.fallback(requestParams(req));
    if (location === null) {
      super.catch(exception, host);
      return;
    }
    this.normalise(exception, req); // logs an unexpected failure, as an answered one would be
    res.setHeader('Cache-Control', 'private, max-age=0');
    res.redirect(302, location);
  }
}
