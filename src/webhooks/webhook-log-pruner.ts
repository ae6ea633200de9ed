import { Injectable, Logger } from '@nestjs/common';
import { PeriodicService, Schedule } from '../common/periodic-task';
import { AppConfig } from '../config/app-config';
import { DeliveryLog } from './delivery-log';

/** Old delivery attempts are deleted at start, then once an hour. */
const PRUNE: Schedule = { everyMs: 3_600_000, atStart: true, failure: 'webhook log not pruned' };

/**
 * Keeps the delivery log (DeliveryLog) to WEBHOOK_LOG_DAYS (docs/operations.md, "Webhooks"): where
 * jobs run, once an hour and at start. An event sent longer ago than that can no longer be
 * redelivered.
 */
@Injectable()
export class WebhookLogPruner extends PeriodicService {
  protected readonly logger = new Logger('WebhookLogPruner');
  protected readonly task = () => this.prune();

  constructor(
    private readonly config: AppConfig,
    private readonly log: DeliveryLog,
  ) {
    super(PRUNE, config.runsWorkers);
  }

  /** Deletes what is older than the kept days, in short statements. */
  async prune(): Promise<void> {
    await this.log.prune(this.config.webhookLogDays);
  }
}
