import { Logger } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { AppConfig } from '../config/app-config';
import { RingBuffer } from './local-feed-backend';
import {
  DEFAULT_LIVE_FEED_OPTIONS,
  FeedListener,
  FeedMessage,
  LiveFeed,
  replayAfter,
} from './live-feed';
import { OutgoingEvent, ProjectEvent } from '../events/project-event';
import { ProjectEvents } from '../events/project-events';

const event = (n: number): ProjectEvent => ({
  id: `evt_${n.toString(16).padStart(32, '0')}`,
  type: 'link.clicked',
  created_at: '2026-01-01T00:00:00.000Z',
  data: { n },
});
const outgoing = (projectId: string, ...ns: number[]): OutgoingEvent[] =>
  ns.map((n) => ({ projectId, linkId: null, event: event(n) }));

/** A stream's receiving end: what it was sent, as event numbers and `reset`. */
class Collector implements FeedListener {
  readonly received: (number | 'reset')[] = [];
  ended = false;
  deliver(message: FeedMessage): void {
    this.received.push(message.type === 'reset' ? 'reset' : (message.event.data.n as number));
  }
  end(): void {
    this.ended = true;
  }
}

function embeddedFeed(replaySize: number, maxStreamsPerProject = 20): LiveFeed {
  const config = { redisUrl: null, redisPrefix: 'svc', eventsReplaySize: replaySize } as AppConfig;
  return new LiveFeed(
    config,
    { ...DEFAULT_LIVE_FEED_OPTIONS, maxStreamsPerProject },
    new ProjectEvents(),
  );
}

describe('replayAfter', () => {
  const window = [1, 2, 3, 4].map(event);

  it('gives the events after the id, oldest first', () => {
    expect(replayAfter(window, event(2).id)).toEqual([event(3), event(4)]);
    expect(replayAfter(window, event(4).id)).toEqual([]);
  });

  it('gives null for an id out of the window', () => {
    expect(replayAfter(window, event(5).id)).toBeNull();
    expect(replayAfter([], event(1).id)).toBeNull();
  });
});

describe('RingBuffer', () => {
  it('keeps the last items pushed, oldest first', () => {
    const ring = new RingBuffer<number>(3);
    ring.push(1);
    ring.push(2);
    expect(ring.toArray()).toEqual([1, 2]);
    for (const n of [3, 4, 5, 6, 7]) ring.push(n);
    expect(ring.toArray()).toEqual([5, 6, 7]);
  });

  it('keeps nothing with no capacity', () => {
    const ring = new RingBuffer<number>(0);
    ring.push(1);
    expect(ring.toArray()).toEqual([]);
  });
});

