import { applyDecorators } from '@nestjs/common';
import { ApiParam, ApiQuery } from '@nestjs/swagger';
import {
  AdminExample,
  ApiAdminForm,
  adminKeyQueries,
  adminEcho,
  adminErrorResponses,
  adminExample,
} from '../common/admin-swagger';
import { ErrorCode } from '../common/app-error';
import {
  ADMIN_KEY_EXAMPLES,
  OTHER_PROJECT_KEY_EXAMPLE,
  PROJECT_KEY_EXAMPLE,
  SUBSCRIPTION_KEY_EXAMPLE,
} from '../common/dto/request-echo.dto';
import {
  CREATE_JSON_EXAMPLE,
  CreateDomainParamsDto,
  DomainCreationObjectDto,
  DomainKeysParamsDto,
  DomainUpdateObjectDto,
  UPDATE_JSON_EXAMPLE,
  UpdateDomainParamsDto,
} from './dto/domain-params.dto';

/**
 * Swagger for the domains API: parameters (form body on POST, query string on GET: the API reads
 * both) and error responses with example bodies. Kept here so the controller stays readable.
 */
export type DomainParamsKind = 'keys' | 'new' | 'update';

const PARAM_TYPES = {
  keys: DomainKeysParamsDto,
  new: CreateDomainParamsDto,
  update: UpdateDomainParamsDto,
};

type QueryParam = { name: string; description: string; example: string };

const KEY_PARAMS: QueryParam[] = adminKeyQueries('domains');

const QUERY_PARAMS: Record<DomainParamsKind, QueryParam[]> = {
  keys: KEY_PARAMS,
  new: [
    ...KEY_PARAMS,
    {
      name: 'json',
      description: 'JSON string: the domain creation object.',
      example: CREATE_JSON_EXAMPLE,
    },
  ],
  update: [
    ...KEY_PARAMS,
    {
      name: 'json',
      description: 'JSON string: the domain update object.',
      example: UPDATE_JSON_EXAMPLE,
    },
  ],
};

/** The parameters of an operation: a form body for POST, the query string for GET. */
export function ApiDomainParams(kind: DomainParamsKind, via: 'form' | 'query'): MethodDecorator {
  if (via === 'form')
    return ApiAdminForm(PARAM_TYPES[kind], [DomainCreationObjectDto, DomainUpdateObjectDto]);
  return applyDecorators(
    ...QUERY_PARAMS[kind].map((param) => ApiQuery({ ...param, required: true, type: String })),
  );
}

export const ApiHostnameParam = (): MethodDecorator =>
  ApiParam({
    name: 'hostname',
    description:
      'A hostname connected to the subscription, as in the domain record (`host[:port]` or `host_segment`).',
    example: 'go.example.com',
  });

const echo = (method: string, extra: Record<string, string> = {}): Record<string, string> =>
  adminEcho(ADMIN_KEY_EXAMPLES, 'domain', method, extra);

const example = adminExample;

const errorResponses = adminErrorResponses({
  400: 'Missing or invalid parameter (code 1001, 1002; 10004 hostname already connected).',
  403: 'Invalid subscription_key or application_key (code 1000), or an object of another subscription (code 1004).',
  404: 'The domain or a project does not exist (code 1003).',
});

const HOSTNAME = { hostname: 'go.example.com' };

function keyErrors(
  method: string,
  extra: Record<string, string> = {},
): Record<string, AdminExample> {
  return {
    badKey: example(
      'Invalid key',
      echo(method, extra),
      ErrorCode.invalidKey,
      'Invalid API key specified (application_key)',
    ),
  };
}

