import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config';
import { closeRedis } from './redis.provider';

/**
 * What changed: a link (svc_id), a project (id), a link domain (hostname) or the webhooks of a
 * project (its id).
 */
export type InvalidationKind = 'link' | 'project' | 'domain' | 'webhooks';

type Handler = (kind: InvalidationKind, keys: string[]) => void;

/**
 * Tells every instance that cached objects changed. With Redis: one pub/sub channel per prefix, so
 * each API instance drops the entries from its in-process cache; without Redis there is one
 * process and the handlers run at once. Publishers (links, projects, domains) do not know who caches.
 */
@Injectable()
export class InvalidationBus implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('InvalidationBus');
  private readonly handlers: Handler[] = [];
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
    this.subscriber.on('ready', () => this.dispatch('project', ['*']));
    await this.subscriber.subscribe(this.channel);
  }

  onInvalidate(handler: Handler): void {
    this.handlers.push(handler);
  }

  /** Drops the keys here at once and on every other instance through Redis. */
  async publish(kind: InvalidationKind, keys: string[]): Promise<void> {
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

  private dispatch(kind: InvalidationKind, keys: string[]): void {
    for (const handler of this.handlers) handler(kind, keys);
  }
}
