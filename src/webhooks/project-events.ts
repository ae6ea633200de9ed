import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
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

/**
 * Where every event of a project goes out (docs/api.md, "Webhooks and live events"): to the live
 * feed, and to each enabled webhook that wants it, as delivery jobs on the `webhooks` queue; the
 * jobs carry the events, and the delivery log keeps what was sent (DeliveryLog: redelivery reads
 * it). Nothing is written to the database here. A job's id is made from its webhook, attempt and
 * events, so the same events handed over twice (a click job run again after its worker died) make
 * one job while the queue remembers it, and at worst a second delivery of the same event id: at
 * least once.
 */
@Injectable()
export class ProjectEvents {
  constructor(
    private readonly targets: WebhookTargets,
    private readonly queue: JobQueue,
    private readonly live: LiveFeed,
  ) {}

  /** Hands events over; resolves once their deliveries are queued (rejects when they could not be). */
  async publish(events: OutgoingEvent[]): Promise<void> {
    if (events.length === 0) return;
    void this.live.publish(events);
    const perWebhook = new Map<string, ProjectEvent[]>();
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
        }
      }
    }
    if (perWebhook.size === 0) return;
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

  /** Queues an attempt, after a delay for a retry; `tag` makes its job id (d: first try, r…: redelivery). */
  async enqueue(job: DeliveryJob, delayMs = 0, tag = 'd'): Promise<void> {
    await this.queue.add(QUEUES.webhooks, 'deliver', job, deliveryOptions(job, delayMs, tag));
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
