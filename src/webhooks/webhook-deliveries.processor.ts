import { WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { JobProcessor } from '../queue/job-processor.decorator';
import { QUEUES } from '../queue/queue-names';
import { DeliveryJob } from './project-events';
import { WebhookDeliveries } from './webhook-deliveries';

/**
 * Delivery jobs a worker runs at once. Each sends its events side by side on keep-alive
 * connections, so a worker keeps a few hundred requests in flight.
 */
export const DELIVERY_JOB_CONCURRENCY = 16;

@JobProcessor(QUEUES.webhooks, DELIVERY_JOB_CONCURRENCY)
export class WebhookDeliveriesProcessor extends WorkerHost {
  constructor(private readonly deliveries: WebhookDeliveries) {
    super();
  }

  async process(job: Job<DeliveryJob>): Promise<void> {
    await this.deliveries.run(job.data);
  }
}
