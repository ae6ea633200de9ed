import { Injectable } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import type { Request } from 'express';

/** Counts per project: the tracker is the `key` parameter (the caller's IP when there is none). */
@Injectable()
export class ProjectThrottlerGuard extends ThrottlerGuard {
  protected override getTracker(req: Record<string, unknown>): Promise<string> {
    const request = req as unknown as Request;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const key = (request.query as Record<string, unknown>).key ?? body.key;
    return Promise.resolve(typeof key === 'string' && key !== '' ? `key:${key}` : `ip:${request.ip ?? 'unknown'}`);
  }
}
