import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as http from 'node:http';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { TestApp } from './app';

const ROOT = path.resolve(__dirname, '../..');

/** Builds dist/ when it is missing or older than the sources (as `npm start` does). */
export function ensureBuild(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/ensure-build.js')], {
    cwd: ROOT,
    stdio: 'ignore',
  });
}

/** The built service (dist/main.js) in a child process, as `npm start` runs it. */
export interface ServiceProcess {
  port: number;
  /** Signals the process and resolves once it has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** What it wrote to stdout and stderr. */
  output(): string;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts the built service on a test app's database and Redis prefix with its own DATA_DIR (`env`
 * overrides: an empty REDIS_URL runs jobs in-process); resolves once /health answers.
 */
export async function startServiceProcess(
  t: TestApp,
  dataDir: string,
  env: Record<string, string> = {},
): Promise<ServiceProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    ['--max-semi-space-size=32', 'dist/main.js'],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        DATABASE_URL: t.config.databaseUrl ?? '',
        REDIS_URL: t.config.redisUrl ?? '',
        REDIS_PREFIX: t.config.redisPrefix,
        DATA_DIR: dataDir,
        DEFAULT_DOMAIN: t.config.defaultDomain,
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
        BOOTSTRAP_SUBSCRIPTION_KEY: t.subscriptionKey,
        BOOTSTRAP_APPLICATION_KEY: t.applicationKey,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited (${child.exitCode}): ${output}`);
    if ((await get(port, '/health', {}).catch(() => 0)) === 200) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not start: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
    output: () => output,
  };
}

/** One GET; resolves with the status code. */
export function get(
  port: number,
  urlPath: string,
  headers: Record<string, string>,
  agent?: http.Agent,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}
