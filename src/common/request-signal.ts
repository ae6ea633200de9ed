import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { Response } from 'express';

const signals = new WeakMap<Response, AbortSignal>();

/**
 * An AbortSignal that aborts when the client goes away before its answer (the response closes
 * unfinished), one per response: a handler passes it down to the statements it runs, which are then
 * cancelled (docs/api.md, "Statistics limits"). Explicit rather than an AsyncLocalStorage, which
 * would put async hooks on every redirect (common/http-logger.ts).
 */
export function requestSignal(res: Response): AbortSignal {
  let signal = signals.get(res);
  if (signal) return signal;
  const controller = new AbortController();
  signal = controller.signal;
  signals.set(res, signal);
  if (res.writableFinished) return signal;
  // Gone already, before the handler ran.
  if (res.destroyed || res.socket?.destroyed) controller.abort();
  else res.once('close', () => res.writableFinished || controller.abort());
  return signal;
}

/**
 * The type of a RequestSignal parameter: an alias, so that the parameter's design type is Object and
 * the global ValidationPipe hands the signal over as it is (it would rebuild an AbortSignal, whose
 * constructor refuses).
 */
export type ClientSignal = AbortSignal;

/** The handler's parameter (typed ClientSignal): requestSignal of its response. */
export const RequestSignal = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): AbortSignal =>
    requestSignal(ctx.switchToHttp().getResponse<Response>()),
);
