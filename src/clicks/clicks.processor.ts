import { WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { JobProcessor } from '../queue/job-processor.decorator';
import { QUEUES } from '../queue/queue-names';
import { ClickBatch } from './click-event';
import { ClicksService } from './clicks.service';

@JobProcessor(QUEUES.clicks, 2)
export class ClicksProcessor extends WorkerHost {
  constructor(private readonly clicks: ClicksService) {
    super();
  }

  async process(job: Job<ClickBatch>): Promise<number> {
    return this.clicks.ingest(job.data, { resent: job.attemptsMade > 0 });
  }
}
