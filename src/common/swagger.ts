import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AppConfig } from '../config/app-config';
import { KNOWN_CHANNELS } from '../links/channels';

/**
 * The OpenAPI document of the API: served at /docs-json, committed as openapi.json (scripts/openapi.js)
 * and the source of the web console's typed client.
 */
export function buildOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('svc')
      .setDescription(
        [
          'Link shortening, share tracking and conversions.',
          '',
          '**Authentication.** Link, stats and conversion endpoints take the project API key as `key`.',
          'Administration endpoints take `subscription_key` (the subscription that owns the objects) and,',
          'where listed, `application_key` (an application authorised on that subscription).',
          'Keys printed at first start, or created with `npm run cli -- subscription:create`, work here.',
          '',
          '**Errors.** Link and stats endpoints answer `{error, error_message}`; administration and',
          'conversions answer `{request, error: {code, message}}`. Codes are listed in the README.',
        ].join('\n'),
      )
      .setVersion('3')
      .addServer(`${config.publicScheme}://${config.defaultDomain}`)
      .addTag('projects', 'Administration: projects, their users and conversion settings')
      .addTag('domains', 'Administration: custom link domains')
      .addTag('links', 'Tracked links: create, batch, static, retweet, share, update')
      .addTag('stats', 'Statistics: intervals, range, totals, link details')
      .addTag('conversions', 'Conversions and the tracking script')
      .addTag('health', 'Liveness and readiness')
      .build(),
  );
  // Channels are open (any value is accepted), but clients offer the known ones (DESIGN.md).
  document.components ??= {};
  document.components.schemas = {
    ...document.components.schemas,
    KnownChannel: {
      type: 'string',
      enum: KNOWN_CHANNELS,
      description: 'Channels with a known service; any other channel is accepted too (its service is the part before the first -).',
    },
  };
  // A group or pivot carries its field's value under the field's own name (channel, campaign, …).
  for (const name of ['GroupDto', 'PivotDto']) {
    const schema = document.components.schemas[name];
    if (schema && !('$ref' in schema)) schema.additionalProperties = true;
  }
  return document;
}

/** Swagger UI at /docs, the OpenAPI document at /docs-json. */
export function setupSwagger(app: INestApplication, config: AppConfig): void {
  const document = buildOpenApiDocument(app, config);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { persistAuthorization: true, tryItOutEnabled: true },
  });
}
