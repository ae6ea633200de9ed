import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import Redis from 'ioredis';
import { waitForBullQueues } from './bull-queues';
import { eventually } from './eventually';

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
  /** Waits until no BullMQ job under `prefix` is waiting, delayed or active. */
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
    const started = await eventually(
      `redis-server on port ${port}`,
      async () => {
        if (proc.exitCode !== null) return 'exited';
        const probe = new Redis(url, {
          lazyConnect: true,
          maxRetriesPerRequest: 0,
          retryStrategy: () => null,
        });
        probe.on('error', () => undefined);
        try {
          await Promise.race([probe.connect().then(() => probe.ping()), exited]);
          return 'up';
        } finally {
          probe.disconnect();
        }
      },
      5000,
    );
    if (started === 'exited') await exited;
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

  const waitForQueues = (prefix: string, timeoutMs = 15_000): Promise<void> =>
    waitForBullQueues(url, prefix, timeoutMs);

  await start();
  return { port, url, kill, start, waitForQueues };
}
