import { applyDecorators } from '@nestjs/common';
import { ApiParam, ApiQuery, ApiResponse } from '@nestjs/swagger';
import {
  ApiAdminForm,
  adminEcho,
  adminKeyQueries,
  adminErrorResponses,
  adminExample,
} from '../common/admin-swagger';
import { ErrorCode } from '../common/app-error';
import {
  APPLICATION_KEY_EXAMPLE,
  PROJECT_KEY_EXAMPLE,
  SUBSCRIPTION_KEY_EXAMPLE,
} from '../common/dto/request-echo.dto';
import {
  CREATE_JSON_EXAMPLE,
  CreateWebhookParamsDto,
  ListWebhooksParamsDto,
  UPDATE_JSON_EXAMPLE,
  UpdateWebhookParamsDto,
  WEBHOOK_ID_EXAMPLE,
  WebhookCreationObjectDto,
  RedeliverWebhookParamsDto,
  WebhookDeliveriesParamsDto,
  WebhookKeysParamsDto,
  WebhookUpdateObjectDto,
} from './dto/webhook-params.dto';

/**
 * Swagger for the webhooks API: parameters (form body on POST, query string on GET: the API reads
 * both) and error responses with example bodies. Kept here so the controller stays readable.
 */
export type WebhookParamsKind = 'keys' | 'list' | 'new' | 'update' | 'deliveries' | 'redeliver';

const PARAM_TYPES = {
  keys: WebhookKeysParamsDto,
  list: ListWebhooksParamsDto,
  new: CreateWebhookParamsDto,
  update: UpdateWebhookParamsDto,
  deliveries: WebhookDeliveriesParamsDto,
  redeliver: RedeliverWebhookParamsDto,
};

type QueryParam = { name: string; description: string; example: string; required: boolean };

const KEY_PARAMS: QueryParam[] = adminKeyQueries('webhooks');

/** The query parameters of the GET forms (list, show, deliveries). */
const QUERY_PARAMS: Record<'keys' | 'list' | 'deliveries', QueryParam[]> = {
  keys: KEY_PARAMS,
  list: [
    ...KEY_PARAMS,
    {
      name: 'project',
      description: "A project's API key: only that project's webhooks.",
      example: PROJECT_KEY_EXAMPLE,
      required: false,
    },
  ],
  deliveries: [
    ...KEY_PARAMS,
    {
      name: 'per_page',
      description: 'Deliveries per page, 1 to 1000 (default 10).',
      example: '10',
      required: false,
    },
    { name: 'page', description: 'The page, from 1 (default 1).', example: '1', required: false },
    {
      name: 'offset',
      description: "Deliveries to skip (overrides page): the previous answer's last_offset.",
      example: '10',
      required: false,
    },
  ],
};

/** The parameters of an operation: a form body for POST, the query string for GET. */
export function ApiWebhookParams(kind: WebhookParamsKind, via: 'form' | 'query'): MethodDecorator {
  if (via === 'form')
    return ApiAdminForm(PARAM_TYPES[kind], [WebhookCreationObjectDto, WebhookUpdateObjectDto]);
  const params = kind === 'list' || kind === 'deliveries' ? QUERY_PARAMS[kind] : KEY_PARAMS;
  return applyDecorators(...params.map((param) => ApiQuery({ ...param, type: String })));
}

export const ApiWebhookIdParam = (): MethodDecorator =>
  ApiParam({
    name: 'id',
    description: 'The webhook id, as in the webhook record.',
    example: WEBHOOK_ID_EXAMPLE,
  });

export type WebhookOperation =
  | 'list'
  | 'new'
  | 'show'
  | 'update'
  | 'destroy'
  | 'rotate-secret'
  | 'deliveries'
  | 'test'
  | 'redeliver';

const echo = (method: string, extra: Record<string, string> = {}): Record<string, string> =>
  adminEcho(
    { subscription: SUBSCRIPTION_KEY_EXAMPLE, application: APPLICATION_KEY_EXAMPLE },
    'webhook',
    method,
    extra,
  );

const example = adminExample;

