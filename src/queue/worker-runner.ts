import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { WorkerHost } from '@nestjs/bullmq';
import type { Worker } from 'bullmq';
import { AppConfig } from '../config/app-config';
import { redisUp } from './redis.provider';

/** Starts the BullMQ workers where ROLE runs workers (all, worker); an api process only enqueues. */
@Injectable()
export class WorkerRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WorkerRunner');

  constructor(
    private readonly config: AppConfig,
    private readonly discovery: DiscoveryService,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.runsWorkers) return;
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (!(instance instanceof WorkerHost)) continue;
      const worker = (instance as WorkerHost<Worker>).worker;
      worker.on('error', (error: Error) =>
        this.logger.warn(`worker ${worker.name}: ${error.message}`),
      );
      worker
        .run()
        .catch((error: Error) =>
          this.logger.error(`worker ${worker.name} stopped: ${error.message}`),
        );
      this.logger.log(`worker started for queue ${worker.name}`);
    }
  }

  /**
   * Workers stop before the database closes (shutdown hooks would close it first), letting the jobs
   * they run finish. While Redis is down a worker's pending commands wait in its client, and so
   * would the QUIT of an ordinary close: shutdown would hang until Redis is back. Such a worker is
   * closed at once; a job it was running is taken up again as stalled (jobs are idempotent).
   */
  async beforeApplicationShutdown(): Promise<void> {
    const workers = this.discovery
      .getProviders()
      .map((wrapper) => wrapper.instance as unknown)
      .filter((instance): instance is WorkerHost<Worker> => instance instanceof WorkerHost)
      .map((host) => host.worker);
    await Promise.all(
      workers.map(async (worker) => {
        await worker.close(!(await redisUp(worker.getBackend())));
      }),
    );
  }
}
