import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Response } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { LIVE_FEED_OPTIONS, LiveFeed, LiveFeedOptions } from '../../src/live-feed/live-feed';
import { OutgoingEvent, eventId } from '../../src/events/project-event';
import { TestApp, createTestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { logCapture } from '../support/log-capture';
import { SiblingApp, startSiblingApp } from '../support/sibling-app';
import { SseClient, openStream, stream } from '../support/sse-client';
import { createProject } from '../factories/projects';

const NEEDS_API_KEY = {
  error: 403,
  error_message: "This endpoint needs the project's api_key; a publishable key may not call it",
};
const TOKEN_REFUSED = {
  status: 403,
  body: {
    error: 403,
    error_message:
      'Invalid stream token: unknown, expired or already used; get a new one (POST /events/stream/token)',
  },
};
const TOKEN_RE = /^stk_[0-9a-f]{64}$/;

/** An event of the project, and the SSE frame a stream receives of it. */
function clicked(projectId: string): { outgoing: OutgoingEvent[]; frame: string } {
  const event = {
    id: eventId(),
    type: 'link.clicked' as const,
    created_at: '2026-01-01T00:00:00.000Z',
    data: { svc_id: 'svc.test_x1' },
  };
  return {
    outgoing: [{ projectId, linkId: null, event }],
    frame: `id: ${event.id}\nevent: link.clicked\ndata: ${JSON.stringify(event)}\n\n`,
  };
}

/** A new project: its API key, publishable key and id. */
async function project(t: TestApp): Promise<{ key: string; pk: string; id: string }> {
  const created = await createProject(t);
  const { rows } = await t.db.query<{ id: string }>('SELECT id FROM projects WHERE api_key = $1', [
    created.api_key,
  ]);
  return { key: created.api_key, pk: created.publishable_key, id: rows[0].id };
}

async function listen(app: NestExpressApplication): Promise<void> {
  if (!app.getHttpServer().listening) await app.listen(0, '127.0.0.1');
}

/** POST /events/stream/token with the key in a header or the form. */
function tokenRequest(http: TestAgent, how: 'bearer' | 'x-api-key' | 'form', key: string) {
  const req = http.post('/events/stream/token');
  switch (how) {
    case 'bearer':
      return req.set('Authorization', `Bearer ${key}`);
    case 'x-api-key':
      return req.set('X-Api-Key', key);
    case 'form':
      return req.type('form').send({ key });
  }
}

async function token(http: TestAgent, key: string): Promise<string> {
  const res = await tokenRequest(http, 'bearer', key).expect(200);
  return (res.body as { token: string }).token;
}

const statusAndBody = (res: Response) => [res.status, res.body as unknown];

/**
 * The live feed opens with a short-lived, single-use stream token, so that the api_key need not
 * be in the stream's URL (docs/api.md, "Live feed"); in Redis, a token taken on one instance opens
 * a stream on another; in memory without REDIS_URL.
 */
describe.each([
  ['Redis, across two instances', true],
  ['memory (no REDIS_URL)', false],
])('stream tokens with %s', (_name, redis) => {
  let t: TestApp;
  /** Where streams are opened: another instance with Redis, the same one without. */
  let streams: { app: NestExpressApplication; http: TestAgent };
  let sibling: SiblingApp | null = null;
  let dataDir: string;
  let options: LiveFeedOptions;
  const clients: SseClient[] = [];

  beforeAll(async () => {
    t = await createTestApp({ redis });
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-stream-token-'));
    if (redis) sibling = await startSiblingApp(t, dataDir);
    streams = sibling ?? t;
    await listen(streams.app);
    options = t.app.get<LiveFeedOptions>(LIVE_FEED_OPTIONS);
  });

  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  afterAll(async () => {
    await sibling?.app.close();
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gives a token for the api_key in Authorization, X-Api-Key or the form; each opens one stream', async () => {
    const p = await project(t);
    const answers = [
      await tokenRequest(t.http, 'bearer', p.key),
      await tokenRequest(t.http, 'x-api-key', p.key),
      await tokenRequest(t.http, 'form', p.key),
    ];
    const tokens = answers.map((res) => (res.body as { token: string }).token);
    expect(
      answers.map((res) => [
        res.status,
        res.headers['cache-control'],
        Object.keys(res.body as object),
        TOKEN_RE.test((res.body as { token: string }).token),
        (res.body as { expires_in: number }).expires_in,
      ]),
    ).toEqual(Array(3).fill([200, 'no-store', ['token', 'expires_in'], true, 60]));
    expect(new Set(tokens).size).toBe(3);

    const opened = [];
    for (const value of tokens) {
      const client = await stream(streams.app, { token: value });
      clients.push(client);
      opened.push(client);
    }
    expect(opened.map((client) => client.res.headers['content-type'])).toEqual(
      Array(3).fill('text/event-stream; charset=utf-8'),
    );
    // Published on the instance that gave the tokens, received where the streams are.
    const { outgoing, frame } = clicked(p.id);
    await t.app.get(LiveFeed).publish(outgoing);
    for (const client of opened) {
      await client.until((c) => c.events.length === 1, 'the event');
      expect(client.framed).toBe(frame);
    }

    // Each token is used up: a second stream with it is refused, on either instance.
    expect(await openStream(streams.app, { token: tokens[0] })).toEqual(TOKEN_REFUSED);
    await listen(t.app);
    expect(await openStream(t.app, { token: tokens[1] })).toEqual(TOKEN_REFUSED);
  });

  it('uses a token up even when its stream is refused, and lets a stream resume with last_event_id', async () => {
    const p = await project(t);
    const refused = await token(t.http, p.key);
    const malformed = await streams.http
      .get('/events/stream')
      .query({ token: refused, last_event_id: '42' });
    expect(malformed.status).toBe(400);
    expect(await openStream(streams.app, { token: refused })).toEqual(TOKEN_REFUSED);

    const first = await stream(streams.app, { token: await token(t.http, p.key) });
    clients.push(first);
    const seen = clicked(p.id);
    await t.app.get(LiveFeed).publish(seen.outgoing);
    await first.until((c) => c.events.length === 1, 'the event');
    first.close();
    const missed = clicked(p.id);
    await t.app.get(LiveFeed).publish(missed.outgoing);
    const resumed = await stream(streams.app, {
      token: await token(t.http, p.key),
      last_event_id: first.events[0].id ?? '',
    });
    clients.push(resumed);
    await resumed.until((c) => c.events.length === 1, 'the missed event');
    expect(resumed.framed).toBe(missed.frame);
  });

  it('refuses a token past its lifetime', async () => {
    const p = await project(t);
    options.tokenTtlMs = 300;
    try {
      const res = await tokenRequest(t.http, 'x-api-key', p.key).expect(200);
      expect((res.body as { expires_in: number }).expires_in).toBe(1);
      // The lifetime running out is what is tested: this wait outlasts it, no state marks it.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(
        await openStream(streams.app, { token: (res.body as { token: string }).token }),
      ).toEqual(TOKEN_REFUSED);
    } finally {
      options.tokenTtlMs = 60_000;
    }
  });

  it('refuses the publishable key, a missing or wrong key, a key in the URL or given twice', async () => {
    const p = await project(t);
    const answers = [
      await tokenRequest(t.http, 'bearer', p.pk),
      await tokenRequest(t.http, 'form', p.pk),
      await t.http.post('/events/stream/token'),
      await tokenRequest(t.http, 'x-api-key', 'f'.repeat(64)),
      await t.http.post('/events/stream/token').query({ key: p.key }),
      await tokenRequest(t.http, 'bearer', p.key).type('form').send({ key: p.key }),
      await tokenRequest(t.http, 'bearer', p.key).set('X-Api-Key', p.key),
      await t.http.post('/events/stream/token').set('Authorization', `Basic ${p.key}`),
    ];
    expect(answers.map(statusAndBody)).toEqual([
      [403, NEEDS_API_KEY],
      [403, NEEDS_API_KEY],
      [400, { error: 400, error_message: 'Missing required parameter: key' }],
      [403, { error: 403, error_message: 'Invalid API key specified' }],
      [
        400,
        {
          error: 400,
          error_message:
            'Invalid parameter key: never in the URL here; send it in the Authorization or X-Api-Key header, or the form body',
        },
      ],
      ...Array(2).fill([
        400,
        {
          error: 400,
          error_message:
            'Invalid parameter key: given more than once; send the api_key once: Authorization, X-Api-Key or the form body',
        },
      ]),
      [
        400,
        {
          error: 400,
          error_message: 'Invalid parameter Authorization: must be "Bearer <api_key>"',
        },
      ],
    ]);
  });

  it('refuses a malformed, unknown or repeated token, and a token with a key', async () => {
    const p = await project(t);
    const valid = await token(t.http, p.key);
    const get = (query: string) => streams.http.get(`/events/stream?${query}`);
    const malformed = {
      error: 400,
      error_message:
        'Invalid parameter token: must be a stream token (stk_ and 64 hex digits), given once',
    };
    const answers = [
      await get('token='),
      await get('token=nope'),
      await get(`token=${valid}&token=${valid}`),
      await get(`token=stk_${randomBytes(32).toString('hex')}`),
      await get(`token=${valid}&key=${p.key}`),
    ];
    expect(answers.map(statusAndBody)).toEqual([
      [400, malformed],
      [400, malformed],
      [400, malformed],
      [403, TOKEN_REFUSED.body],
      [400, { error: 400, error_message: 'Invalid parameter token: give token or key, not both' }],
    ]);
    // None of these used the token up.
    clients.push(await stream(streams.app, { token: valid }));
  });
});

