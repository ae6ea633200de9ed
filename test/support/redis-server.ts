import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import Redis from 'ioredis';

/**
 * A Redis of the test's own (the `redis-server` binary on a free port, nothing persisted), which the
 * test may kill and start again on the same port. The machine's shared Redis is never touched.
 */
export interface TestRedisServer {
  port: number;
  url: string;
  /** Kills the server at once (SIGKILL: an outage, not a clean shutdown) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts a fresh, empty server on the same port. */
  start(): Promise<void>;
  /** Polls BullMQ's keys under `prefix` until no job is waiting, delayed or active. */
  waitForQueues(prefix: string, timeoutMs?: number): Promise<void>;
}

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startRedisServer(): Promise<TestRedisServer> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;

  const start = async (): Promise<void> => {
    if (child) throw new Error('test Redis is already running');
    const proc = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
      ],
      { stdio: 'ignore' },
    );
    child = proc;
    const exited = new Promise<never>((_, reject) =>
      proc.once('exit', (code) =>
        reject(new Error(`redis-server on port ${port} exited (${code})`)),
      ),
    );
    exited.catch(() => undefined);
    const deadline = Date.now() + 5000;
    for (;;) {
      const probe = new Redis(url, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      probe.on('error', () => undefined);
      try {
        await Promise.race([probe.connect().then(() => probe.ping()), exited]);
        return;
      } catch (error) {
        if (proc.exitCode !== null || Date.now() > deadline) throw error;
      } finally {
        probe.disconnect();
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  const kill = async (): Promise<void> => {
    const proc = child;
    if (!proc) return;
    child = null;
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  };

  const waitForQueues = async (prefix: string, timeoutMs = 15_000): Promise<void> => {
    const redis = new Redis(url);
    redis.on('error', () => undefined);
    try {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        let busy = 0;
        for (const state of ['wait', 'active', 'delayed', 'prioritized', 'paused']) {
          const keys = await redis.keys(`${prefix}:bull:*:${state}`);
          for (const key of keys) {
            const type = await redis.type(key);
            busy +=
              type === 'list'
                ? await redis.llen(key)
                : type === 'zset'
                  ? await redis.zcard(key)
                  : 0;
          }
        }
        if (busy === 0) return;
        if (Date.now() > deadline)
          throw new Error(`BullMQ queues under ${prefix} still busy (${busy} jobs)`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      redis.disconnect();
    }
  };

  await start();
  return { port, url, kill, start, waitForQueues };
}
