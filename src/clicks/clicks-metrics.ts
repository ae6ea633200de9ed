import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { QUEUES } from '../queue/queue-names';
import { redisUp } from '../queue/redis.provider';
import { ClickBuffer } from './click-buffer';
import { ClicksService } from './clicks.service';

/** The click pipeline's gauges: buffer size, queue depth and age, ingest lag. */
@Injectable()
export class ClicksMetrics implements OnModuleInit {
  constructor(
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly buffer: ClickBuffer,
    private readonly clicks: ClicksService,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    this.metrics.gauge(
      'svc_click_buffer_size',
      'Clicks waiting in this process for the queue',
      () => this.buffer.size,
    );
    this.metrics.gauge(
      'svc_click_ingest_lag_seconds',
      'Age of the newest click of the last batch this process ingested, at ingestion',
      () => this.clicks.lastIngestLagSeconds,
    );
    if (!this.config.redisUrl) return;
    const queue = this.moduleRef.get<Queue>(getQueueToken(QUEUES.clicks), { strict: false });
    // While Redis is down these read NaN (unknown) at once: asked, BullMQ would wait for Redis, hanging
    // the scrape and, with its commands still queued in the client, the shutdown.
    const ifRedisUp = async (read: () => Promise<number>) =>
      (await redisUp(queue.getBackend())) ? read() : NaN;
    this.metrics.gauge(
      'svc_click_queue_depth',
      'Click batches waiting or delayed in the clicks queue',
      () =>
        ifRedisUp(async () => {
          const counts = await queue.getJobCounts('waiting', 'delayed', 'prioritized', 'active');
          return Object.values(counts).reduce((sum, n) => sum + n, 0);
        }),
    );
    this.metrics.gauge('svc_click_queue_age_seconds', 'Age of the oldest waiting click batch', () =>
      ifRedisUp(async () => {
        const [oldest] = await queue.getJobs(['waiting'], 0, 0, true);
        return oldest ? Math.max(0, (Date.now() - oldest.timestamp) / 1000) : 0;
      }),
    );
  }
}