const errorResponses = adminErrorResponses({
  400: 'Missing or invalid parameter (code 1001, 1002), naming it.',
  403: 'Invalid subscription_key or application_key (code 1000), or a project of another subscription (code 1004).',
  404: "The webhook (unknown, malformed or another subscription's id) or the project does not exist (code 1003).",
});

const json = (value: object) => ({ json: JSON.stringify(value) });
const ID = { id: WEBHOOK_ID_EXAMPLE };
const CREATE_BASE = { project: PROJECT_KEY_EXAMPLE, events: ['link.clicked'] };

/** The error responses of each operation, with example bodies. */
export function ApiWebhookErrors(operation: WebhookOperation): MethodDecorator {
  const method = operation === 'destroy' ? 'delete' : operation;
  const path = operation === 'list' || operation === 'new' ? {} : ID;
  const missingKey = example(
    'Missing key',
    { subscription_key: SUBSCRIPTION_KEY_EXAMPLE, ...path, method, object: 'webhook' },
    ErrorCode.missingParameter,
    'Missing required parameter: application_key',
  );
  const badKey = example(
    'Invalid key',
    echo(method, path),
    ErrorCode.invalidKey,
    'Invalid API key specified (application_key)',
  );
  const notFound = example(
    "Unknown id, or another subscription's webhook",
    echo(method, path),
    ErrorCode.notFound,
    `Webhook not found: ${WEBHOOK_ID_EXAMPLE}`,
  );
  const otherProject = (parameter: string, request: Record<string, string>) =>
    example(
      'Project of another subscription',
      request,
      ErrorCode.notPermitted,
      `Not permitted: ${parameter} ${PROJECT_KEY_EXAMPLE} is a project of another subscription`,
    );
  const unknownProject = (parameter: string, request: Record<string, string>) =>
    example(
      'Unknown or destroyed project',
      request,
      ErrorCode.notFound,
      `Project not found: ${parameter} ${PROJECT_KEY_EXAMPLE}`,
    );
  const httpUrl = (request: Record<string, string>) =>
    example(
      'Plain http',
      request,
      ErrorCode.invalidParameter,
      'Invalid parameter json.url: must be https',
    );
  const badEvent = (request: Record<string, string>) =>
    example(
      'Unknown event type',
      request,
      ErrorCode.invalidParameter,
      'Invalid parameter json.events[0]: "link.deleted" is not an event type (one of link.created, link.updated, link.clicked, conversion.created)',
    );
  switch (operation) {
    case 'list': {
      const request = echo(method, { project: PROJECT_KEY_EXAMPLE });
      return applyDecorators(
        errorResponses(400, { missingKey }),
        errorResponses(403, { badKey, otherProject: otherProject('project', request) }),
        errorResponses(404, { unknownProject: unknownProject('project', request) }),
      );
    }
    case 'new': {
      const request = echo(method, { json: CREATE_JSON_EXAMPLE });
      return applyDecorators(
        errorResponses(400, {
          missingKey,
          httpUrl: httpUrl(
            echo(method, json({ ...CREATE_BASE, url: 'http://hooks.example.com/svc' })),
          ),
          privateAddress: example(
            'Address the SSRF guard refuses',
            echo(method, json({ ...CREATE_BASE, url: 'https://169.254.169.254/' })),
            ErrorCode.invalidParameter,
            'Invalid parameter json.url: 169.254.169.254 resolves to a forbidden address',
          ),
          badEvent: badEvent(
            echo(
              method,
              json({ ...CREATE_BASE, url: 'https://x.example', events: ['link.deleted'] }),
            ),
          ),
          unknownLink: example(
            'A svc_id that is not a link of the project',
            echo(
              method,
              json({ ...CREATE_BASE, url: 'https://x.example', links: ['svc.test_zz'] }),
            ),
            ErrorCode.invalidParameter,
            'Invalid parameter json.links[0]: svc.test_zz is not a link of this project',
          ),
          tooMany: example(
            'The project has 20 webhooks',
            request,
            ErrorCode.invalidParameter,
            'Invalid parameter json.project: project blog already has 20 webhooks, the most a project may have; destroy one first',
          ),
        }),
        errorResponses(403, { badKey, otherProject: otherProject('json.project', request) }),
        errorResponses(404, { unknownProject: unknownProject('json.project', request) }),
      );
    }
    case 'update': {
      return applyDecorators(
        errorResponses(400, {
          missingKey,
          httpUrl: httpUrl(
            echo(method, { ...ID, ...json({ url: 'http://hooks.example.com/svc' }) }),
          ),
          badEvent: badEvent(echo(method, { ...ID, ...json({ events: ['link.deleted'] }) })),
          moveProject: example(
            'Moving to another project',
            echo(method, { ...ID, ...json({ project: PROJECT_KEY_EXAMPLE }) }),
            ErrorCode.invalidParameter,
            'Invalid parameter json.project: a webhook cannot move to another project; destroy it and create one in the other project',
          ),
        }),
        errorResponses(403, { badKey }),
        errorResponses(404, {
          notFound: example(
            "Unknown id, or another subscription's webhook",
            echo(method, { ...ID, json: UPDATE_JSON_EXAMPLE }),
            ErrorCode.notFound,
            `Webhook not found: ${WEBHOOK_ID_EXAMPLE}`,
          ),
        }),
      );
    }
    case 'deliveries':
      return applyDecorators(
        errorResponses(400, {
          missingKey,
          badPage: example(
            'per_page out of range',
            echo(method, { ...ID, per_page: '5000' }),
            ErrorCode.invalidParameter,
            'Invalid parameter per_page: must be an integer from 1 to 1000',
          ),
        }),
        errorResponses(403, { badKey }),
        errorResponses(404, { notFound }),
      );
    case 'redeliver':
      return applyDecorators(
        errorResponses(400, {
          missingKey,
          badEvent: example(
            'Not an event id',
            echo(method, { ...ID, ...json({ event_id: 'evt_1' }) }),
            ErrorCode.invalidParameter,
            'Invalid parameter json.event_id: must be an event id (evt_ and 32 hex digits)',
          ),
          refused: example(
            "An event the webhook's events, links or pageviews leave out",
            echo(method, { ...ID, ...json({ event_id: 'evt_5f0c6a1e9d2b4c7a8e3f1b0d2c4a6e8f' }) }),
            ErrorCode.invalidParameter,
            'Invalid parameter json.event_id: evt_5f0c6a1e9d2b4c7a8e3f1b0d2c4a6e8f is a link.created event, which this webhook does not take (its events)',
          ),
        }),
        replayLimit(method),
        errorResponses(403, { badKey }),
        errorResponses(404, {
          notFound,
          unknownEvent: example(
            'An event not kept, or of another project',
            echo(method, { ...ID, ...json({ event_id: 'evt_5f0c6a1e9d2b4c7a8e3f1b0d2c4a6e8f' }) }),
            ErrorCode.notFound,
            'Event not found: evt_5f0c6a1e9d2b4c7a8e3f1b0d2c4a6e8f',
          ),
        }),
      );
    case 'test':
      return applyDecorators(
        errorResponses(400, { missingKey }),
        errorResponses(403, { badKey }),
        errorResponses(404, { notFound }),
        replayLimit(method),
      );
    case 'show':
    case 'destroy':
    case 'rotate-secret':
      return applyDecorators(
        errorResponses(400, { missingKey }),
        errorResponses(403, { badKey }),
        errorResponses(404, { notFound }),
      );
  }
}

/** test and redeliver's budget per webhook (WEBHOOK_REPLAY_RATE_LIMIT), over it a 429. */
function replayLimit(method: string): MethodDecorator {
  return ApiResponse({
    status: 429,
    description:
      'Over the budget of test and redeliver requests per hour per webhook (code 1006); Retry-After gives the seconds until the window ends.',
    headers: {
      'Retry-After': { description: 'Seconds until the window ends.', schema: { type: 'integer' } },
    },
    examples: {
      rateLimited: example(
        'Over the budget',
        echo(method, ID),
        ErrorCode.rateLimited,
        'Rate limit exceeded: at most 600 test and redeliver requests per hour per webhook',
      ),
    },
  });
}
