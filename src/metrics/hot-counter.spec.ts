import { Counter, Registry } from 'prom-client';
import { HotCounter } from './hot-counter';

describe('HotCounter', () => {
  it('renders exactly what prom-client renders for the same increments, with a label and without', async () => {
    const ours = new Registry();
    const lookups = new HotCounter('svc_link_cache_lookups_total', 'Link lookups', ours, 'layer');
    const recorded = new HotCounter('svc_clicks_recorded_total', 'Clicks', ours).child();
    const theirs = new Registry();
    const lookupsRef = new Counter({
      name: 'svc_link_cache_lookups_total',
      help: 'Link lookups',
      labelNames: ['layer'],
      registers: [theirs],
    });
    const recordedRef = new Counter({
      name: 'svc_clicks_recorded_total',
      help: 'Clicks',
      registers: [theirs],
    });
    for (const layer of ['memory', 'memory', 'database', 'memory']) {
      lookups.child(layer).inc();
      lookupsRef.labels(layer).inc();
    }
    for (let i = 0; i < 3; i++) {
      recorded.inc();
      recordedRef.inc();
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('svc_link_cache_lookups_total{layer="memory"} 3');
    expect(await ours.metrics()).toContain('svc_clicks_recorded_total 3');
  });
});
