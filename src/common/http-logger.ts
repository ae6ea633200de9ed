import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DestinationStream, pino } from 'pino';
import { HttpLogger, pinoHttp } from 'pino-http';
import { redactValue } from './redact';

const REQUEST_ID_RE = /^[A-Za-z0-9._-]{1,64}$/;

/** The injection token of the request-logging middleware (createApp mounts it first). */
export const HTTP_LOGGER = Symbol('HTTP_LOGGER');

/**
 * The process's pino logger and the Express request logging on it: every API request gets an id
 * (a valid `X-Request-Id` is kept, otherwise a new UUID, echoed in the response) and one log line.
 *
 * Deliberately not nestjs-pino's middleware: it runs each request inside an AsyncLocalStorage, and
 * on Node 20 the first such run turns on async hooks for the whole process for good — every
 * promise, tick and socket of the redirect hot path then pays for them. Errors name their request id themselves (AppExceptionFilter).
 *
 * No secret reaches a line (docs/operations.md, "Logs"): pino's redaction with the wildcard path
 * hands every top-level member, after its serializer, and every message and binding to redactValue,
 * so paths, query strings, bodies and errors logged anywhere in the process are covered. Standard
 * output unless `destination` says otherwise (the tests read the lines).
 */
export function createHttpLogger(
  level: string,
  destination?: DestinationStream,
): HttpLogger<IncomingMessage, ServerResponse> {
  const options = {
    level,
    redact: { paths: ['*'], censor: (value: unknown) => redactValue(value) },
  };
  return pinoHttp({
    logger: destination ? pino(options, destination) : pino(options),
    genReqId: (req, res) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // Keys travel in query strings: log the path only.
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        path: req.url.split('?')[0],
      }),
    },
    autoLogging: { ignore: (req) => (req.url ?? '').startsWith('/health') },
  });
}
