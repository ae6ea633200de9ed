import { WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { JobProcessor } from '../../queue/job-processor.decorator';
import { QUEUES } from '../../queue/queue-names';
import { UnwrapJob, UnwrapResult, UnwrapService } from './unwrap.service';

@JobProcessor(QUEUES.unwrap, 16)
export class UnwrapProcessor extends WorkerHost {
  constructor(private readonly unwrapper: UnwrapService) {
    super();
  }

  process(job: Job<UnwrapJob>): Promise<UnwrapResult> {
    return this.unwrapper.resolve(job.data.url);
  }
}
