import { createServer, request } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricValueWithName } from 'prom-client';
import type { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import {
  NOT_FOUND_ADDRESSES_MAX,
  NOT_FOUND_HELD_MAX,
  NotFoundBrake,
  brakeKey,
} from './not-found-brake';

/** A response that records its answer and when (on the faked clock) it was written. */
class Answer {
  status: number | null = null;
  headers: string[] = [];
  at: number | null = null;
  destroyed = false;
  headersSent = false;
  socket: { destroyed: boolean } | null = { destroyed: false };

  writeHead(status: number, headers: string[]): this {
    this.status = status;
    this.headers = headers;
    this.headersSent = true;
    this.at = performance.now();
    return this;
  }

  end(): this {
    return this;
  }

  get res(): ServerResponse {
    return this as unknown as ServerResponse;
  }
}

function setup(limits: { address?: number; instance?: number; delay?: number } = {}) {
  const metrics = new MetricsService();
  const brake = new NotFoundBrake(
    {
      notFoundRateLimit: limits.address ?? 3,
      notFoundInstanceLimit: limits.instance ?? 0,
      notFoundDelayMs: limits.delay ?? 1000,
    } as AppConfig,
    metrics,
  );
  /** One not-found answer to `ip`, begun now; `location`: the domain's redirect. */
  const visit = (ip: string | null, location: string | null = null): Answer => {
    const answer = new Answer();
    brake.answer(ip, answer.res, location, performance.now());
    return answer;
  };
  const visits = (ip: string | null, n: number) => Array.from({ length: n }, () => visit(ip));
  /** A metric's values by their labels, e.g. {'reason=address': 2}. */
  const metric = async (name: string): Promise<Record<string, number>> => {
    const { values } = (await metrics.registry.getSingleMetric(name)!.get()) as {
      values: MetricValueWithName<string>[];
    };
    return Object.fromEntries(
      values.map((v) => [
        [
          v.metricName ?? name,
          ...Object.entries(v.labels).map(([label, value]) => `${label}=${value}`),
        ].join(' '),
        v.value,
      ]),
    );
  };
  /** The not_found outcome's count and sum of seconds in the latency histogram. */
  const notFoundLatency = async () => {
    const all = await metric('svc_redirect_duration_seconds');
    return {
      count: all['svc_redirect_duration_seconds_count outcome=not_found'] ?? 0,
      sum: all['svc_redirect_duration_seconds_sum outcome=not_found'] ?? 0,
    };
  };
  return { brake, visit, visits, metric, notFoundLatency };
}

const statuses = (answers: Answer[]) => answers.map((answer) => answer.status);

describe('brakeKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    ['not an address', 'not an address'],
  ])('keys %s as %s', (ip, key) => {
    expect(brakeKey(ip)).toBe(key);
  });
});

