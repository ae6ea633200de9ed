import { Histogram, Registry } from 'prom-client';
import { LatencyHistogram } from './latency-histogram';

describe('LatencyHistogram', () => {
  it('renders exactly what prom-client renders for the same observations', async () => {
    const buckets = [0.0005, 0.001, 0.002, 0.005, 0.01, 1];
    const observations: [string, number][] = [
      ['redirect', 0.0001],
      ['redirect', 0.0005], // on a bound: counted in it (le is "less or equal")
      ['redirect', 0.0031],
      ['redirect', 2], // above every bound: only +Inf
      ['not_found', 0.002],
    ];
    const ours = new Registry();
    const fast = new LatencyHistogram(
      'svc_redirect_duration_seconds',
      'Time to answer a redirect',
      'outcome',
      buckets,
      ours,
    );
    const theirs = new Registry();
    const reference = new Histogram({
      name: 'svc_redirect_duration_seconds',
      help: 'Time to answer a redirect',
      labelNames: ['outcome'],
      buckets,
      registers: [theirs],
    });
    for (const [outcome, seconds] of observations) {
      fast.child(outcome).observe(seconds);
      reference.labels(outcome).observe(seconds);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain(
      'svc_redirect_duration_seconds_bucket{le="0.0005",outcome="redirect"} 2',
    );
    fast.reset();
    expect(await ours.metrics()).not.toContain('outcome=');
  });
});
