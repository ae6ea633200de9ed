import {
  DynamicModule,
  Inject,
  MiddlewareConsumer,
  Module,
  NestModule,
  RequestMethod,
} from '@nestjs/common';
import type { RequestHandler } from 'express';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AnalyticsModule } from './analytics/analytics.module';
import { ApiPathsModule } from './common/api-paths';
import { AppExceptionFilter } from './common/exception.filter';
import { HTTP_LOGGER, createHttpLogger } from './common/http-logger';
import { createValidationPipe } from './common/validation';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { ConversionsModule } from './conversions/conversions.module';
import { DatabaseModule } from './database/database.module';
import { DomainsModule } from './domains/domains.module';
import { EventsModule } from './events/events.module';
import { ExportModule } from './export/export.module';
import { ErasureModule } from './privacy/erasure.module';
import { HealthModule } from './health/health.module';
import { LinksModule } from './links/links.module';
import { LiveFeedModule } from './live-feed/live-feed.module';
import { MetricsModule } from './metrics/metrics.module';
import { RedirectsModule } from './redirects/redirects.module';
import { StatsModule } from './stats/stats.module';
import { MailModule } from './mail/mail.module';
import { ProjectsModule } from './projects/projects.module';
import { RetentionModule } from './privacy/retention.module';
import { QueueModule } from './queue/queue.module';
import { BootstrapService } from './subscriptions/bootstrap.service';
import { SubscriptionsModule } from './subscriptions/subscriptions.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/** Composition root: global pipe and filter, infrastructure, then the feature modules. */
@Module({})
export class AppModule implements NestModule {
  constructor(@Inject(HTTP_LOGGER) private readonly httpLogger: RequestHandler) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(this.httpLogger).forRoutes({ path: '*', method: RequestMethod.ALL });
  }

  /** `logDestination`: where log lines go instead of standard output (the tests read them). */
  static forRoot(config: AppConfig, logDestination?: DestinationStream): DynamicModule {
    const httpLogger = createHttpLogger(config.logLevel, logDestination);
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        // The Nest logger writes through the same pino logger; the request middleware is ours
        // (createHttpLogger says why), so nestjs-pino mounts none.
        LoggerModule.forRoot({
          pinoHttp: { logger: httpLogger.logger },
          useExisting: true,
          forRoutes: [],
        }),
        DatabaseModule,
        ApiPathsModule,
        AnalyticsModule,
        QueueModule.forRoot(config),
        SubscriptionsModule,
        MailModule,
        ProjectsModule,
        DomainsModule,
        EventsModule,
        LiveFeedModule,
        WebhooksModule,
        LinksModule,
        RedirectsModule,
        StatsModule,
        ConversionsModule,
        ExportModule,
        ErasureModule,
        RetentionModule,
        MetricsModule,
        HealthModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: AppExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        BootstrapService,
        { provide: HTTP_LOGGER, useValue: httpLogger },
      ],
    };
  }
}
