import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';

/** How often old events and delivery attempts are deleted. */
const EVERY_MS = 3_600_000;
/** Rows per delete statement: a long backlog is deleted in short transactions. */
const ROWS_PER_DELETE = 10_000;

/**
 * Keeps `webhook_events` and `webhook_deliveries` to WEBHOOK_LOG_DAYS (docs/operations.md,
 * "Webhooks"): where jobs run, once an hour and at start. An event older than that can no longer be
 * redelivered.
 */
@Injectable()
export class WebhookLogPruner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WebhookLogPruner');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.runsWorkers) return;
    const run = () => {
      this.running ??= this.prune()
        .catch((error: Error) => this.logger.warn(`webhook log not pruned: ${error.message}`))
        .finally(() => (this.running = undefined));
    };
    run();
    this.timer = setInterval(run, EVERY_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Deletes what is older than the kept days, in short statements. */
  async prune(): Promise<void> {
    const days = this.config.webhookLogDays;
    for (const table of ['webhook_deliveries', 'webhook_events']) {
      for (;;) {
        const deleted: unknown[] = await this.dataSource.query(
          `WITH gone AS (
             DELETE FROM ${table} WHERE id IN (
               SELECT id FROM ${table} WHERE created_at < now() - make_interval(days => $1)
               LIMIT ${ROWS_PER_DELETE})
             RETURNING 1)
           SELECT 1 FROM gone`,
          [days],
        );
        if (deleted.length < ROWS_PER_DELETE) break;
      }
    }
  }
}
