import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { LIVE_FEED_OPTIONS, LiveFeed, LiveFeedOptions } from '../../src/live-feed/live-feed';
import { EventType, OutgoingEvent, ProjectEvent, eventId } from '../../src/events/project-event';
import { TestApp, createTestApp } from '../support/app';
import { EmbeddedApp, startEmbeddedApp } from '../support/embedded-app';
import { TEST_REDIS_URL } from '../support/env';
import { eventually } from '../support/eventually';
import { SiblingApp, startSiblingApp } from '../support/sibling-app';
import { Refusal, SseClient, openStream, stream } from '../support/sse-client';
import { createProject } from '../factories/projects';

const REPLAY_SIZE = 5;
const NEEDS_API_KEY = {
  error: 403,
  error_message: "This endpoint needs the project's api_key; a publishable key may not call it",
};
const RESET = 'event: reset\ndata: {"reason":"last_event_id_not_found"}\n\n';

let sequence = 0;
const TYPES: EventType[] = ['link.created', 'link.updated', 'link.clicked', 'conversion.created'];

/** Events of a project, each of its own type in turn, with data telling them apart. */
function makeEvents(projectId: string, count: number): OutgoingEvent[] {
  return Array.from({ length: count }, () => {
    sequence += 1;
    const event: ProjectEvent = {
      id: eventId(),
      type: TYPES[sequence % TYPES.length],
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)).toISOString(),
      data: { n: sequence, link: { svc_id: `svc.test_x${sequence}` } },
    };
    return { projectId, linkId: null, event };
  });
}

