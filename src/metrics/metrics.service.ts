import { Injectable } from '@nestjs/common';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { HotCounter } from './hot-counter';
import { LatencyHistogram } from './latency-histogram';

/** Prometheus metrics of this process (GET /metrics). Collectors of other modules register here. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly redirectSeconds = new LatencyHistogram(
    'svc_redirect_duration_seconds',
    'Time to answer a redirect, from request to response end',
    'outcome',
    [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    this.registry,
  );

  readonly cacheLookups = new HotCounter(
    'svc_link_cache_lookups_total',
    'Lookups of the redirect path by the layer that answered (memory, filter, redis, database)',
    this.registry,
    'layer',
  );

  readonly cacheMisses = new HotCounter(
    'svc_link_cache_misses_total',
    'Lookups of the redirect path a layer passed on (memory, filter, redis), or links the database did not have',
    this.registry,
    'layer',
  );

  readonly cacheEvictions = new HotCounter(
    'svc_link_cache_evictions_total',
    'Entries a layer of the link cache let go to make room (memory: REDIRECT_CACHE_MB, REDIRECT_CACHE_SIZE)',
    this.registry,
    'layer',
  );

  readonly notFoundDelayed = new HotCounter(
    'svc_redirect_not_found_delayed_total',
    'Not-found answers of the redirect path held NOT_FOUND_DELAY_MS, by the budget passed (address: NOT_FOUND_RATE_LIMIT, instance: NOT_FOUND_INSTANCE_LIMIT)',
    this.registry,
    'reason',
  );

  readonly notFoundShed = new HotCounter(
    'svc_redirect_not_found_shed_total',
    'Not-found answers to delay written at once with Connection: close, as many being held already as may be',
    this.registry,
  ).child();

  readonly clicksRecorded = new HotCounter(
    'svc_clicks_recorded_total',
    'Clicks handed to the click buffer (bots included)',
    this.registry,
  ).child();

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'svc_' });
  }

  /** A gauge whose value is read when /metrics is scraped. */
  gauge(
    name: string,
    help: string,
    read: () => number | Promise<number>,
    labelNames: string[] = [],
  ): Gauge {
    return new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.set(await read());
      },
    });
  }
}
