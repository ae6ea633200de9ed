import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as http from 'node:http';
import * as path from 'node:path';
import { TestApp } from './app';
import { eventually } from './eventually';
import { freePort } from './redis-server';

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
    ['--max-semi-space-size=32', '--expose-gc', 'dist/main.js'],
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
  const started = await eventually(
    'the service answering /health',
    async () => {
      if (child.exitCode !== null) return 'exited';
      return (await get(port, '/health', {}).catch(() => 0)) === 200 && 'up';
    },
    30_000,
  ).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw new Error(`service did not start: ${output}`, { cause: error });
  });
  if (started === 'exited') throw new Error(`service exited (${child.exitCode}): ${output}`);
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

/**
 * Runs a query on the embedded analytics store a stopped service left in `dataDir` (DATA_DIR/chdb,
 * database svc), in a process of its own: chDB serves one folder per process, and the test's own
 * apps hold theirs.
 */
export function queryStoppedStore<T>(
  dataDir: string,
  sql: string,
  params: Record<string, unknown> = {},
): T[] {
  const script = `
    const { openAnalyticsClient } = require(${JSON.stringify(path.join(ROOT, 'dist/analytics/analytics-client.js'))});
    (async () => {
      const store = await openAnalyticsClient({ url: null, embeddedDir: process.argv[1], database: 'svc' });
      const rows = await store.query(process.argv[2], JSON.parse(process.argv[3]));
      await store.close();
      process.stdout.write(JSON.stringify(rows));
    })().catch((error) => { process.stderr.write(String(error)); process.exit(1); });`;
  const out = execFileSync(
    process.execPath,
    ['-e', script, path.join(dataDir, 'chdb'), sql, JSON.stringify(params)],
    {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return JSON.parse(out.toString()) as T[];
}

/** GETs a JSON answer of a running service. */
export function servedJson<T>(port: number, urlPath: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: urlPath }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(JSON.parse(text) as T));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/**
 * A link's clicks as a running service counts them (link details, from the raw clicks), bots apart,
 * and the project's clicks in range's totals (from the hourly projection).
 */
export async function servedCounts(
  port: number,
  key: string,
  svcId: string,
): Promise<{ clicks: number; bots: number; range: number }> {
  const details = (withBots: boolean) =>
    servedJson<{ clicks: number }>(
      port,
      `/stats/${encodeURIComponent(svcId)}.json?v=3&key=${key}&with_bots=${withBots}`,
    );
  const clicks = (await details(false)).clicks;
  const all = (await details(true)).clicks;
  const range = (
    await servedJson<{ totals: { clicks: number } }>(port, `/stats/range.json?v=3&key=${key}`)
  ).totals.clicks;
  return { clicks, bots: all - clicks, range };
}
