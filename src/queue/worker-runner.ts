import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { WorkerHost } from '@nestjs/bullmq';
import type { Worker } from 'bullmq';
import { AppConfig } from '../config/app-config';

/** Starts the BullMQ workers where ROLE runs workers (all, worker); an api process only enqueues. */
@Injectable()
export class WorkerRunner implements OnApplicationBootstrap {
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
      worker.on('error', (error: Error) => this.logger.warn(`worker ${worker.name}: ${error.message}`));
      worker.run().catch((error: Error) => this.logger.error(`worker ${worker.name} stopped: ${error.message}`));
      this.logger.log(`worker started for queue ${worker.name}`);
    }
  }
}
