import { INestApplication } from '@nestjs/common';
import {
  DocumentBuilder,
  OpenAPIObject,
  OperationObject,
  ResponseObject,
  SwaggerModule,
  getSchemaPath,
} from '@nestjs/swagger';
import { AppConfig } from './config/app-config';
import { KNOWN_CHANNELS } from './links/channels';
import { AdminErrorDto, LinkErrorDto } from './common/dto/error-responses.dto';
import { API_KEY_SCHEMES, addApiKeySchemes } from './common/api-security';

/**
 * The OpenAPI document of the API: served at /docs-json, committed as openapi.json (scripts/openapi.js)
 * and the source of the web console's typed client. Beside app.module.ts, not in common/: like the
 * composition root it draws on every feature (the known channels of links/).
 */
export function buildOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    addApiKeySchemes(new DocumentBuilder())
      .setTitle('svc')
      .setDescription(
        [
          'Link shortening, share tracking and conversions.',
          '',
          '**Authentication.** Link, stats and conversion endpoints take the project API key as `key`.',
          'Administration endpoints take `subscription_key` (the subscription that owns the objects) and,',
          'where listed, `application_key` (an application authorised on that subscription).',
          'Keys printed at first start, or created with `npm run cli -- subscription:create`, work here.',
          'Each operation names the keys it takes (its security schemes: projectKey, subscriptionKey,',
          'applicationKey): **Authorize** once with them and every operation sends them in the query',
          'string. A key also given as a parameter or in a POST body wins over the authorised one.',
          '',
          '**Errors.** Link and stats endpoints answer `{error, error_message}`; administration and',
          'conversions answer `{request, error: {code, message}}`. Codes are listed in docs/api.md.',
        ].join('\n'),
      )
      .setVersion('3')
      .setLicense('MIT', 'https://opensource.org/licenses/MIT')
      .addServer(`${config.publicScheme}://${config.defaultDomain}`)
      .addTag('projects', 'Administration: projects, their users and conversion settings')
      .addTag('domains', 'Administration: custom link domains')
      .addTag('webhooks', 'Administration: webhooks and their delivery log')
      .addTag('links', 'Tracked links: create, batch, static, retweet, share, update')
      .addTag('stats', 'Statistics: intervals, range, totals, link details')
      .addTag('conversions', 'Conversions and the tracking script')
      .addTag('health', 'Liveness and readiness')
      .build(),
    { extraModels: [LinkErrorDto, AdminErrorDto] },
  );
  // Channels are open (any value is accepted), but clients offer the known ones (docs/api.md, "Channel → service").
  document.components ??= {};
  document.components.schemas = {
    ...document.components.schemas,
    KnownChannel: {
      type: 'string',
      enum: KNOWN_CHANNELS,
      description:
        'Channels with a known service; any other channel is accepted too (its service is the part before the first -).',
    },
  };
  // A group or pivot carries its field's value under the field's own name (channel, campaign, …).
  for (const name of ['GroupDto', 'PivotDto']) {
    const schema = document.components.schemas[name];
    if (schema && !('$ref' in schema)) schema.additionalProperties = true;
  }
  declareErrors(document);
  relaxAuthorisedKeys(document);
  return document;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * Every error is answered by the one exception filter, in the shape its path calls for (the rule of
 * usesAdminShape): each operation of those paths gets that schema on its declared error responses
 * and a `default` response for the others (403, 404, 409, 429, 500, 503 where they apply).
 */
function declareErrors(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    const shape = /^\/(projects|domains|webhooks|conversions)(\/|$)/.test(path)
      ? AdminErrorDto
      : /^\/(url|stats|export)[/.]/.test(path)
        ? LinkErrorDto
        : null;
    if (!shape) continue;
    const schema = { $ref: getSchemaPath(shape) };
    for (const method of METHODS) {
      const operation: OperationObject | undefined = item[method];
      if (!operation) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!response || !(Number(status) >= 400) || '$ref' in response) continue;
        const media = response.content?.['application/json'] ?? {};
        // A schema of its own is kept; one that is only an example becomes the media's example.
        if (media.schema && Object.keys(media.schema).some((key) => key !== 'example')) continue;
        const example: unknown =
          media.schema && 'example' in media.schema ? media.schema.example : undefined;
        response.content = {
          'application/json': {
            ...media,
            schema,
            ...(example !== undefined && media.example === undefined ? { example } : {}),
          },
        };
      }
      operation.responses.default ??= {
        description:
          'Any other error, in the same shape (docs/api.md lists the codes): e.g. 403 invalid key, 404 not found, 409 conflict, 429 rate limit, 503 PostgreSQL or analytics store unavailable (with Retry-After), 500 unexpected (quote the X-Request-Id)',
        content: { 'application/json': { schema } },
      } satisfies ResponseObject;
    }
  }
}

/**
 * A key that an operation's security scheme carries is still documented as a parameter (the
 * console's typed client passes it so), but not as a required one: Swagger UI would otherwise ask
 * for it on every operation after Authorize had supplied it. The security requirement says the key
 * is needed; the guard reads it from the query string or the body alike (docs/api.md).
 */
function relaxAuthorisedKeys(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation: OperationObject | undefined = item[method];
      if (!operation?.security) continue;
      const names = new Set<string>(
        operation.security.flatMap((requirement) =>
          Object.keys(requirement).map(
            (scheme) => API_KEY_SCHEMES[scheme as keyof typeof API_KEY_SCHEMES].name,
          ),
        ),
      );
      for (const parameter of operation.parameters ?? []) {
        if ('$ref' in parameter || parameter.in !== 'query' || !names.has(parameter.name)) continue;
        parameter.required = false;
      }
      for (const media of Object.values(
        (operation.requestBody && !('$ref' in operation.requestBody)
          ? operation.requestBody.content
          : undefined) ?? {},
      )) {
        const ref = media.schema && '$ref' in media.schema ? media.schema.$ref : undefined;
        const schema = ref ? document.components?.schemas?.[ref.split('/').pop() ?? ''] : undefined;
        if (!schema || '$ref' in schema || !schema.required) continue;
        schema.required = schema.required.filter((name) => !names.has(name));
        if (schema.required.length === 0) delete schema.required;
      }
    }
  }
}

/** Swagger UI at /docs, the OpenAPI document at /docs-json. */
export function setupSwagger(app: INestApplication, config: AppConfig): void {
  const document = buildOpenApiDocument(app, config);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { persistAuthorization: true, tryItOutEnabled: true },
  });
}
