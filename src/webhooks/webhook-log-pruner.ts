import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PeriodicTask } from '../common/periodic-task';
import { AppConfig } from '../config/app-config';
import { DeliveryLog } from './delivery-log';

/** How often old delivery attempts are deleted. */
const EVERY_MS = 3_600_000;

/**
 * Keeps the delivery log (DeliveryLog) to WEBHOOK_LOG_DAYS (docs/operations.md, "Webhooks"): where
 * jobs run, once an hour and at start. An event sent longer ago than that can no longer be
 * redelivered.
 */
@Injectable()
export class WebhookLogPruner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WebhookLogPruner');
  private readonly pruning = new PeriodicTask(
    () => this.prune(),
    (error) => this.logger.warn(`webhook log not pruned: ${error.message}`),
  );

  constructor(
    private readonly config: AppConfig,
    private readonly log: DeliveryLog,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.runsWorkers) this.pruning.start(EVERY_MS, true);
  }

  onApplicationShutdown(): Promise<void> {
    return this.pruning.stop();
  }

  /** Deletes what is older than the kept days, in short statements. */
  async prune(): Promise<void> {
    await this.log.prune(this.config.webhookLogDays);
  }
}
