import { Logger } from '@nestjs/common';
import type { EventSink } from './event-sink';
import type { EventType, OutgoingEvent } from './project-event';
import { ProjectEvents } from './project-events';

const event = (projectId: string, n: number): OutgoingEvent => ({
  projectId,
  linkId: null,
  event: {
    id: `evt_${n.toString(16).padStart(32, '0')}`,
    type: 'link.created',
    created_at: '2026-01-01T00:00:00.000Z',
    data: { n },
  },
});

/** A sink that takes the types it is given per project, and records what it was handed. */
class FakeSink implements EventSink {
  readonly handed: OutgoingEvent[][] = [];
  /** What publish answers: resolved by default. */
  answer: () => Promise<void> = () => Promise.resolve();

  constructor(
    readonly durable: boolean,
    private readonly taken: Record<string, EventType[]> = {},
  ) {}

  takes(projectId: string, type: EventType): Promise<boolean> {
    return Promise.resolve(this.taken[projectId]?.includes(type) ?? false);
  }

  publish(events: OutgoingEvent[]): Promise<void> {
    this.handed.push(events);
    return this.answer();
  }
}

describe('ProjectEvents', () => {
  it('hands every event to every sink subscribed, once each', async () => {
    const events = new ProjectEvents();
    const webhooks = new FakeSink(true);
    const live = new FakeSink(false);
    events.subscribe(webhooks);
    events.subscribe(live);
    events.subscribe(webhooks);
    const batch = [event('p1', 1), event('p2', 2)];
    await events.publish(batch);
    expect(webhooks.handed).toEqual([batch]);
    expect(live.handed).toEqual([batch]);
  });

  it('hands nothing over for no events', async () => {
    const events = new ProjectEvents();
    const sink = new FakeSink(true);
    events.subscribe(sink);
    await events.publish([]);
    expect(sink.handed).toEqual([]);
  });

  it('waits for the durable sinks, not for the others', async () => {
    const events = new ProjectEvents();
    const live = new FakeSink(false);
    // A best-effort sink that never answers does not hold the publisher.
    live.answer = () => new Promise<void>(() => undefined);
    const webhooks = new FakeSink(true);
    let queued!: () => void;
    webhooks.answer = () => new Promise<void>((resolve) => (queued = resolve));
    events.subscribe(live);
    events.subscribe(webhooks);
    let done = false;
    const published = events.publish([event('p1', 1)]).then(() => (done = true));
    await new Promise(setImmediate);
    expect(live.handed).toHaveLength(1);
    expect(webhooks.handed).toHaveLength(1);
    expect(done).toBe(false);
    queued();
    await published;
    expect(done).toBe(true);
  });

  it('rejects when a durable sink could not take the events; a best-effort failure is only logged', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const events = new ProjectEvents();
      const live = new FakeSink(false);
      live.answer = () => Promise.reject(new Error('redis down'));
      events.subscribe(live);
      await expect(events.publish([event('p1', 1)])).resolves.toBeUndefined();
      await new Promise(setImmediate);
      expect(warn).toHaveBeenCalledTimes(1);

      const webhooks = new FakeSink(true);
      webhooks.answer = () => Promise.reject(new Error('queue unreachable'));
      events.subscribe(webhooks);
      await expect(events.publish([event('p1', 2)])).rejects.toThrow('queue unreachable');
    } finally {
      warn.mockRestore();
    }
  });

  it('listens to a project’s type when some sink takes it, and keeps it when a durable one does', async () => {
    const events = new ProjectEvents();
    events.subscribe(new FakeSink(true, { p1: ['link.created'] }));
    events.subscribe(new FakeSink(false, { p1: ['link.clicked'], p2: ['link.created'] }));
    const asked = async (projectId: string, type: EventType) => [
      await events.listens(projectId, type),
      await events.keeps(projectId, type),
    ];
    expect(await asked('p1', 'link.created')).toEqual([true, true]);
    expect(await asked('p1', 'link.clicked')).toEqual([true, false]);
    expect(await asked('p2', 'link.created')).toEqual([true, false]);
    expect(await asked('p2', 'conversion.created')).toEqual([false, false]);
    expect(await asked('p3', 'link.created')).toEqual([false, false]);
  });

  it('takes nothing and keeps nothing without sinks', async () => {
    const events = new ProjectEvents();
    await expect(events.publish([event('p1', 1)])).resolves.toBeUndefined();
    expect(await events.listens('p1', 'link.created')).toBe(false);
    expect(await events.keeps('p1', 'link.created')).toBe(false);
  });
});
