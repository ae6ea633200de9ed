import { applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiHeader,
  ApiOperation,
  ApiProduces,
  ApiQuery,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { LinkErrorDto } from '../common/dto/error-responses.dto';
import { StreamTokenDto, StreamTokenFormDto } from './dto/stream-token.dto';

const ERROR = { $ref: getSchemaPath(LinkErrorDto) };

/** The OpenAPI description of GET /events/stream (docs/api.md, "Live feed"). */
export function ApiEventStream(): MethodDecorator {
  return applyDecorators(
    ApiOperation({
      summary: "A project's events as Server-Sent Events (the live feed)",
      description:
        'Each event as `id`, `event` (its type) and `data` (its body `{id, type, created_at, data}`); a `: heartbeat` comment every 15 s; resume with Last-Event-ID within the window, else an `event: reset` first. Open it with a stream token (`token`, from POST /events/stream/token); `key` in the URL is still taken but discouraged. The publishable key may not read it.',
    }),
    ApiProduces('text/event-stream'),
    ApiQuery({
      name: 'token',
      type: String,
      required: false,
      description:
        'A stream token (stk_…) from POST /events/stream/token: valid a minute, used up by this request; instead of key',
    }),
    ApiQuery({
      name: 'key',
      type: String,
      required: false,
      deprecated: true,
      description:
        'Project API key (64 hex characters): still taken, but it puts the key in the URL; use token',
    }),
    ApiQuery({
      name: 'last_event_id',
      type: String,
      required: false,
      description: 'Resume after this event id (evt_…), for clients that cannot send Last-Event-ID',
    }),
    ApiHeader({
      name: 'Last-Event-ID',
      required: false,
      description: 'Resume after this event id (evt_…); EventSource sends it when it reconnects',
    }),
    ApiResponse({
      status: 200,
      description: 'The stream (text/event-stream), open until the client or the server ends it',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    }),
    ApiResponse({
      status: 400,
      description:
        'Missing key; malformed token, or both token and key; malformed Last-Event-ID or last_event_id',
      content: { 'application/json': { schema: ERROR } },
    }),
    ApiResponse({
      status: 403,
      description: 'Invalid key, or the publishable key; a token unknown, expired or already used',
      content: { 'application/json': { schema: ERROR } },
    }),
    ApiResponse({
      status: 429,
      description:
        'Too many open streams of the project on this instance, or over READ_RATE_LIMIT (Retry-After)',
      content: { 'application/json': { schema: ERROR } },
    }),
    ApiResponse({
      status: 503,
      description: 'Redis does not answer (Retry-After)',
      content: { 'application/json': { schema: ERROR } },
    }),
  );
}

/** The OpenAPI description of POST /events/stream/token (docs/api.md, "Live feed"). */
export function ApiStreamToken(): MethodDecorator {
  return applyDecorators(
    ApiOperation({
      summary: 'A token that opens one stream of the live feed',
      description:
        'The api_key goes in `Authorization: Bearer <api_key>`, `X-Api-Key` or the form body, never in the query string (400). The token opens one stream, GET /events/stream?token=…, within a minute; that request uses it up. Counts in the read budget, as opening a stream does. The publishable key may not get one.',
    }),
    ApiHeader({
      name: 'X-Api-Key',
      required: false,
      description: 'Project API key; or `Authorization: Bearer <api_key>`, or `key` in the body',
    }),
    ApiConsumes('application/x-www-form-urlencoded', 'application/json'),
    ApiBody({ type: StreamTokenFormDto, required: false }),
    ApiResponse({ status: 200, description: 'The token', type: StreamTokenDto }),
    ApiResponse({
      status: 400,
      description:
        'Missing key; key in the query string, or given more than once; Authorization not Bearer',
      content: { 'application/json': { schema: ERROR } },
    }),
    ApiResponse({
      status: 403,
      description: 'Invalid key, or the publishable key',
      content: { 'application/json': { schema: ERROR } },
    }),
    ApiResponse({
      status: 429,
      description: 'Over READ_RATE_LIMIT (Retry-After)',
      content: { 'application/json': { schema: ERROR } },
    }),
    ApiResponse({
      status: 503,
      description: 'Redis does not answer (Retry-After)',
      content: { 'application/json': { schema: ERROR } },
    }),
  );
}
