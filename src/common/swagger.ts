import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AppConfig } from '../config/app-config';

/** The console users drive: Swagger UI at /docs, the OpenAPI document at /docs-json. */
export function setupSwagger(app: INestApplication, config: AppConfig): void {
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
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { persistAuthorization: true, tryItOutEnabled: true },
  });
}