describe('stream tokens and the read budget (READ_RATE_LIMIT=3)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { READ_RATE_LIMIT: '3' } });
    await listen(t.app);
  });
  afterAll(() => t?.close());

  it("counts getting a token in the project's read budget, as opening a stream with the key", async () => {
    const p = await project(t);
    const tokens: string[] = [];
    const remaining: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await tokenRequest(t.http, i === 1 ? 'form' : 'bearer', p.key).expect(200);
      tokens.push((res.body as { token: string }).token);
      remaining.push(res.headers['x-ratelimit-remaining']);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const limited = await tokenRequest(t.http, 'x-api-key', p.key);
    expect(statusAndBody(limited)).toEqual([
      429,
      {
        error: 429,
        error_message:
          'Rate limit exceeded: at most 3 list, statistics and live-feed requests per hour per project',
      },
    ]);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The budget is the project's: a stream with the key in the URL is over it too.
    expect((await t.http.get('/events/stream').query({ key: p.key })).status).toBe(429);
    // A token already got still opens its stream: the opening was counted when it was given.
    const client = await stream(t.app, { token: tokens[0] });
    client.close();
  });
});

/**
 * The api_key and the stream token never reach the log (docs/operations.md, "Secrets in logs"):
 * request lines carry the path alone, and an unexpected error's URL is redacted, for a stream
 * opened with `key` or `token` alike.
 */
