import { createHash } from 'node:crypto';
import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EventSink } from '../events/event-sink';
import { EventType, OutgoingEvent, ProjectEvent } from '../events/project-event';
import { ProjectEvents } from '../events/project-events';
import { EnqueueOptions, JobQueue } from '../queue/job-queue';
import { QUEUES } from '../queue/queue-names';
import { DeliveryLog } from './delivery-log';
import { DeliverySlots, EVENTS_PER_JOB } from './delivery-slots';
import { WebhookTargets, wants } from './webhook-targets';

/** The job of one delivery attempt of some events to one webhook (WebhookDeliveries). */
export interface DeliveryJob {
  webhookId: string;
  /** 1 for the first try, then one more per retry. */
  attempt: number;
  events: ProjectEvent[];
  /**
   * The places in `events` of the events whose body this job's log row keeps: each event's body
   * is stored once, with its first attempt to the first webhook that takes it (none on a retry or
   * a redelivery, whose bodies the log has). Absent on a job queued by an earlier version: all.
   */
  keep?: number[];
}

/**
 * The webhooks' sink of events (docs/api.md, "Webhooks and live events"; EventSink): each event
 * published (ProjectEvents) goes to each enabled webhook of its project that wants it, as delivery
 * jobs on the `webhooks` queue; the jobs carry the events, and the delivery log keeps what was
 * sent (DeliveryLog: redelivery reads it). A webhook's events past its backlog cap
 * (WEBHOOK_BACKLOG, DeliverySlots) are dropped, the newest first, and logged as such; nothing else
 * is written to the database here. A job's id is made from its webhook, attempt and events, so the
 * same events handed over twice (a click job run again after its worker died) make one job while
 * the queue remembers it, and at worst a second delivery of the same event id: at least once.
 * Durable: the events of API requests a webhook takes are kept in the outbox until queued here
 * (EventOutbox).
 */
@Injectable()
export class WebhookSink implements EventSink, OnModuleInit {
  readonly durable = true;

  constructor(
    private readonly targets: WebhookTargets,
    private readonly queue: JobQueue,
    private readonly slots: DeliverySlots,
    private readonly deliveryLog: DeliveryLog,
    private readonly events: ProjectEvents,
  ) {}

  onModuleInit(): void {
    this.events.subscribe(this);
  }

  /** Whether an enabled webhook of the project takes the type. */
  async takes(projectId: string, type: EventType): Promise<boolean> {
    const targets = await this.targets.forProject(projectId);
    return targets.some((target) => target.events.has(type));
  }

  /** Takes events; resolves once their deliveries are queued (rejects when they could not be). */
  async publish(events: OutgoingEvent[]): Promise<void> {
    if (events.length === 0) return;
    const perWebhook = new Map<string, { events: ProjectEvent[]; keep: boolean[] }>();
    const kept = new Set<string>();
    const projects = new Set(events.map((e) => e.projectId));
    for (const projectId of projects) {
      const targets = await this.targets.forProject(projectId);
      if (targets.length === 0) continue;
      for (const outgoing of events) {
        if (outgoing.projectId !== projectId) continue;
        for (const target of targets) {
          if (!wants(target, outgoing)) continue;
          let list = perWebhook.get(target.id);
          if (!list) perWebhook.set(target.id, (list = { events: [], keep: [] }));
          list.events.push(outgoing.event);
          list.keep.push(!kept.has(outgoing.event.id));
          kept.add(outgoing.event.id);
        }
      }
    }
    if (perWebhook.size === 0) return;
    const jobs: DeliveryJob[] = [];
    for (const [webhookId, list] of perWebhook) {
      const admitted = await this.slots.admit(webhookId, list.events.length);
      if (admitted < list.events.length) await this.drop(webhookId, list, admitted);
      for (let i = 0; i < admitted; i += EVENTS_PER_JOB) {
        const end = Math.min(admitted, i + EVENTS_PER_JOB);
        const keep: number[] = [];
        for (let k = i; k < end; k++) if (list.keep[k]) keep.push(k - i);
        jobs.push({ webhookId, attempt: 1, events: list.events.slice(i, end), keep });
      }
    }
    // One round trip for every job of the call.
    try {
      await this.queue.addBulk(
        QUEUES.webhooks,
        jobs.map((job) => ({ name: 'deliver', data: job, options: deliveryOptions(job, 0, 'd') })),
      );
    } catch (error) {
      // Not queued: the caller hands them over again, and they are counted again then.
      for (const job of jobs) {
        await this.slots.settle(job.webhookId, job.events.length).catch(() => undefined);
      }
      throw error;
    }
  }

  /** Queues an attempt, after a delay for a retry; `tag` makes its job id (d: first try, r…: redelivery). */
  async enqueue(job: DeliveryJob, delayMs = 0, tag = 'd'): Promise<void> {
    await this.queue.add(QUEUES.webhooks, 'deliver', job, deliveryOptions(job, delayMs, tag));
  }

  /**
   * The events from `from` on, past the webhook's backlog cap: not queued, each logged as an
   * attempt 0 with the error `backlog_full` (and its body when it is the one kept), so that the
   * deliveries page shows them and they can be redelivered.
   */
  private async drop(
    webhookId: string,
    list: { events: ProjectEvent[]; keep: boolean[] },
    from: number,
  ): Promise<void> {
    await this.deliveryLog.append(
      webhookId,
      0,
      list.events.slice(from).map((event, i) => ({
        event,
        body: JSON.stringify(event),
        keepBody: list.keep[from + i],
        result: { statusCode: null, durationMs: 0, response: '', error: 'backlog_full' },
      })),
      null,
    );
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
