import type { Request } from 'express';
import { AppError, ErrorCode, Errors } from '../../common/app-error';
import { isCrawler } from '../../common/bots';
import { RawParams, bool } from '../../common/params';
import { readDestination } from './destination';

/*
 * The checks retweet and share answer before `v` and the key (ProjectKeyAuth's `before`), in the
 * order they always ran: the destination, `errors`, then the caller's user agent.
 */

/** Known crawlers may not create links through retweet or share (docs/api.md: Bots); HTTP clients may. */
function refuseBots(userAgent: string | undefined): void {
  if (isCrawler(userAgent)) {
    throw new AppError(
      403,
      ErrorCode.notPermitted,
      'Known bots may not create links through this endpoint',
    );
  }
}

/** Retweet by GET: `destination` and `errors` well formed, no crawler. */
export function retweetChecks(params: RawParams, req: Request): void {
  readDestination(params);
  bool(params, 'errors', false); // refused when not a boolean, even if nothing else fails
  refuseBots(req.headers['user-agent']);
}

/** Retweet by POST: no `destination` at all (docs/api.md: destination is GET only), then as GET. */
export function retweetPostChecks(params: RawParams, req: Request): void {
  if (params.destination !== undefined) {
    throw Errors.invalid('destination', 'is accepted on GET only');
  }
  retweetChecks(params, req);
}

/** Share: a `destination` is required. */
export function shareChecks(params: RawParams, req: Request): void {
  if (readDestination(params) === undefined) throw Errors.missing('destination');
  bool(params, 'errors', false); // refused when not a boolean, even if nothing else fails
  refuseBots(req.headers['user-agent']);
}
