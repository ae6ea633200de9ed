import { createHash } from 'node:crypto';
import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { requestParams } from '../params.decorator';

/**
 * Counts per project: the tracker is the `key` parameter, read as the handlers read it (a form value
 * over a query one) so that the count is the authenticated project's; the caller's IP when there is
 * no key. One budget covers every guarded endpoint (create, batch, static, retweet and update
 * together: docs/api.md, "Rate limit"), not one per handler as the stock guard counts.
 */
@Injectable()
export class ProjectThrottlerGuard extends ThrottlerGuard {
  protected override getTracker(req: Record<string, unknown>): Promise<string> {
    const request = req as unknown as Request;
    const key = requestParams(request).key;
    return Promise.resolve(
      typeof key === 'string' && key !== '' ? `key:${key}` : `ip:${request.ip ?? 'unknown'}`,
    );
  }

  /** The storage key names the throttler and a hash of the tracker (no API key in plain text). */
  protected override generateKey(
    _context: ExecutionContext,
    tracker: string,
    name: string,
  ): string {
    return `${name}-${createHash('sha256').update(tracker).digest('hex')}`;
  }

  /** A 429 carries the X-RateLimit-* headers too (the stock guard sets only Retry-After). */
  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const res = context.switchToHttp().getResponse<Response>();
    res.setHeader(`${this.headerPrefix}-Limit`, detail.limit);
    res.setHeader(`${this.headerPrefix}-Remaining`, 0);
    res.setHeader(`${this.headerPrefix}-Reset`, detail.timeToExpire);
    return super.throwThrottlingException(context, detail);
  }
}
