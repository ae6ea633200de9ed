import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { JobGroups } from '../queue/job-groups';
import { JobQueue } from '../queue/job-queue';
import { QUEUES } from '../queue/queue-names';

/** Delivery jobs of one webhook running at once, service-wide (each sends PARALLEL_SENDS side by side). */
export const WEBHOOK_SLOTS = 2;
/** Delivery jobs of one project running at once, service-wide: half of one worker's slots. */
export const PROJECT_SLOTS = 8;
/** Events per delivery job: each is its own request, sent side by side. */
export const EVENTS_PER_JOB = 100;
/** Requests of one job in flight at once. */
export const PARALLEL_SENDS = 32;
/** A parked job runs again after this long even if no slot freed woke it (a crashed holder). */
export const PARK_MS = 30_000;
/** Wakes tried per freed slot: a parked job already gone or running is passed over. */
const WAKES_PER_RELEASE = 3;

/** Who a delivery job is for. */
export interface SlotOwner {
  id: string;
  projectId: string;
}

/**
 * Fair delivery (docs/architecture.md, "Webhooks and live events"): a delivery job runs only while
 * it holds a slot of its project (PROJECT_SLOTS) and of its webhook (WEBHOOK_SLOTS); otherwise it
 * is parked, out of the shared queue, until a job of the same project or webhook ends and wakes
 * it (or PARK_MS passes). So a project whose receivers hang holds at most PROJECT_SLOTS of the
 * workers' slots, its backlog waits outside the queue's line, and another project's jobs start as
 * soon as they come up. Also counts each webhook's backlog (events queued, not yet delivered)
 * against WEBHOOK_BACKLOG.
 */
@Injectable()
export class DeliverySlots {
  private readonly leaseMs: number;

  constructor(
    private readonly config: AppConfig,
    private readonly groups: JobGroups,
    private readonly queue: JobQueue,
  ) {
    // The longest a job may run: its rounds of sends, each bounded by the timeout, and its writes.
    this.leaseMs = Math.ceil(EVENTS_PER_JOB / PARALLEL_SENDS) * config.webhookTimeoutMs + 60_000;
  }

  /** Takes the job's slots (true), or parks it (false; it holds nothing then). */
  async take(owner: SlotOwner, jobId: string): Promise<boolean> {
    const project = projectGroup(owner);
    if (!(await this.groups.take(project, PROJECT_SLOTS, jobId, this.leaseMs))) return false;
    if (await this.groups.take(webhookGroup(owner), WEBHOOK_SLOTS, jobId, this.leaseMs)) {
      return true;
    }
    await this.free(project, jobId);
    return false;
  }

  /** Frees the job's slots, waking a parked job for each. */
  async release(owner: SlotOwner, jobId: string): Promise<void> {
    await this.free(webhookGroup(owner), jobId);
    await this.free(projectGroup(owner), jobId);
  }

  /** Whether a parked job could take its slots now (a wake may have come while it was parking). */
  async hasRoom(owner: SlotOwner): Promise<boolean> {
    return (
      (await this.groups.hasRoom(projectGroup(owner), PROJECT_SLOTS)) &&
      (await this.groups.hasRoom(webhookGroup(owner), WEBHOOK_SLOTS))
    );
  }

  /** Counts events into the webhook's backlog: how many of `n` fit (the first ones). */
  admit(webhookId: string, n: number): Promise<number> {
    return this.groups.admit(backlogKey(webhookId), n, this.config.webhookBacklog);
  }

  /** Counts a redelivery in, whatever the backlog. */
  async admitAlways(webhookId: string): Promise<void> {
    await this.groups.admit(backlogKey(webhookId), 1, Number.MAX_SAFE_INTEGER);
  }

  /** Events that left the webhook's backlog (delivered, given up or dropped). */
  settle(webhookId: string, n: number): Promise<void> {
    return this.groups.settle(backlogKey(webhookId), n);
  }

  private async free(group: string, jobId: string): Promise<void> {
    for (let i = 0; i < WAKES_PER_RELEASE; i++) {
      const next = await this.groups.release(group, jobId);
      if (next === null || (await this.queue.wake(QUEUES.webhooks, next))) return;
    }
  }
}

const projectGroup = (owner: SlotOwner) => `webhook-project:${owner.projectId}`;
const webhookGroup = (owner: SlotOwner) => `webhook:${owner.id}`;
const backlogKey = (webhookId: string) => `webhook-backlog:${webhookId}`;