describe('NotFoundBrake', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('answers the first N of an address at once and holds the next by the delay, observing it when written', async () => {
    const { brake, visit, visits, metric, notFoundLatency } = setup({ address: 3, delay: 1000 });
    const first = visits('203.0.113.1', 3);
    expect(statuses(first)).toEqual([404, 404, 404]);
    const fourth = visit('203.0.113.1');
    const fifth = visit('203.0.113.1', 'https://example.com/404');
    expect([fourth.status, fifth.status, brake.held]).toEqual([null, null, 2]);
    expect(await metric('svc_redirect_not_found_held')).toEqual({ svc_redirect_not_found_held: 2 });
    jest.advanceTimersByTime(999);
    expect([fourth.status, fifth.status]).toEqual([null, null]);
    jest.advanceTimersByTime(1);
    expect([fourth.status, fifth.status, brake.held]).toEqual([404, 302, 0]);
    expect(fifth.headers).toEqual([
      'Location',
      'https://example.com/404',
      'Cache-Control',
      'private, max-age=0',
      'Content-Length',
      '0',
    ]);
    expect(fourth.at! - first[0].at!).toBe(1000);
    // Three answered at once, two a second late.
    expect(await notFoundLatency()).toEqual({ count: 5, sum: 2 });
    expect(await metric('svc_redirect_not_found_delayed_total')).toEqual({
      'svc_redirect_not_found_delayed_total reason=address': 2,
      'svc_redirect_not_found_delayed_total reason=instance': 0,
    });
  });

  it('leaves another address unaffected, and starts counting again in the next second', () => {
    const { visit, visits } = setup({ address: 2 });
    expect(statuses(visits('203.0.113.1', 3))).toEqual([404, 404, null]);
    expect(statuses(visits('203.0.113.2', 2))).toEqual([404, 404]);
    jest.advanceTimersByTime(1000);
    expect(statuses(visits('203.0.113.1', 3))).toEqual([404, 404, null]);
    expect(visit('203.0.113.2').status).toBe(404);
  });

  it('holds, past the instance budget, the answers of every address in that second', async () => {
    const { brake, visit, metric } = setup({ address: 3, instance: 5 });
    const answers = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((_, i) => visit(`198.51.100.${i}`));
    expect(statuses(answers)).toEqual([404, 404, 404, 404, 404, null, null]);
    // An unknown address counts in all.
    expect(visit(null).status).toBeNull();
    expect(brake.held).toBe(3);
    expect(await metric('svc_redirect_not_found_delayed_total')).toEqual({
      'svc_redirect_not_found_delayed_total reason=address': 0,
      'svc_redirect_not_found_delayed_total reason=instance': 3,
    });
    jest.advanceTimersByTime(1000);
    expect(statuses(answers)).toEqual([404, 404, 404, 404, 404, 404, 404]);
    expect(visit('198.51.100.99').status).toBe(404);
  });

  it('holds in one queue drained by one timer', () => {
    const { brake, visit } = setup({ address: 1, delay: 1000 });
    visit('203.0.113.1');
    const held: Answer[] = [];
    for (let i = 0; i < 100; i++) {
      held.push(visit('203.0.113.1'));
      jest.advanceTimersByTime(5);
      expect(jest.getTimerCount()).toBe(1);
    }
    // Each answered a second after it was held: the first at 1000 ms, the last at 1495 ms.
    jest.advanceTimersByTime(994);
    expect(held.filter((answer) => answer.status === 404)).toHaveLength(99);
    jest.advanceTimersByTime(1);
    expect(held.filter((answer) => answer.status === 404)).toHaveLength(100);
    expect(held.map((answer, i) => answer.at! - held[0].at! - 5 * i)).toEqual(
      Array.from({ length: 100 }, () => 0),
    );
    expect([brake.held, jest.getTimerCount()]).toEqual([0, 0]);
  });

  it('past the held cap, answers at once with Connection: close', async () => {
    const { brake, visit, visits, metric } = setup({ address: 1 });
    visit('203.0.113.1');
    const held = visits('203.0.113.1', NOT_FOUND_HELD_MAX);
    expect(brake.held).toBe(NOT_FOUND_HELD_MAX);
    const shed = visits('203.0.113.1', 2);
    expect(statuses(shed)).toEqual([404, 404]);
    expect(shed[0].headers.slice(-2)).toEqual(['Connection', 'close']);
    expect(await metric('svc_redirect_not_found_shed_total')).toEqual({
      svc_redirect_not_found_shed_total: 2,
    });
    jest.advanceTimersByTime(1000);
    expect(held.every((answer) => answer.status === 404 && answer.headers.length === 6)).toBe(true);
    expect(brake.held).toBe(0);
  });

  it('counts at most NOT_FOUND_ADDRESSES_MAX addresses a second: another counts only in all', () => {
    const { visit } = setup({ address: 1 });
    let answered = 0;
    for (let i = 0; i < NOT_FOUND_ADDRESSES_MAX; i++) {
      if (visit(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`).status === 404) answered++;
    }
    expect(answered).toBe(NOT_FOUND_ADDRESSES_MAX);
    expect(statuses([visit('192.0.2.1'), visit('192.0.2.1')])).toEqual([404, 404]);
    expect(visit('10.0.0.0').status).toBeNull();
    // A new window clears the map.
    jest.advanceTimersByTime(1000);
    expect(statuses([visit('192.0.2.1'), visit('192.0.2.1')])).toEqual([404, null]);
  });

  it.each([
    ['both brakes', { address: 0, instance: 0 }, [404, 404, 404, 404]],
    [
      'the address brake (the instance one holds past 3)',
      { address: 0, instance: 3 },
      [404, 404, 404, null],
    ],
    [
      'the instance brake (the address one holds past 2)',
      { address: 2, instance: 0 },
      [404, 404, null, null],
    ],
  ])('turns off with 0: %s', (_, limits, expected) => {
    const { visits } = setup(limits);
    expect(statuses(visits('203.0.113.1', 4))).toEqual(expected);
  });

  it('counts IPv6 clients of one /64 together', () => {
    const { visit } = setup({ address: 2 });
    expect(visit('2001:db8:1:2::1').status).toBe(404);
    expect(visit('2001:db8:1:2:ffff:ffff:ffff:fffe').status).toBe(404);
    expect(visit('2001:db8:1:2::99').status).toBeNull();
    expect(visit('2001:db8:1:3::1').status).toBe(404);
  });

  it('drops a held answer whose client went away', async () => {
    const { visit, notFoundLatency } = setup({ address: 1 });
    visit('203.0.113.1');
    const [gone, socketGone, ended, stays] = [1, 2, 3, 4].map(() => visit('203.0.113.1'));
    gone.destroyed = true;
    socketGone.socket!.destroyed = true;
    ended.headersSent = true;
    jest.advanceTimersByTime(1000);
    expect(statuses([gone, socketGone, ended, stays])).toEqual([null, null, null, 404]);
    expect((await notFoundLatency()).count).toBe(2);
  });

  it('answers everything held at once at shutdown, and holds nothing after', () => {
    const { brake, visit, visits } = setup({ address: 1 });
    visit('203.0.113.1');
    const held = visits('203.0.113.1', 3);
    expect(statuses(held)).toEqual([null, null, null]);
    brake.beforeApplicationShutdown();
    expect(statuses(held)).toEqual([404, 404, 404]);
    expect([brake.held, jest.getTimerCount()]).toEqual([0, 0]);
    expect(visit('203.0.113.1').status).toBe(404);
  });
});

describe('NotFoundBrake on a connection', () => {
  it('closes the connection of an answer shed past the held cap', async () => {
    const { brake, visits } = setup({ address: 1 });
    visits('203.0.113.1', 1 + NOT_FOUND_HELD_MAX);
    const server = createServer((_req, res) => brake.answer('203.0.113.1', res, null, 0));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      // The client's agent keeps connections alive: only the answer's header closes this one.
      const answer = await new Promise<{ status?: number; connection?: string }>(
        (resolve, reject) => {
          let answered: { status?: number; connection?: string } | null = null;
          let closed = false;
          const done = () => {
            if (answered !== null && closed) resolve(answered);
          };
          const req = request({ port, host: '127.0.0.1', path: '/nope' }, (res) => {
            res.resume();
            res.on('end', () => {
              answered = { status: res.statusCode, connection: res.headers.connection };
              done();
            });
          });
          req.on('socket', (socket) =>
            socket.once('close', () => {
              closed = true;
              done();
            }),
          );
          req.on('error', reject);
          req.end();
        },
      );
      expect(answer).toEqual({ status: 404, connection: 'close' });
    } finally {
      brake.beforeApplicationShutdown();
      server.close();
    }
  });
});
