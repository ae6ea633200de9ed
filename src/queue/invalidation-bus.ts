import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config';
import { closeRedis } from './redis.provider';

/**
 * What changed: a link (svc_id), a project (id), a link domain (hostname), the webhooks of a
 * project (its id) or the stamps of links (their ids: attributes erased in place).
 */
export type InvalidationKind = 'link' | 'project' | 'domain' | 'webhooks' | 'stamps';

/**
 * A process-local cache the bus keeps in step: told which keys of its kinds changed, or, when
 * messages may have been missed (a reconnect), to drop everything it holds.
 */
export interface LocalCache<K extends InvalidationKind = InvalidationKind> {
  readonly kinds: readonly K[];
  drop(kind: K, keys: readonly string[]): void;
  dropAll(): void;
}

/** The key that, in a message, stands for every key: the caches are dropped whole. */
const EVERY_KEY = '*';

/**
 * The one way to say that cached objects changed: a writer calls `changed(kind, keys)` once its
 * transaction has committed, and every instance's local caches of that kind drop the keys. With
 * Redis: one pub/sub channel per prefix, so each API instance hears it; without Redis there is one
 * process and the caches drop at once. Writers (links, projects, domains, webhooks) do not know who
 * caches; caches register themselves (`register`).
 */
@Injectable()
export class InvalidationBus implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('InvalidationBus');
  private readonly caches: LocalCache[] = [];
  private readonly channel: string;
  private publisher: Redis | null = null;
  private subscriber: Redis | null = null;

  constructor(private readonly config: AppConfig) {
    this.channel = `${config.redisPrefix}:invalidate`;
  }

  async onModuleInit(): Promise<void> {
    if (!this.config.redisUrl) return;
    this.publisher = new Redis(this.config.redisUrl, { maxRetriesPerRequest: 1 });
    this.subscriber = new Redis(this.config.redisUrl);
    this.publisher.on('error', () => undefined);
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (_channel: string, message: string) => {
      try {
        const { kind, keys } = JSON.parse(message) as { kind: InvalidationKind; keys: string[] };
        this.dispatch(kind, keys);
      } catch (error) {
        this.logger.warn(`bad invalidation message: ${(error as Error).message}`);
      }
    });
    // While disconnected, messages are missed: the caches are dropped whole on reconnect.
    this.subscriber.on('ready', () => this.dispatch('project', [EVERY_KEY]));
    await this.subscriber.subscribe(this.channel);
  }

  /** Keeps a local cache in step with every instance's changes. */
  register<K extends InvalidationKind>(cache: LocalCache<K>): void {
    this.caches.push(cache);
  }

  /**
   * After a commit: the keys are dropped here at once and on every other instance through Redis
   * (should Redis miss it, the others' entries expire by their time to live).
   */
  async changed(kind: InvalidationKind, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    this.dispatch(kind, keys);
    if (!this.publisher) return;
    try {
      await this.publisher.publish(this.channel, JSON.stringify({ kind, keys }));
    } catch (error) {
      this.logger.warn(
        `invalidation not published (${(error as Error).message}); other instances expire it by TTL`,
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([closeRedis(this.publisher), closeRedis(this.subscriber)]);
  }

  private dispatch(kind: InvalidationKind, keys: readonly string[]): void {
    const all = keys.includes(EVERY_KEY);
    for (const cache of this.caches) {
      if (all) cache.dropAll();
      else if (cache.kinds.includes(kind)) cache.drop(kind, keys);
    }
  }
}
