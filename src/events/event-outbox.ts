import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { PeriodicService, Schedule } from '../common/periodic-task';
import { AppConfig } from '../config/app-config';
import { EventOutboxRepository } from './event-outbox.repository';
import { EventType, OutgoingEvent } from './project-event';
import { ProjectEvents } from './project-events';

/** How often the outbox is swept where jobs run. */
const SWEEP: Schedule = { everyMs: 10_000, atStart: false, failure: 'event outbox not swept' };
/** Rows taken per sweep statement. */
const ROWS_PER_SWEEP = 100;

/**
 * At least once for the events of API requests (link.created, link.updated, conversion.created;
 * docs/architecture.md, "Webhooks and live events"): when a durable sink takes the type for the
 * project (ProjectEvents.keeps: a webhook of the project does), the request's transaction also
 * writes its events to `event_outbox`; after the commit they are handed over
 * (ProjectEvents.publish) and the row deleted. A process killed between the commit and the
 * hand-over, or a queue that refused it, leaves the row: the sweep, where jobs run, hands
 * over the rows past their `due_at` (30 s after the commit) with the same event ids (a second
 * delivery at worst). No transaction is held while events are handed over (on PGlite a
 * transaction holds the only session): a sweep claims its rows by moving their `due_at` a minute
 * on, so a sweep that dies leaves them to the next.
 * Projects without such a webhook write nothing; their live streams get the events after the
 * commit, at most once.
 */
@Injectable()
export class EventOutbox extends PeriodicService {
  protected readonly logger = new Logger('EventOutbox');
  protected readonly task = () => this.sweep();

  constructor(
    config: AppConfig,
    private readonly repository: EventOutboxRepository,
    private readonly events: ProjectEvents,
  ) {
    super(SWEEP, config.runsWorkers);
  }

  /**
   * Before a request's transaction: the hand-over of its events of `type`. Whether they must be
   * kept (a durable sink, an enabled webhook of the project, takes the type) is read now, not
   * inside the transaction, which on PGlite holds the only session.
   */
  async open(projectId: string, type: EventType): Promise<RequestEvents> {
    return new RequestEvents(this, await this.events.keeps(projectId, type));
  }

  /** In the transaction: keeps the events (one row); the row's id. */
  keep(manager: EntityManager, events: OutgoingEvent[]): Promise<string> {
    return this.repository.insert(manager, events);
  }

  /**
   * After the commit: hands the events over, then deletes their row (`kept`, null when none was
   * written). Never throws: a failure is logged and the row left for the sweep.
   */
  handOver(events: OutgoingEvent[], kept: string | null): void {
    if (events.length === 0) return;
    this.events
      .publish(events)
      .then(async () => {
        if (kept !== null) await this.repository.delete([kept]);
      })
      .catch((error: Error) =>
        this.logger.error(
          { err: error, events: events.length, kept },
          'events not handed over; the outbox sweep will',
        ),
      );
  }

  /**
   * Hands over the rows past their `due_at`, a hundred at a time: claimed (their `due_at` a minute
   * on; a row another sweep holds locked is skipped), handed over, then deleted. Answers how many
   * rows it handed over.
   */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await this.repository.claimDue(ROWS_PER_SWEEP);
      if (rows.length === 0) return total;
      await this.events.publish(rows.flatMap((row) => row.events));
      await this.repository.delete(rows.map((row) => row.id));
      total += rows.length;
      if (rows.length < ROWS_PER_SWEEP) return total;
    }
  }
}

/**
 * One request's events on their way out (EventOutbox.open): `add` them in its transaction (kept in
 * the outbox when a webhook takes them), `handOver` after the commit. None added, nothing sent.
 */
export class RequestEvents {
  private events: OutgoingEvent[] = [];
  private kept: string | null = null;

  constructor(
    private readonly outbox: EventOutbox,
    private readonly mustKeep: boolean,
  ) {}

  async add(manager: EntityManager, events: OutgoingEvent[]): Promise<void> {
    this.events = events;
    if (this.mustKeep) this.kept = await this.outbox.keep(manager, events);
  }

  handOver(): void {
    this.outbox.handOver(this.events, this.kept);
  }
}
