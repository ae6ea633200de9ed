import { once } from 'node:events';
import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { closeRedis } from '../queue/redis.provider';
import { FeedBackend, FeedDelivery, WATCH_REFRESH_MS, WATCH_TTL_SECONDS } from './feed-backend';
import type { ProjectEvent } from '../events/project-event';

/** How long a publisher trusts what it learnt of a project's mark, in ms. */
const PRESENCE_CACHE_MS = 1_000;
/** Above this many cached projects, expired entries are swept. */
const PRESENCE_CACHE_SWEEP = 10_000;
/** The longest a command of the feed may take before it counts as failed, in ms. */
const COMMAND_TIMEOUT_MS = 1_000;
/** The longest a stream waits for its channel subscription, in ms. */
const SUBSCRIBE_TIMEOUT_MS = 2_000;
/** The longest the application's start waits for Redis, in ms. */
const START_WAIT_MS = 2_000;

/**
 * Marks a project watched for ARGV[1] seconds; a mark made afresh empties its window, since
 * publishers skipped its events while it was unmarked. Returns 1 when the mark is new.
 */
const WATCH_SCRIPT = `
if redis.call('SET', KEYS[1], '1', 'EX', ARGV[1], 'NX') then
  redis.call('DEL', KEYS[2])
  return 1
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[1])
return 0`;

interface Presence {
  until: number;
  watched: Promise<boolean>;
}

/**
 * The live feed across instances. Keys under the Redis prefix (docs/api.md, "Live feed"):
 * - `events:watched:<project>`: the mark, set with a TTL by every instance holding streams of the
 *   project and renewed every WATCH_REFRESH_MS; publishers skip projects without it, checking at
 *   most once a second per project (a new mark is announced on `events:watch` so that none waits
 *   that second);
 * - `events:replay:<project>`: a capped list of the last `replaySize` events, for resume;
 * - channel `events:<project>`: each publish call's events of the project, as one JSON array.
 * A publish call's writes are one MULTI, so the list and the channel see events in the same order.
 */
