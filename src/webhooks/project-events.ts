import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LiveFeed } from '../events/live-feed';
import { OutgoingEvent, ProjectEvent } from '../events/project-event';
import { EnqueueOptions, JobQueue } from '../queue/job-queue';
import { QUEUES } from '../queue/queue-names';
import { WebhookTargets, wants } from './webhook-targets';

/** The job of one delivery attempt of some events to one webhook (WebhookDeliveries). */
export interface DeliveryJob {
  webhookId: string;
  /** 1 for the first try, then one more per retry. */
  attempt: number;
  events: ProjectEvent[];
}

/** Events per delivery job: each is its own request, sent side by side. */
export const EVENTS_PER_JOB = 100;

/** Rows per statement when events are stored. */
const ROWS_PER_INSERT = 500;

/**
 * Where every event of a project goes out (docs/api.md, "Webhooks and live events"): to the live
 * feed, and to each enabled webhook that wants it, as delivery jobs on the `webhooks` queue. The
 * events a webhook takes are stored first (`webhook_events`: redelivery reads them). A job's id is
 * made from its webhook, attempt and events, so the same events handed over twice (a click job run
 * again after its worker died) make one job while the queue remembers it, and at worst a second
 * delivery of the same event id: at least once.
 */
@Injectable()
export class ProjectEvents {
  private readonly logger = new Logger('ProjectEvents');

  constructor(
    private readonly dataSource: DataSource,
    private readonly targets: WebhookTargets,
    private readonly queue: JobQueue,
    private readonly live: LiveFeed,
  ) {}

  /** Hands events over; resolves once their deliveries are queued (rejects when they could not be). */
  async publish(events: OutgoingEvent[]): Promise<void> {
    if (events.length === 0) return;
    void this.live.publish(events);
    const perWebhook = new Map<string, ProjectEvent[]>();
    const taken = new Map<string, OutgoingEvent>();
    const projects = new Set(events.map((e) => e.projectId));
    for (const projectId of projects) {
      const targets = await this.targets.forProject(projectId);
      if (targets.length === 0) continue;
      for (const outgoing of events) {
        if (outgoing.projectId !== projectId) continue;
        for (const target of targets) {
          if (!wants(target, outgoing)) continue;
          let list = perWebhook.get(target.id);
          if (!list) perWebhook.set(target.id, (list = []));
          list.push(outgoing.event);
          taken.set(outgoing.event.id, outgoing);
        }
      }
    }
    if (perWebhook.size === 0) return;
    await this.store([...taken.values()]);
    const jobs: DeliveryJob[] = [];
    for (const [webhookId, list] of perWebhook) {
      for (let i = 0; i < list.length; i += EVENTS_PER_JOB) {
        jobs.push({ webhookId, attempt: 1, events: list.slice(i, i + EVENTS_PER_JOB) });
      }
    }
    // One round trip for every job of the call.
    await this.queue.addBulk(
      QUEUES.webhooks,
      jobs.map((job) => ({ name: 'deliver', data: job, options: deliveryOptions(job, 0, 'd') })),
    );
  }

  /**
   * Like publish, for callers whose own answer must not wait on or fail with the events (the link
   * services after their commit): a failure is logged.
   */
  publishSoon(events: OutgoingEvent[]): void {
    this.publish(events).catch((error: Error) =>
      this.logger.error({ err: error, events: events.length }, 'events could not be handed over'),
    );
  }

  /** Queues an attempt, after a delay for a retry; `tag` makes its job id (d: first try, r…: redelivery). */
  async enqueue(job: DeliveryJob, delayMs = 0, tag = 'd'): Promise<void> {
    await this.queue.add(QUEUES.webhooks, 'deliver', job, deliveryOptions(job, delayMs, tag));
  }

  /** Keeps the events for redelivery, each once. */
  private async store(events: OutgoingEvent[]): Promise<void> {
    for (let i = 0; i < events.length; i += ROWS_PER_INSERT) {
      const chunk = events.slice(i, i + ROWS_PER_INSERT);
      const params: unknown[] = [];
      const values = chunk.map(({ projectId, event }) => {
        params.push(event.id, projectId, event.type, JSON.stringify(event), event.created_at);
        const n = params.length;
        return `($${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}::jsonb, $${n})`;
      });
      await this.dataSource.query(
        `INSERT INTO webhook_events (id, project_id, type, body, created_at)
         VALUES ${values.join(', ')} ON CONFLICT (id) DO NOTHING`,
        params,
      );
    }
  }
}

/**
 * A delivery job's options: its id from its webhook, attempt and events (the same events handed
 * over twice make one job while the queue holds it); the queue's own attempts cover a failure of
 * the job itself (the database unreachable), a failed delivery is retried by WebhookDeliveries.
 */
function deliveryOptions(job: DeliveryJob, delayMs: number, tag: string): EnqueueOptions {
  const digest = createHash('sha1')
    .update(job.events.map((e) => e.id).join(','))
    .digest('base64url')
    .slice(0, 16);
  return {
    jobId: `${tag}.${job.webhookId}.${job.attempt}.${digest}`,
    attempts: 5,
    keepCompleted: false,
    ...(delayMs > 0 ? { delayMs } : {}),
  };
}
