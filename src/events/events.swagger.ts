import { applyDecorators } from '@nestjs/common';
import {
  ApiHeader,
  ApiOperation,
  ApiProduces,
  ApiQuery,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { LinkErrorDto } from '../common/dto/error-responses.dto';

const ERROR = { $ref: getSchemaPath(LinkErrorDto) };

/** The OpenAPI description of GET /events/stream (docs/api.md, "Live feed"). */
export function ApiEventStream(): MethodDecorator {
  return applyDecorators(
    ApiOperation({
      summary: "A project's events as Server-Sent Events (the live feed)",
      description:
        'Each event as `id`, `event` (its type) and `data` (its body `{id, type, created_at, data}`); a `: heartbeat` comment every 15 s; resume with Last-Event-ID within the window, else an `event: reset` first. The publishable key may not read it.',
    }),
    ApiProduces('text/event-stream'),
    ApiQuery({
      name: 'key',
      type: String,
      required: true,
      description: 'Project API key (64 hex characters)',
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
      description: 'Missing key; malformed Last-Event-ID or last_event_id',
      content: { 'application/json': { schema: ERROR } },
    }),
    ApiResponse({
      status: 403,
      description: 'Invalid key, or the publishable key',
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
