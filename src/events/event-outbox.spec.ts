import { Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { EventOutbox } from './event-outbox';
import type { EventOutboxRepository } from './event-outbox.repository';
import type { EventType, OutgoingEvent } from './project-event';
import type { ProjectEvents } from './project-events';

const event = (n: number): OutgoingEvent => ({
  projectId: 'p1',
  linkId: String(n),
  event: {
    id: `evt_${n.toString(16).padStart(32, '0')}`,
    type: 'link.created',
    created_at: '2026-01-01T00:00:00.000Z',
    data: { n },
  },
});

/** `event_outbox` in memory: rows, whether each is due, and the manager each was written with. */
class FakeOutboxRepository {
  readonly rows = new Map<string, { events: OutgoingEvent[]; due: boolean }>();
  readonly writtenWith: EntityManager[] = [];
  private next = 1;

  insert(manager: EntityManager, events: OutgoingEvent[]): Promise<string> {
    const id = String(this.next++);
    this.rows.set(id, { events, due: false });
    this.writtenWith.push(manager);
    return Promise.resolve(id);
  }

  claimDue(limit: number): Promise<{ id: string; events: OutgoingEvent[] }[]> {
    const claimed = [...this.rows.entries()]
      .filter(([, row]) => row.due)
      .slice(0, limit)
      .map(([id, row]) => {
        row.due = false;
        return { id, events: row.events };
      });
    return Promise.resolve(claimed);
  }

  delete(ids: string[]): Promise<void> {
    for (const id of ids) this.rows.delete(id);
    return Promise.resolve();
  }

  /** Every row past its due time, as 30 s after the commit. */
  allDue(): void {
    for (const row of this.rows.values()) row.due = true;
  }
}

/** The fan-out: which types are kept, what was handed over, and whether it refuses. */
class FakeProjectEvents {
  readonly published: OutgoingEvent[][] = [];
  refuses = false;

  constructor(private readonly kept: EventType[]) {}

  keeps(_projectId: string, type: EventType): Promise<boolean> {
    return Promise.resolve(this.kept.includes(type));
  }

  publish(events: OutgoingEvent[]): Promise<void> {
    if (this.refuses) return Promise.reject(new Error('queue unreachable'));
    this.published.push(events);
    return Promise.resolve();
  }
}

const manager = { name: 'the request’s transaction' } as unknown as EntityManager;
const settled = () => new Promise(setImmediate);

function setUp(kept: EventType[]) {
  const repository = new FakeOutboxRepository();
  const events = new FakeProjectEvents(kept);
  const config = { runsWorkers: false } as AppConfig;
  return {
    repository,
    events,
    outbox: new EventOutbox(
      config,
      repository as unknown as EventOutboxRepository,
      events as unknown as ProjectEvents,
    ),
  };
}

describe('EventOutbox', () => {
  let error: jest.SpyInstance;
  beforeEach(() => {
    error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => error.mockRestore());

  it('keeps a request’s events in its transaction when a durable sink takes them, and hands them over after the commit', async () => {
    const { repository, events, outbox } = setUp(['link.created']);
    const request = await outbox.open('p1', 'link.created');
    await request.add(manager, [event(1), event(2)]);
    expect([...repository.rows.values()].map((row) => row.events)).toEqual([[event(1), event(2)]]);
    expect(repository.writtenWith).toEqual([manager]);
    expect(events.published).toEqual([]);

    request.handOver();
    await settled();
    expect(events.published).toEqual([[event(1), event(2)]]);
    expect(repository.rows.size).toBe(0);
  });

  it('writes nothing when no durable sink takes the type, and still hands the events over', async () => {
    const { repository, events, outbox } = setUp(['link.created']);
    const request = await outbox.open('p1', 'link.updated');
    await request.add(manager, [event(1)]);
    expect(repository.rows.size).toBe(0);
    request.handOver();
    await settled();
    expect(events.published).toEqual([[event(1)]]);
  });

  it('hands nothing over when the request added no events', async () => {
    const { events, outbox } = setUp(['link.created']);
    (await outbox.open('p1', 'link.created')).handOver();
    await settled();
    expect(events.published).toEqual([]);
  });

  it('leaves the row when the hand-over fails, and the sweep hands it over later', async () => {
    const { repository, events, outbox } = setUp(['conversion.created']);
    events.refuses = true;
    const request = await outbox.open('p1', 'conversion.created');
    await request.add(manager, [event(1)]);
    request.handOver();
    await settled();
    expect(repository.rows.size).toBe(1);
    expect(error).toHaveBeenCalledTimes(1);
    expect(error.mock.calls[0][1]).toBe('events not handed over; the outbox sweep will');

    // Not yet due: the sweep leaves it.
    events.refuses = false;
    expect(await outbox.sweep()).toBe(0);
    expect(events.published).toEqual([]);

    repository.allDue();
    expect(await outbox.sweep()).toBe(1);
    expect(events.published).toEqual([[event(1)]]);
    expect(repository.rows.size).toBe(0);
  });

  it('sweeps every due row, a hundred rows per hand-over, oldest first', async () => {
    const { repository, events, outbox } = setUp(['link.created']);
    for (let n = 0; n < 150; n++) await repository.insert(manager, [event(n)]);
    repository.allDue();
    expect(await outbox.sweep()).toBe(150);
    expect(events.published.map((batch) => batch.length)).toEqual([100, 50]);
    expect(events.published.flat()).toEqual(Array.from({ length: 150 }, (_, n) => event(n)));
    expect(repository.rows.size).toBe(0);
  });

  it('keeps the rows of a sweep whose hand-over failed, for the next sweep', async () => {
    const { repository, events, outbox } = setUp(['link.created']);
    await repository.insert(manager, [event(1)]);
    repository.allDue();
    events.refuses = true;
    await expect(outbox.sweep()).rejects.toThrow('queue unreachable');
    expect(repository.rows.size).toBe(1);
  });
});
