import type { ServerResponse } from 'node:http';
import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import * as ipaddr from 'ipaddr.js';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { CounterSeries } from '../metrics/hot-counter';
import { writeMissing } from './redirect-answers';

/** The length of a counting window, in ms. */
const WINDOW_MS = 1000;
/** Most client addresses counted in one window: past it a new one counts only towards the instance's budget. */
export const NOT_FOUND_ADDRESSES_MAX = 100_000;
/** Most answers held at once: past it an answer to delay is written at once, closing its connection. */
export const NOT_FOUND_HELD_MAX = 10_000;

/** Why an answer is delayed: its address's budget or the instance's was spent (the metric's label). */
type Reason = 'address' | 'instance';

/** A not-found answer waiting for its time. */
interface Held {
  readonly res: ServerResponse;
  /** The domain's redirect, null for the 404 page. */
  readonly location: string | null;
  /** performance.now() when the visit began, for the latency histogram. */
  readonly started: number;
  /** performance.now() when it is answered. */
  readonly due: number;
}

/**
 * The key a client's not-found answers are counted under: an IPv4 address as it is, an IPv6
 * address by its /64 (the one network a host is given: an attacker rotates within it for free).
 * The address is plain already (storedIp): an IPv4 client on a dual-stack listener reads as IPv4.
 */
export function brakeKey(ip: string): string {
  if (!ip.includes(':')) return ip;
  if (!ipaddr.IPv6.isValid(ip)) return ip;
  const parts = ipaddr.IPv6.parse(ip).parts;
  return `${parts[0].toString(16)}:${parts[1].toString(16)}:${parts[2].toString(16)}:${parts[3].toString(16)}::/64`;
}

/**
 * A brake on the answers for paths of no link (docs/operations.md, "Floods of unknown paths"). The
 * filter of existing links answers them without a store, but each still costs its HTTP parsing and
 * answer, and the flooding client's next request: a flood beside a hot link took half its rate.
 * Past NOT_FOUND_RATE_LIMIT answers in a second from one address (IPv6: one /64), or
 * NOT_FOUND_INSTANCE_LIMIT from all together, the rest of that second's are held NOT_FOUND_DELAY_MS
 * before they are written: a client that waits for its answers (one request per connection at a
 * time, as HTTP/1.1 clients do) then sends a few a second per connection. Counted in fixed
 * windows of a second from the first answer counted. Redirects of existing links are never braked,
 * nor a bare domain's visit: the handler asks only for a path of no link.
 *
 * Held answers wait in one queue, in order of their due times (they all wait as long), drained by
 * one unref'd timer. At most NOT_FOUND_HELD_MAX are held; past it an answer is written at once
 * with `Connection: close`, so that the flooding connection is shed. An answer whose client went
 * away meanwhile is dropped. The latency histogram's `not_found` outcome is observed when the
 * answer is written, so a held answer shows its delay there.
 */
@Injectable()
export class NotFoundBrake implements BeforeApplicationShutdown {
  private readonly logger = new Logger('NotFoundBrake');
  private readonly addressLimit: number;
  private readonly instanceLimit: number;
  private readonly delayMs: number;
  /** Not-found answers of the window per client key (brakeKey), at most NOT_FOUND_ADDRESSES_MAX keys. */
  private readonly addresses = new Map<string, number>();
  /** Not-found answers of the window in all. */
  private total = 0;
  /** performance.now() when the window ends; the next answer after it starts a new one. */
  private windowEnds = -Infinity;
  /** The held answers: a ring of NOT_FOUND_HELD_MAX slots, `size` of them from `head`. */
  private readonly ring: (Held | undefined)[] = new Array<Held | undefined>(NOT_FOUND_HELD_MAX);
  private head = 0;
  private size = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Set at shutdown: every answer is written at once from then on. */
  private closing = false;
  private readonly latency: { observe(seconds: number): void };
  private readonly delayed: Record<Reason, CounterSeries>;
  private readonly shed: CounterSeries;