/** The error responses of each operation, with example bodies. */
export function ApiDomainErrors(
  operation: 'list' | 'new' | 'show' | 'update' | 'destroy',
): MethodDecorator {
  const method = operation === 'destroy' ? 'delete' : operation;
  const path = operation === 'list' || operation === 'new' ? {} : HOSTNAME;
  const missingKey = example(
    'Missing key',
    { subscription_key: SUBSCRIPTION_KEY_EXAMPLE, ...path, method, object: 'domain' },
    ErrorCode.missingParameter,
    'Missing required parameter: application_key',
  );
  const decorators: MethodDecorator[] = [];
  if (operation === 'list') {
    decorators.push(errorResponses(400, { missingKey }), errorResponses(403, keyErrors(method)));
    return applyDecorators(...decorators);
  }
  const notFound = example(
    'Domain not connected anywhere',
    echo(method, { hostname: 'nowhere.example.com' }),
    ErrorCode.notFound,
    'Domain not found: nowhere.example.com',
  );
  const otherSubscription = example(
    'Domain of another subscription',
    echo(method, HOSTNAME),
    ErrorCode.notPermitted,
    'Not permitted: domain go.example.com is not connected to this subscription',
  );
  switch (operation) {
    case 'new': {
      const json = (value: object) => ({ json: JSON.stringify(value) });
      const base = {
        root_redirect: 'https://www.example.com/',
        not_found_redirect: 'https://www.example.com/404',
      };
      decorators.push(
        errorResponses(400, {
          missingKey,
          badHostname: example(
            'Hostname with a scheme',
            echo(method, json({ hostname: 'https://go.example.com', ...base })),
            ErrorCode.invalidParameter,
            'Invalid parameter json.hostname: "https://go.example.com" must be a hostname without a scheme (e.g. go.example.com)',
          ),
          badUrl: example(
            'Redirect that is not an absolute URL',
            echo(method, json({ hostname: 'go.example.com', ...base, root_redirect: '/home' })),
            ErrorCode.invalidParameter,
            'Invalid parameter json.root_redirect: must be an absolute http(s) URL',
          ),
          unknownField: example(
            'Unknown field',
            echo(method, json({ hostname: 'go.example.com', ...base, colour: 'blue' })),
            ErrorCode.invalidParameter,
            'Invalid parameter json.colour: not a field of the domain creation object (allowed: hostname, root_redirect, not_found_redirect, projects)',
          ),
          taken: example(
            'Hostname already connected',
            echo(method, { json: CREATE_JSON_EXAMPLE }),
            ErrorCode.hostnameTaken,
            'Invalid parameter json.hostname: go.example.com is already connected',
          ),
        }),
        errorResponses(403, {
          ...keyErrors(method, { json: CREATE_JSON_EXAMPLE }),
          otherProject: example(
            'Project of another subscription',
            echo(method, { json: CREATE_JSON_EXAMPLE }),
            ErrorCode.notPermitted,
            `Not permitted: json.projects ${PROJECT_KEY_EXAMPLE} is a project of another subscription`,
          ),
        }),
        errorResponses(404, {
          unknownProject: example(
            'Unknown or destroyed project',
            echo(method, { json: CREATE_JSON_EXAMPLE }),
            ErrorCode.notFound,
            `Project not found: json.projects ${PROJECT_KEY_EXAMPLE}`,
          ),
        }),
      );
      break;
    }
    case 'update': {
      const request = echo(method, { json: UPDATE_JSON_EXAMPLE, ...HOSTNAME });
      decorators.push(
        errorResponses(400, {
          missingKey,
          badUrl: example(
            'Redirect that is not an absolute URL',
            echo(method, { json: JSON.stringify({ not_found_redirect: 'ftp://x' }), ...HOSTNAME }),
            ErrorCode.invalidParameter,
            'Invalid parameter json.not_found_redirect: must be an absolute http(s) URL',
          ),
          defaultDomain: example(
            'Removing a project that links on this domain by default',
            request,
            ErrorCode.invalidParameter,
            "Invalid parameter json.remove_projects: go.example.com is the default_domain of project blog; change the project's default_domain first",
          ),
        }),
        errorResponses(403, {
          ...keyErrors(method, { json: UPDATE_JSON_EXAMPLE, ...HOSTNAME }),
          otherSubscription,
          otherProject: example(
            'Project of another subscription',
            request,
            ErrorCode.notPermitted,
            `Not permitted: json.remove_projects ${OTHER_PROJECT_KEY_EXAMPLE} is a project of another subscription`,
          ),
        }),
        errorResponses(404, {
          notFound,
          unknownProject: example(
            'Unknown or destroyed project',
            request,
            ErrorCode.notFound,
            `Project not found: json.projects ${PROJECT_KEY_EXAMPLE}`,
          ),
        }),
      );
      break;
    }
    case 'show':
    case 'destroy': {
      const badRequests: Record<string, AdminExample> = { missingKey };
      if (operation === 'destroy') {
        badRequests.defaultDomain = example(
          'A live project links on this domain by default',
          echo(method, HOSTNAME),
          ErrorCode.invalidParameter,
          "Domain go.example.com is the default_domain of project blog, shop; change the project's default_domain first",
        );
      }
      decorators.push(
        errorResponses(400, badRequests),
        errorResponses(403, { ...keyErrors(method, HOSTNAME), otherSubscription }),
        errorResponses(404, { notFound }),
      );
      break;
    }
  }
  return applyDecorators(...decorators);
}