/** The SSE framing of an event (docs/api.md, "Live feed"). */
function frame({ event }: OutgoingEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

const ids = (events: OutgoingEvent[]) => events.map(({ event }) => event.id);

/** GET /events/stream (docs/api.md, "Live feed") across two instances on one Redis and database. */
describe('the live feed across instances', () => {
  let t: TestApp;
  let a: SiblingApp;
  let aClosed = false;
  let dataDir: string;
  let redis: Redis;
  /** The feed of instance B (the test app), where events are published. */
  let feedB: LiveFeed;
  let optionsA: LiveFeedOptions;
  const clients: SseClient[] = [];

  /** A new project: its API key, publishable key and id. */
  async function project(): Promise<{ key: string; pk: string; id: string }> {
    const created = await createProject(t);
    const { rows } = await t.db.query<{ id: string }>(
      'SELECT id FROM projects WHERE api_key = $1',
      [created.api_key],
    );
    return { key: created.api_key, pk: created.publishable_key, id: rows[0].id };
  }

  /** A stream from instance A, closed after the test. */
  async function streamA(
    query: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<SseClient> {
    const client = await stream(a.app, query, headers);
    clients.push(client);
    return client;
  }

  const replayKey = (projectId: string) => `${t.config.redisPrefix}:events:replay:${projectId}`;
  const channel = (projectId: string) => `${t.config.redisPrefix}:events:${projectId}`;

  beforeAll(async () => {
    t = await createTestApp({ env: { EVENTS_REPLAY_SIZE: String(REPLAY_SIZE) } });
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-events-'));
    a = await startSiblingApp(t, dataDir, { EVENTS_REPLAY_SIZE: String(REPLAY_SIZE) });
    optionsA = a.app.get<LiveFeedOptions>(LIVE_FEED_OPTIONS);
    optionsA.heartbeatMs = 200;
    feedB = t.app.get(LiveFeed);
    redis = new Redis(TEST_REDIS_URL);
  });

  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  afterAll(async () => {
    redis?.disconnect();
    if (!aClosed) await a?.app.close();
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('streams the events published on another instance, in order, framed as SSE', async () => {
    const p = await project();
    const other = await project();
    const client = await streamA({ key: p.key });
    expect(client.res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(client.res.headers['cache-control']).toBe('no-cache');
    expect(client.res.headers['x-accel-buffering']).toBe('no');

    const first = makeEvents(p.id, 3);
    const second = makeEvents(p.id, 2);
    await feedB.publish([first[0], ...makeEvents(other.id, 1), first[1], first[2]]);
    await feedB.publish(second);
    await client.until((c) => c.events.length === 5, '5 events');

    expect(client.framed).toBe([...first, ...second].map(frame).join(''));
    const parsed = client.events.map((m) => [m.id, m.event, JSON.parse(m.data ?? '') as unknown]);
    expect(parsed[0]).toEqual([
      first[0].event.id,
      first[0].event.type,
      {
        id: first[0].event.id,
        type: first[0].event.type,
        created_at: first[0].event.created_at,
        data: first[0].event.data,
      },
    ]);
  });

  it('sends a heartbeat comment on an idle stream', async () => {
    const p = await project();
    const client = await streamA({ key: p.key });
    await client.until((c) => c.messages.length >= 2, 'two heartbeats');
    expect(client.messages.slice(0, 2)).toEqual([
      { comment: 'heartbeat' },
      { comment: 'heartbeat' },
    ]);
    expect(client.raw.startsWith(': heartbeat\n\n: heartbeat\n\n')).toBe(true);
  });

  it('resumes after Last-Event-ID (or last_event_id) with exactly the events missed, then live', async () => {
    const p = await project();
    const first = await streamA({ key: p.key });
    const seen = makeEvents(p.id, 2);
    await feedB.publish(seen);
    await first.until((c) => c.events.length === 2, 'the first events');
    first.close();
    await first.until((c) => c.ended, 'the end');

    // Published while no stream is open: the project stays watched for a minute.
    const missed = makeEvents(p.id, 2);
    await feedB.publish(missed);
    const resumed = await streamA({ key: p.key }, { 'Last-Event-ID': seen[1].event.id });
    await resumed.until((c) => c.events.length === 2, 'the replay');
    const live = makeEvents(p.id, 1);
    await feedB.publish(live);
    await resumed.until((c) => c.events.length === 3, 'the live event');
    expect(resumed.events.map((m) => m.id)).toEqual(ids([...missed, ...live]));
    expect(resumed.framed).toBe([...missed, ...live].map(frame).join(''));

    const byParameter = await streamA({ key: p.key, last_event_id: missed[1].event.id });
    await byParameter.until((c) => c.events.length === 1, 'the replay');
    expect(byParameter.events.map((m) => m.id)).toEqual(ids(live));
    // The header wins over the parameter (EventSource sends it on reconnecting).
    const both = await streamA(
      { key: p.key, last_event_id: seen[0].event.id },
      { 'Last-Event-ID': missed[0].event.id },
    );
    await both.until((c) => c.events.length === 2, 'the replay');
    expect(both.events.map((m) => m.id)).toEqual(ids([missed[1], ...live]));
  });

  it(`keeps the last ${REPLAY_SIZE} events: an older id gets reset first, then live events`, async () => {
    const p = await project();
    const watcher = await streamA({ key: p.key });
    const events = makeEvents(p.id, 7);
    await feedB.publish(events.slice(0, 4));
    await feedB.publish(events.slice(4));
    await watcher.until((c) => c.events.length === 7, 'the events');
    const kept = await redis.lrange(replayKey(p.id), 0, -1);
    expect(kept.map((body) => (JSON.parse(body) as ProjectEvent).id)).toEqual(ids(events.slice(2)));

    const old = await streamA({ key: p.key }, { 'Last-Event-ID': events[1].event.id });
    const unknown = await streamA({ key: p.key }, { 'Last-Event-ID': eventId() });
    await old.until((c) => c.events.length === 1, 'reset');
    const live = makeEvents(p.id, 1);
    await feedB.publish(live);
    for (const client of [old, unknown]) {
      await client.until((c) => c.events.length === 2, 'the live event');
      expect(client.framed).toBe(RESET + frame(live[0]));
    }
    // The window is now the last 5: events[3] … events[6] and the live one.
    const inWindow = await streamA({ key: p.key }, { 'Last-Event-ID': events[3].event.id });
    await inWindow.until((c) => c.events.length === 4, 'the replay');
    expect(inWindow.events.map((m) => m.id)).toEqual(ids([...events.slice(4), ...live]));
  });

  it('refuses the publishable key, a wrong or missing key and a malformed Last-Event-ID', async () => {
    const p = await project();
    const get = (query: Record<string, string>, headers: Record<string, string> = {}) =>
      t.http.get('/events/stream').query(query).set(headers);
    const answers = [
      await get({ key: p.pk }),
      await get({ key: 'f'.repeat(64) }),
      await get({}),
      await get({ key: p.key }, { 'Last-Event-ID': 'evt_nope' }),
      await get({ key: p.key, last_event_id: '42' }),
    ];
    expect(answers.map((res) => [res.status, res.body as unknown])).toEqual([
      [403, NEEDS_API_KEY],
      [403, { error: 403, error_message: 'Invalid API key specified' }],
      [400, { error: 400, error_message: 'Missing required parameter: key' }],
      [
        400,
        {
          error: 400,
          error_message: 'Invalid parameter Last-Event-ID: must be an event id (evt_…)',
        },
      ],
      [
        400,
        {
          error: 400,
          error_message: 'Invalid parameter last_event_id: must be an event id (evt_…), given once',
        },
      ],
    ]);
    // The same from a listening instance, as a browser would meet it.
    expect(await openStream(a.app, { key: p.pk })).toEqual({ status: 403, body: NEEDS_API_KEY });
  });

  it('writes nothing to Redis for a project nobody watches', async () => {
    const watched = await project();
    const unwatched = await project();
    await streamA({ key: watched.key });
    expect(await feedB.isWatched(unwatched.id)).toBe(false);
    await feedB.publish([...makeEvents(unwatched.id, 3), ...makeEvents(watched.id, 2)]);
    await feedB.publish(makeEvents(unwatched.id, 1));

    const keys = await redis.keys(`${t.config.redisPrefix}:events:*`);
    expect(keys.filter((key) => key.endsWith(unwatched.id))).toEqual([]);
    expect(keys.filter((key) => key.endsWith(watched.id)).sort()).toEqual([
      replayKey(watched.id),
      `${t.config.redisPrefix}:events:watched:${watched.id}`,
    ]);
    expect(await redis.llen(replayKey(watched.id))).toBe(2);
  });

  it('caps the open streams of a project per instance, and frees them when clients go away', async () => {
    const p = await project();
    optionsA.maxStreamsPerProject = 2;
    try {
      const first = await streamA({ key: p.key });
      await streamA({ key: p.key });
      const refused = await a.http.get('/events/stream').query({ key: p.key });
      expect([refused.status, refused.body]).toEqual([
        429,
        {
          error: 429,
          error_message:
            'Too many open streams of this project: at most 2 per instance; close one first',
        },
      ]);
      first.close();
      const numsub = async () =>
        ((await redis.pubsub('NUMSUB', channel(p.id))) as [string, number])[1];
      const third = await retry(() => openStream(a.app, { key: p.key }));
      clients.push(third);
      expect(await numsub()).toBe(1);
      for (const client of clients.splice(0)) client.close();
      await eventually('the channel unsubscribed', async () => (await numsub()) === 0);
    } finally {
      optionsA.maxStreamsPerProject = 20;
    }
  });

  it('ends its streams when its Redis subscription is lost, so that clients resume', async () => {
    const p = await project();
    const client = await streamA({ key: p.key });
    const before = makeEvents(p.id, 1);
    await feedB.publish(before);
    await client.until((c) => c.events.length === 1, 'the event');
    const list = (await redis.client('LIST')) as string;
    const subscribers = list
      .split('\n')
      .filter((line) => line.includes(` name=${t.config.redisPrefix}:events `))
      .map((line) => /\bid=(\d+)/.exec(line)?.[1]);
    expect(subscribers).toHaveLength(2);
    for (const id of subscribers) await redis.client('KILL', 'ID', id!);
    await client.until((c) => c.ended, 'the end of the stream');

    const missed = makeEvents(p.id, 1);
    await feedB.publish(missed);
    const resumed = await retry(() =>
      openStream(a.app, { key: p.key }, { 'Last-Event-ID': before[0].event.id }),
    );
    clients.push(resumed);
    await resumed.until((c) => c.events.length === 1, 'the replay');
    expect(resumed.framed).toBe(frame(missed[0]));
  });

  it('ends its streams when the instance closes, without holding the close', async () => {
    const p = await project();
    const client = await streamA({ key: p.key });
    await a.app.close();
    aClosed = true;
    await client.until((c) => c.ended, 'the end of the stream');
  });
});

describe('the live feed in embedded mode (one process, no Redis)', () => {
  let e: EmbeddedApp;

  beforeAll(async () => {
    e = await startEmbeddedApp('live', { EVENTS_REPLAY_SIZE: String(REPLAY_SIZE) });
    await e.app.listen(0, '127.0.0.1');
  }, 120_000);

  afterAll(() => e?.close());

  it('streams, resumes and refuses the publishable key', async () => {
    const [project] = await e.app
      .get(DataSource)
      .query<{ id: string; publishable_key: string }[]>(
        'SELECT id, publishable_key FROM projects WHERE api_key = $1',
        [e.key],
      );
    const feed = e.app.get(LiveFeed);
    const first = await stream(e.app, { key: e.key });
    const seen = makeEvents(project.id, 2);
    await feed.publish(seen);
    await first.until((c) => c.events.length === 2, 'the events');
    expect(first.framed).toBe(seen.map(frame).join(''));
    first.close();

    const missed = makeEvents(project.id, 2);
    await feed.publish(missed);
    const resumed = await stream(e.app, { key: e.key }, { 'Last-Event-ID': seen[0].event.id });
    await resumed.until((c) => c.events.length === 3, 'the replay');
    expect(resumed.events.map((m) => m.id)).toEqual(ids([seen[1], ...missed]));
    resumed.close();

    expect(await openStream(e.app, { key: project.publishable_key })).toEqual({
      status: 403,
      body: NEEDS_API_KEY,
    });
  });
});

/** Tries `open` until it gives a stream (a closed client frees its slot a moment later). */
function retry(open: () => Promise<SseClient | Refusal>): Promise<SseClient> {
  return eventually('a stream', async () => {
    const opened = await open();
    if (!(opened instanceof SseClient)) throw new Error(`refused: ${JSON.stringify(opened)}`);
    return opened;
  });
}