  constructor(config: AppConfig, metrics: MetricsService) {
    this.addressLimit = config.notFoundRateLimit;
    this.instanceLimit = config.notFoundInstanceLimit;
    this.delayMs = config.notFoundDelayMs;
    this.latency = metrics.redirectSeconds.child('not_found');
    this.delayed = {
      address: metrics.notFoundDelayed.child('address'),
      instance: metrics.notFoundDelayed.child('instance'),
    };
    this.shed = metrics.notFoundShed;
    metrics.gauge(
      'svc_redirect_not_found_held',
      'Not-found answers of the redirect path held now (NOT_FOUND_DELAY_MS)',
      () => this.size,
    );
  }

  /** How many answers are held now. */
  get held(): number {
    return this.size;
  }

  /**
   * Answers a visit of a path of no link from `ip` (null: unknown, counted only in all): the
   * domain's redirect (`location`), else the 404 page; at once, or held as above.
   */
  answer(ip: string | null, res: ServerResponse, location: string | null, started: number): void {
    const reason = this.closing ? null : this.count(ip);
    if (reason === null) return this.write(res, location, started, false);
    if (this.size === NOT_FOUND_HELD_MAX) {
      this.shed.inc();
      return this.write(res, location, started, true);
    }
    this.delayed[reason].inc();
    const due = performance.now() + this.delayMs;
    this.ring[(this.head + this.size) % NOT_FOUND_HELD_MAX] = { res, location, started, due };
    this.size++;
    if (this.timer === null) this.schedule(this.delayMs);
  }

  /** Writes every held answer now and holds none from now on (before the server closes: it would wait for them). */
  beforeApplicationShutdown(): void {
    this.closing = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.release(Infinity);
  }

  /** Counts an answer in its window: why it must wait, or null when it goes at once. */
  private count(ip: string | null): Reason | null {
    if (this.addressLimit === 0 && this.instanceLimit === 0) return null;
    const now = performance.now();
    if (now >= this.windowEnds) {
      this.addresses.clear();
      this.total = 0;
      this.windowEnds = now + WINDOW_MS;
    }
    this.total++;
    if (this.addressLimit > 0 && ip !== null) {
      const key = brakeKey(ip);
      const count = this.addresses.get(key);
      if (count !== undefined) {
        this.addresses.set(key, count + 1);
        if (count >= this.addressLimit) return 'address';
      } else if (this.addresses.size < NOT_FOUND_ADDRESSES_MAX) {
        this.addresses.set(key, 1);
      }
    }
    return this.instanceLimit > 0 && this.total > this.instanceLimit ? 'instance' : null;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => this.drain(), ms);
    this.timer.unref();
  }

  /** The timer: writes the answers that are due, then waits for the next one's time. */
  private drain(): void {
    this.timer = null;
    // A timer may fire a little before performance.now() says (its clock is the loop's, read at
    // the turn's start): the slack of one timer tick below spares a second timer for that.
    const now = performance.now();
    this.release(now + 1);
    if (this.size > 0) this.schedule(Math.max(1, Math.ceil(this.ring[this.head]!.due - now)));
  }

  /** Writes the held answers due by `until`, in order, skipping those whose client went away. */
  private release(until: number): void {
    while (this.size > 0) {
      const held = this.ring[this.head]!;
      if (held.due > until) return;
      this.ring[this.head] = undefined;
      this.head = (this.head + 1) % NOT_FOUND_HELD_MAX;
      this.size--;
      const { res } = held;
      if (res.destroyed || res.headersSent || res.socket?.destroyed === true) continue;
      try {
        this.write(res, held.location, held.started, false);
      } catch (error) {
        // In a timer: thrown on, it would end the process.
        this.logger.error({ err: error }, 'a held not-found answer failed');
      }
    }
  }

  private write(
    res: ServerResponse,
    location: string | null,
    started: number,
    close: boolean,
  ): void {
    writeMissing(res, location, close);
    this.latency.observe((performance.now() - started) / 1000);
  }
}
