import { WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { deferJob } from '../queue/job-defer';
import { JobProcessor } from '../queue/job-processor.decorator';
import { QUEUES } from '../queue/queue-names';
import { PARK_MS } from './delivery-slots';
import { DeliveryJob } from './webhook-sink';
import { WebhookDeliveries } from './webhook-deliveries';

/**
 * Delivery jobs a worker runs at once. Each sends its events side by side on keep-alive
 * connections, so a worker keeps a few hundred requests in flight; one project's jobs hold at most
 * half of them (DeliverySlots).
 */
export const DELIVERY_JOB_CONCURRENCY = 16;

@JobProcessor(QUEUES.webhooks, DELIVERY_JOB_CONCURRENCY)
export class WebhookDeliveriesProcessor extends WorkerHost {
  constructor(private readonly deliveries: WebhookDeliveries) {
    super();
  }

  /** A job without a free slot is set aside until one frees (a wake) or PARK_MS passes. */
  async process(job: Job<DeliveryJob>, token?: string): Promise<void> {
    if ((await this.deliveries.run(job.data, String(job.id))) === 'parked') {
      await deferJob(job, token, Date.now() + PARK_MS, () => this.deliveries.mayRun(job.data));
    }
  }
}
