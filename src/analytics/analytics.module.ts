import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import {
  AnalyticsClient,
  AnalyticsUnavailableError,
  messageOf,
  openAnalyticsClient,
} from './analytics-client';
import { AnalyticsMetrics } from './analytics-metrics';
import { analyticsSchema } from './analytics-schema';
import { LinkMirror } from './link-mirror';
import { LinkStamps } from './link-stamps';
import { LinkUpdates } from './link-updates';
import { countStampStateWrite } from './stamp-state';

/** Closes the store when the application stops (after the click buffer's last flush was ingested). */
@Injectable()
class AnalyticsLifecycle implements OnApplicationShutdown {
  constructor(@Inject(AnalyticsClient) private readonly client: AnalyticsClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}

/**
 * The analytics store (ClickHouse: embedded chDB, or a server with CLICKHOUSE_URL), its tables
 * created at start, and the mirror of link attributes. Global: clicks, conversions, links and stats
 * write and read it.
 */
@Global()
@Module({
  providers: [
    {
      provide: AnalyticsClient,
      inject: [AppConfig, MetricsService],
      useFactory: async (config: AppConfig, metrics: MetricsService): Promise<AnalyticsClient> => {
        const client = await openAnalyticsClient({
          url: config.clickhouseUrl,
          embeddedDir: config.chdbDir,
          database: config.clickhouseDatabase,
        });
        client.observer = new AnalyticsMetrics(metrics);
        client.limits = {
          seconds: config.analyticsMaxExecutionSeconds,
          megabytes: config.analyticsMaxMemoryMb,
        };
        const logger = new Logger('Analytics');
        // The tables are made before anything is served; a server that does not answer yet is
        // waited for (as PostgreSQL is), so `docker compose up` may start both at once. A statement
        // the server refuses (an old server: docs/operations.md, ClickHouse server versions) stops the start at once.
        for (let attempt = 1; ; attempt++) {
          try {
            for (const statement of analyticsSchema(config.clickhouseDatabase))
              await countStampStateWrite(client, client.command(statement));
            break;
          } catch (error) {
            if (!(error instanceof AnalyticsUnavailableError)) {
              // Its sockets go; the embedded engine (one per process, shared by its test apps) stays.
              if (config.clickhouseUrl) await client.close();
              throw new Error(
                `${client.description} refused the analytics schema: ${messageOf(error)}`,
                { cause: error },
              );
            }
            if (attempt >= 30 || !config.clickhouseUrl) throw error;
            logger.warn(
              `${client.description} does not answer yet (${(error as Error).message}); retrying`,
            );
            await new Promise((resolve) => setTimeout(resolve, 1000));
          }
        }
        logger.log(`analytics store: ${client.description}, database ${config.clickhouseDatabase}`);
        return client;
      },
    },
    AnalyticsLifecycle,
    LinkMirror,
    LinkStamps,
    LinkUpdates,
  ],
  exports: [AnalyticsClient, LinkMirror, LinkStamps, LinkUpdates],
})
export class AnalyticsModule {}
