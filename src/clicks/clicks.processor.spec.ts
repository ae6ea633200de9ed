import { Job } from 'bullmq';
import { ClicksProcessor } from './clicks.processor';
import { ClicksService } from './clicks.service';

describe('ClicksProcessor', () => {
  it('treats a job run before (failed, or taken up again after its worker died) as resent', async () => {
    const calls: { resent?: boolean }[] = [];
    const service = {
      ingest: async (_batch: unknown, options: { resent?: boolean }) => calls.push(options),
    } as unknown as ClicksService;
    const processor = new ClicksProcessor(service);
    const job = (attemptsMade: number, attemptsStarted: number) =>
      ({ data: { clicks: [] }, attemptsMade, attemptsStarted }) as unknown as Job;
    await processor.process(job(0, 1));
    await processor.process(job(0, 2));
    await processor.process(job(1, 2));
    expect(calls.map((c) => c.resent)).toEqual([false, true, true]);
  });
});
