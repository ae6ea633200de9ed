import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { loadConfig } from '../../src/config/app-config';
import { openDataSource } from '../../src/database/data-source';
import { freePort } from './redis-server';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of the test's own (initdb into a temporary folder, on a free loopback port)
 * that it may stop and start: the machine's shared server, which other test files use, is never
 * touched. Run as root (as CI's container does), the server runs as the `postgres` OS user.
 */
export interface PrivatePostgres {
  port: number;
  /** The URL of one of its databases (user postgres, trust authentication). */
  url(database: string): string;
  /** Creates a database and applies the migrations, as the test template is made. */
  createMigratedDatabase(name: string): Promise<void>;
  /** pg_ctl start, waiting until it accepts connections. */
  start(): Promise<void>;
  /** pg_ctl stop -m fast: open sessions are terminated (57P01), new connections refused. */
  stop(): Promise<void>;
  /** Stops the server if it runs and deletes its folder. */
  close(): Promise<void>;
}

/** The newest server binaries of the machine (SVC_TEST_PG_BIN names another folder). */
function binDir(): string {
  if (process.env.SVC_TEST_PG_BIN) return process.env.SVC_TEST_PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(path.join(root, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error(`no PostgreSQL server binaries under ${root}`);
  return path.join(root, versions[0], 'bin');
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const asRoot = userInfo().uid === 0;
  // PostgreSQL refuses to run as root: the folder and the server belong to `postgres` then.
  const command = (tool: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args])
      : run(path.join(bin, tool), args);
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-private-pg-'));
  if (asRoot) {
    const { stdout: uid } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(uid), Number(gid));
  }
  const data = path.join(dir, 'data');
  const port = await freePort();
  const initdb = ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C'];
  await command('initdb', [...initdb, '--no-sync']).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  let running = false;
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const pg: PrivatePostgres = {
    port,
    url,
    async createMigratedDatabase(name) {
      const admin = new Client({ connectionString: url('postgres') });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE "${name}"`);
      } finally {
        await admin.end();
      }
      const config = loadConfig({ DATABASE_URL: url(name), LOG_LEVEL: 'silent' });
      await (await openDataSource(config)).destroy();
    },
    async start() {
      const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c full_page_writes=off`;
      await command('pg_ctl', [
        '-D',
        data,
        '-l',
        path.join(dir, 'server.log'),
        '-w',
        '-t',
        '30',
        '-o',
        options,
        'start',
      ]);
      running = true;
    },
    async stop() {
      await command('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
      running = false;
    },
    async close() {
      if (running) await pg.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await pg.start();
  } catch (error) {
    await pg.close();
    throw error;
  }
  return pg;
}