describe('stream requests leave no key or token in the log', () => {
  let t: TestApp;
  const log = logCapture();

  beforeAll(async () => {
    t = await createTestApp({ logDestination: log.destination, env: { LOG_LEVEL: 'debug' } });
    await listen(t.app);
  });
  afterAll(() => t?.close());

  it('redacts both in every line of a stream request, opened, refused or failed', async () => {
    const p = await project(t);
    const opened = await token(t.http, p.key);
    const used = [opened];
    const client = await stream(t.app, { token: opened });
    client.close();
    await client.until((c) => c.ended, 'the end');
    const byKey = await stream(t.app, { key: p.key });
    byKey.close();
    await byKey.until((c) => c.ended, 'the end');
    expect(await openStream(t.app, { token: opened })).toEqual(TOKEN_REFUSED);
    // An unexpected failure is logged with the request's URL.
    const subscribe = jest
      .spyOn(t.app.get(LiveFeed), 'subscribe')
      .mockRejectedValue(new Error('feed broken'));
    try {
      const failing = await token(t.http, p.key);
      used.push(failing);
      const internal = {
        status: 500,
        body: {
          error: 500,
          error_message: expect.stringMatching(/^Internal error; quote request id [\w-]+ when/),
        },
      };
      expect(await openStream(t.app, { token: failing })).toEqual(internal);
      expect(await openStream(t.app, { key: p.key, last_event_id: eventId() })).toEqual(internal);
    } finally {
      subscribe.mockRestore();
    }
    const failures = () =>
      log.lines().filter((line) => line.msg === 'unexpected error on GET /events/stream');
    const paths = () =>
      log
        .lines()
        .map((line) => (line.req as { path?: string } | undefined)?.path)
        .filter((path) => path?.startsWith('/events/'));
    // A request's line is written once its answer is done, a stream's once its connection closes.
    await eventually('the lines of the stream requests', () => {
      expect(failures()).toHaveLength(2);
      expect(paths().length).toBeGreaterThanOrEqual(6);
    });

    expect([p.key, ...used].filter((secret) => log.text().includes(secret))).toEqual([]);
    const urls = failures().map((line) =>
      (line.url as string).replace(/evt_[0-9a-f]{32}/, 'evt_…'),
    );
    expect(urls).toEqual([
      '/events/stream?token=[REDACTED]',
      '/events/stream?key=[REDACTED]&last_event_id=evt_…',
    ]);
    expect(new Set(paths())).toEqual(new Set(['/events/stream', '/events/stream/token']));
  });
});