export class RedisFeedBackend implements FeedBackend {
  private readonly logger = new Logger('LiveFeed');
  private readonly commands: Redis;
  private readonly subscriber: Redis;
  private readonly presence = new Map<string, Presence>();
  /** Projects with streams on this instance. */
  private readonly watching = new Set<string>();
  private readonly watchChannel: string;
  private refresher: NodeJS.Timeout | null = null;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly replaySize: number,
    private readonly deliver: FeedDelivery,
    private readonly interrupted: () => void,
  ) {
    this.watchChannel = `${prefix}:events:watch`;
    // No offline queue: while Redis is away, a publish fails at once instead of waiting.
    this.commands = new Redis(url, {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
    });
    this.subscriber = new Redis(url, { connectionName: `${prefix}:events` });
    this.commands.on('error', () => undefined);
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (channel: string, message: string) =>
      this.receive(channel, message),
    );
    // Messages published while the subscription was down are lost: the streams end, and their
    // clients resume from the window (or are told to reset).
    let connected = false;
    this.subscriber.on('ready', () => {
      if (connected) this.interrupted();
      connected = true;
    });
  }

  async start(): Promise<void> {
    this.subscriber.subscribe(this.watchChannel).catch(() => undefined);
    if (this.commands.status === 'ready') return;
    await withTimeout(once(this.commands, 'ready'), START_WAIT_MS).catch(() => undefined);
  }

  async watchedAmong(projectIds: string[]): Promise<Set<string>> {
    const now = Date.now();
    const stale = projectIds.filter(
      (id) => !this.watching.has(id) && !((this.presence.get(id)?.until ?? 0) > now),
    );
    if (stale.length > 0) this.lookUp(stale, now);
    const answers = await Promise.all(
      projectIds.map((id) =>
        this.watching.has(id)
          ? Promise.resolve(true)
          : (this.presence.get(id)?.watched ?? Promise.resolve(false)),
      ),
    );
    return new Set(projectIds.filter((_, i) => answers[i]));
  }

  async append(batches: Map<string, ProjectEvent[]>): Promise<void> {
    const multi = this.commands.multi();
    for (const [projectId, events] of batches) {
      const bodies = events.map((event) => JSON.stringify(event));
      if (this.replaySize > 0) {
        const key = this.replayKey(projectId);
        multi.rpush(key, ...bodies);
        multi.ltrim(key, -this.replaySize, -1);
        multi.expire(key, WATCH_TTL_SECONDS);
      }
      multi.publish(this.channel(projectId), `[${bodies.join(',')}]`);
    }
    await multi.exec();
  }

  async watch(projectId: string): Promise<void> {
    this.watching.add(projectId);
    await withTimeout(this.subscriber.subscribe(this.channel(projectId)), SUBSCRIBE_TIMEOUT_MS);
    const fresh = await this.commands.eval(
      WATCH_SCRIPT,
      2,
      this.markKey(projectId),
      this.replayKey(projectId),
      WATCH_TTL_SECONDS,
    );
    if (fresh === 1) await this.commands.publish(this.watchChannel, projectId);
    this.refresher ??= setInterval(() => this.refresh(), WATCH_REFRESH_MS).unref();
  }

  unwatch(projectId: string): void {
    this.watching.delete(projectId);
    this.subscriber.unsubscribe(this.channel(projectId)).catch(() => undefined);
    if (this.watching.size === 0 && this.refresher) {
      clearInterval(this.refresher);
      this.refresher = null;
    }
  }

  async window(projectId: string): Promise<ProjectEvent[]> {
    const bodies = await this.commands.lrange(this.replayKey(projectId), 0, -1);
    return bodies.map((body) => JSON.parse(body) as ProjectEvent);
  }

  async close(): Promise<void> {
    if (this.refresher) clearInterval(this.refresher);
    this.refresher = null;
    // A connection still being made would hold QUIT until Redis answers: it is dropped instead.
    await Promise.all(
      [this.commands, this.subscriber].map((redis) =>
        redis.status === 'ready' ? closeRedis(redis) : Promise.resolve(redis.disconnect()),
      ),
    );
  }

  /** One round trip asks Redis for the marks of `projectIds`; each answer is cached a second. */
  private lookUp(projectIds: string[], now: number): void {
    const pipeline = this.commands.pipeline();
    for (const id of projectIds) pipeline.exists(this.markKey(id));
    const results = pipeline.exec().then((replies) => {
      if (!replies) throw new Error('no answer from Redis');
      return replies.map(([error, count]) => {
        if (error) throw error;
        return count === 1;
      });
    });
    if (this.presence.size > PRESENCE_CACHE_SWEEP) {
      for (const [id, entry] of this.presence) if (entry.until <= now) this.presence.delete(id);
    }
    projectIds.forEach((id, i) => {
      const watched = results.then((answers) => answers[i]);
      // Awaited by the publish calls that read it; a failure is theirs to report.
      watched.catch(() => undefined);
      this.presence.set(id, { until: now + PRESENCE_CACHE_MS, watched });
    });
  }

  /** Renews the marks of the projects this instance streams, in one round trip. */
  private refresh(): void {
    const projectIds = [...this.watching];
    const pipeline = this.commands.pipeline();
    for (const id of projectIds) {
      pipeline.eval(WATCH_SCRIPT, 2, this.markKey(id), this.replayKey(id), WATCH_TTL_SECONDS);
    }
    pipeline
      .exec()
      .then((replies) => {
        const fresh = projectIds.filter((_, i) => replies?.[i]?.[1] === 1);
        for (const id of fresh) void this.commands.publish(this.watchChannel, id).catch(() => 0);
      })
      .catch((error: Error) => this.logger.warn(`live feed marks not renewed: ${error.message}`));
  }

  private receive(channel: string, message: string): void {
    if (channel === this.watchChannel) {
      this.presence.delete(message);
      return;
    }
    const projectId = channel.slice(`${this.prefix}:events:`.length);
    try {
      this.deliver(projectId, JSON.parse(message) as ProjectEvent[]);
    } catch (error) {
      this.logger.warn(`bad live feed message: ${(error as Error).message}`);
    }
  }

  private channel(projectId: string): string {
    return `${this.prefix}:events:${projectId}`;
  }

  private markKey(projectId: string): string {
    return `${this.prefix}:events:watched:${projectId}`;
  }

  private replayKey(projectId: string): string {
    return `${this.prefix}:events:replay:${projectId}`;
  }
}

/** `promise`, or a rejection once `ms` have passed without its answer. */
export async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
