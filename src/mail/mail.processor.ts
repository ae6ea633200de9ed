import { WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { JobProcessor } from '../queue/job-processor.decorator';
import { QUEUES } from '../queue/queue-names';
import { MailMessage, MailService } from './mail.service';

@JobProcessor(QUEUES.mail)
export class MailProcessor extends WorkerHost {
  constructor(private readonly mail: MailService) {
    super();
  }

  async process(job: Job<MailMessage>): Promise<void> {
    await this.mail.deliver(job.data);
  }
}