describe('LiveFeed without Redis', () => {
  afterEach(() => jest.useRealTimers());

  it('delivers a project’s events in order, and no other project’s', async () => {
    const feed = embeddedFeed(10);
    const a = new Collector();
    await feed.subscribe('p1', null, a);
    await feed.publish([...outgoing('p1', 1, 2), ...outgoing('p2', 3), ...outgoing('p1', 4)]);
    await feed.publish(outgoing('p1', 5));
    expect(a.received).toEqual([1, 2, 4, 5]);
  });

  it('keeps nothing of a project nobody watches', async () => {
    const feed = embeddedFeed(10);
    expect(await feed.isWatched('p1')).toBe(false);
    await feed.publish(outgoing('p1', 1, 2));
    const a = new Collector();
    await feed.subscribe('p1', event(1).id, a);
    expect(a.received).toEqual(['reset']);
    expect(await feed.isWatched('p1')).toBe(true);
  });

  it('resumes after Last-Event-ID with the events missed, then live ones', async () => {
    const feed = embeddedFeed(10);
    const a = new Collector();
    const first = await feed.subscribe('p1', null, a);
    await feed.publish(outgoing('p1', 1, 2, 3));
    first.close();
    await feed.publish(outgoing('p1', 4, 5));
    expect(a.received).toEqual([1, 2, 3]);
    const b = new Collector();
    await feed.subscribe('p1', event(3).id, b);
    await feed.publish(outgoing('p1', 6));
    expect(b.received).toEqual([4, 5, 6]);
  });

  it('keeps the last EVENTS_REPLAY_SIZE events: an older id gets reset, then live events', async () => {
    const feed = embeddedFeed(3);
    await feed.subscribe('p1', null, new Collector());
    await feed.publish(outgoing('p1', 1, 2, 3, 4, 5));
    const old = new Collector();
    await feed.subscribe('p1', event(2).id, old);
    const kept = new Collector();
    await feed.subscribe('p1', event(3).id, kept);
    await feed.publish(outgoing('p1', 6));
    expect(old.received).toEqual(['reset', 6]);
    expect(kept.received).toEqual([4, 5, 6]);
  });

  it('keeps events a minute after the last stream closed, and starts a new window after that', async () => {
    jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const feed = embeddedFeed(10);
    (await feed.subscribe('p1', null, new Collector())).close();
    jest.setSystemTime(new Date('2026-01-01T00:00:59Z'));
    expect(await feed.isWatched('p1')).toBe(true);
    await feed.publish(outgoing('p1', 1, 2));
    jest.setSystemTime(new Date('2026-01-01T00:01:01Z'));
    expect(await feed.isWatched('p1')).toBe(false);
    // Skipped: a resume must not pass over it silently.
    await feed.publish(outgoing('p1', 3));
    const a = new Collector();
    await feed.subscribe('p1', event(1).id, a);
    await feed.publish(outgoing('p1', 4));
    expect(a.received).toEqual(['reset', 4]);
  });

  it('refuses a stream beyond the per-project limit with 429 until one closes', async () => {
    const feed = embeddedFeed(10, 2);
    const first = await feed.subscribe('p1', null, new Collector());
    await feed.subscribe('p1', null, new Collector());
    await feed.subscribe('p2', null, new Collector());
    const refused = await feed.subscribe('p1', null, new Collector()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      status: 429,
      message: 'Too many open streams of this project: at most 2 per instance; close one first',
    });
    first.close();
    first.close();
    const again = new Collector();
    await feed.subscribe('p1', null, again);
    await feed.publish(outgoing('p1', 1));
    expect(again.received).toEqual([1]);
  });

  it('stops delivering to a closed stream', async () => {
    const feed = embeddedFeed(10);
    const a = new Collector();
    const subscription = await feed.subscribe('p1', null, a);
    await feed.publish(outgoing('p1', 1));
    subscription.close();
    await feed.publish(outgoing('p1', 2));
    expect(a.received).toEqual([1]);
  });

  it('ends every stream at shutdown and refuses new ones with 503', async () => {
    const feed = embeddedFeed(10);
    const a = new Collector();
    const b = new Collector();
    await feed.subscribe('p1', null, a);
    await feed.subscribe('p2', null, b);
    feed.shutdown();
    expect([a.ended, b.ended]).toEqual([true, true]);
    await expect(feed.subscribe('p1', null, new Collector())).rejects.toMatchObject({
      status: 503,
      message: 'This instance is shutting down; retry',
    });
  });
});

describe('LiveFeed with Redis out of reach', () => {
  it('drops events without throwing, logs once a minute, and refuses streams with 503', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    // Nothing listens on port 1: every command fails.
    const config = {
      redisUrl: 'redis://127.0.0.1:1',
      redisPrefix: 'svc',
      eventsReplaySize: 10,
    } as AppConfig;
    const feed = new LiveFeed(config, DEFAULT_LIVE_FEED_OPTIONS, new ProjectEvents());
    try {
      await expect(feed.publish(outgoing('p1', 1))).resolves.toBeUndefined();
      await expect(feed.publish(outgoing('p2', 2))).resolves.toBeUndefined();
      expect(await feed.isWatched('p3')).toBe(false);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toMatch(
        /^live feed unavailable \(.+\): 1 events dropped; webhooks are not affected/,
      );
      await expect(feed.subscribe('p1', null, new Collector())).rejects.toMatchObject({
        status: 503,
      });
    } finally {
      await feed.onApplicationShutdown();
      warn.mockRestore();
    }
  });
});
