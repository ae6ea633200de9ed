import { DynamicModule, Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BullModule } from '@nestjs/bullmq';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { BullJobQueue } from './bull-job-queue';
import { InProcessJobQueue } from './in-process-job-queue';
import { InvalidationBus } from './invalidation-bus';
import { JOB_GROUPS_PROVIDER, JobGroups } from './job-groups';
import { JobQueue } from './job-queue';
import { PendingJobEntity } from './pending-job.entity';
import { PendingJobs } from './pending-jobs';
import { ALL_QUEUES } from './queue-names';
import { RedisClient } from './redis.provider';
import { WorkerRunner } from './worker-runner';

/**
 * BullMQ on Redis when REDIS_URL is set; otherwise the same processors run in-process, the durable
 * queues' jobs kept in the database (PendingJobs: the global DatabaseModule's DataSource).
 */
@Global()
@Module({})
export class QueueModule {
  static forRoot(config: AppConfig): DynamicModule {
    if (config.redisUrl) {
      return {
        module: QueueModule,
        imports: [
          DiscoveryModule,
          BullModule.forRoot({
            connection: { url: config.redisUrl, maxRetriesPerRequest: null },
            prefix: `${config.redisPrefix}:bull`,
          }),
          BullModule.registerQueue(...ALL_QUEUES.map((name) => ({ name }))),
        ],
        providers: [
          { provide: JobQueue, useClass: BullJobQueue },
          WorkerRunner,
          RedisClient,
          InvalidationBus,
          JOB_GROUPS_PROVIDER,
        ],
        exports: [JobQueue, RedisClient, InvalidationBus, JobGroups, BullModule],
      };
    }
    return {
      module: QueueModule,
      imports: [DiscoveryModule, TypeOrmModule.forFeature([PendingJobEntity])],
      providers: [
        { provide: JobQueue, useClass: InProcessJobQueue },
        PendingJobs,
        RedisClient,
        InvalidationBus,
        JOB_GROUPS_PROVIDER,
      ],
      exports: [JobQueue, RedisClient, InvalidationBus, JobGroups],
    };
  }
}
