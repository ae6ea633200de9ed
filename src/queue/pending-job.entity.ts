import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A job of a durable queue (DURABLE_QUEUES) waiting in the in-process transport: written when it
 * is added, moved to its next time on a retry, deleted once it succeeds or is given up. What is
 * here at start runs then (PendingJobs, DurableQueue).
 */
@Entity('pending_jobs')
export class PendingJobEntity {
  @PrimaryColumn('text')
  queue: string;

  /** The job's jobId (EnqueueOptions.jobId), else a random UUID. */
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  name: string;

  @Column('jsonb')
  data: object;

  /** Tries before the job is given up (EnqueueOptions.attempts). */
  @Column('integer')
  attempts: number;

  @Column('integer')
  attemptsMade: number;

  /** EnqueueOptions.fixedBackoffMs; null for the exponential back-off. */
  @Column('integer', { nullable: true })
  fixedBackoffMs: number | null;

  /** When the job runs next: when added plus its delay, or the time of its retry. */
  @Column('timestamptz')
  runAt: Date;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
