import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppExceptionFilter } from './common/exception.filter';
import { createValidationPipe } from './common/validation';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { ConversionsModule } from './conversions/conversions.module';
import { DatabaseModule } from './database/database.module';
import { DomainsModule } from './domains/domains.module';
import { HealthModule } from './health/health.module';
import { LinksModule } from './links/links.module';
import { MetricsModule } from './metrics/metrics.module';
import { RedirectsModule } from './redirects/redirects.module';
import { StatsModule } from './stats/stats.module';
import { MailModule } from './mail/mail.module';
import { ProjectsModule } from './projects/projects.module';
import { QueueModule } from './queue/queue.module';
import { BootstrapService } from './subscriptions/bootstrap.service';
import { SubscriptionsModule } from './subscriptions/subscriptions.module';

const REQUEST_ID_RE = /^[A-Za-z0-9._-]{1,64}$/;

/** Composition root: global pipe and filter, infrastructure, then the feature modules. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot({
          pinoHttp: {
            level: config.logLevel,
            genReqId: (req: IncomingMessage, res) => {
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
            autoLogging: { ignore: (req: IncomingMessage) => (req.url ?? '').startsWith('/health') },
          },
        }),
        DatabaseModule,
        QueueModule.forRoot(config),
        SubscriptionsModule,
        MailModule,
        ProjectsModule,
        DomainsModule,
        LinksModule,
        RedirectsModule,
        StatsModule,
        ConversionsModule,
        MetricsModule,
        HealthModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: AppExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        BootstrapService,
      ],
    };
  }
}
