import { WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { JobProcessor } from '../queue/job-processor.decorator';
import { QUEUES } from '../queue/queue-names';
import { ClickBatch } from './click-event';
import { ClicksService } from './clicks.service';

/** Click jobs a process runs at once: the live ones wait together for their block (ClickBlocks). */
export const CLICK_JOB_CONCURRENCY = 32;

@JobProcessor(QUEUES.clicks, CLICK_JOB_CONCURRENCY)
export class ClicksProcessor extends WorkerHost {
  constructor(private readonly clicks: ClicksService) {
    super();
  }

  async process(job: Job<ClickBatch>): Promise<number> {
    // A job run before (failed, or taken up again after its worker died, when attemptsStarted counts
    // that run too) may have stored its clicks, in a block with other jobs' clicks.
    return this.clicks.ingest(job.data, {
      resent: job.attemptsMade > 0 || (job.attemptsStarted ?? 0) > 1,
    });
  }
}
