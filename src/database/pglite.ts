import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGliteDriver } from 'typeorm-pglite';
import { PGlitePool } from 'typeorm-pglite/dist/pglite-pool';
import { PGliteInstance } from 'typeorm-pglite/dist/pglite-instance';

type ConnectCallback = (err: Error | null, client: PGlitePool | null, release: () => void) => void;

/**
 * PGlite is one single-session database. typeorm-pglite hands every query runner the same
 * session, so two concurrent transactions would interleave inside one BEGIN. This pool gives the
 * session to one query runner at a time (a FIFO turn), which is exactly what PGlite can do anyway.
 * Code inside a transaction must use its EntityManager, never the DataSource, or it waits for itself.
 */
class SerialPGlitePool extends PGlitePool {
  private tail: Promise<void> = Promise.resolve();

  override async connect(callback: ConnectCallback): Promise<void> {
    let free!: () => void;
    const turn = new Promise<void>((resolve) => (free = resolve));
    const previous = this.tail;
    this.tail = previous.then(() => turn);
    await previous;
    let released = false;
    try {
      await (cluster ??= createCluster(dataDirOf()));
      await PGliteInstance.getInstance();
    } catch (error) {
      free();
      callback(error as Error, null, () => undefined);
      return;
    }
    callback(null, this, () => {
      if (!released) {
        released = true;
        free();
      }
    });
  }
}

/**
 * PostgreSQL's shared buffers inside PGlite's WebAssembly memory (initdb writes 128 MB): PGlite
 * touches them all when it starts, so they count in full in the process's resident memory. The
 * embedded database is small and its files stay in the OS page cache.
 */
const SHARED_BUFFERS = '16MB';

const START_PARAMS = [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`];

/** The folder of the DataSource last made by pgliteDriver (one PGlite per process). */
let currentDataDir: string | null = null;
let cluster: Promise<void> | null = null;

function dataDirOf(): string {
  if (currentDataDir === null) throw new Error('pgliteDriver() was not called');
  return currentDataDir;
}

/**
 * Creates the database cluster in `dataDir` when it has none, in a child process: PGlite's initdb
 * (a second WebAssembly instance and a copy of the whole cluster) leaves memory this process
 * would keep until a garbage collection that an idle process never runs, and part of it for good
 * (freed memory the allocator keeps). The process then opens the folder as on any later start.
 */
function createCluster(dataDir: string): Promise<void> {
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) return Promise.resolve();
  const script =
    'const [module, dataDir, params] = process.argv.slice(1);' +
    'require(module).PGlite.create({ dataDir, startParams: JSON.parse(params) })' +
    '.then((pg) => pg.close()).then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });';
  const args = [
    '-e',
    script,
    require.resolve('@electric-sql/pglite'),
    dataDir,
    JSON.stringify(START_PARAMS),
  ];
  return new Promise<void>((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 1 << 20 }, (error, _stdout, stderr) => {
      if (error) {
        cluster = null; // a later connection tries again
        reject(
          new Error(
            `PGlite could not create its database in ${dataDir}: ${stderr.trim() || error.message}`,
          ),
        );
      } else resolve();
    });
  });
}

/** The `driver` option of a TypeORM postgres DataSource that runs on PGlite persisted in dataDir. */
export function pgliteDriver(dataDir: string): unknown {
  mkdirSync(dataDir, { recursive: true });
  if (dataDir !== currentDataDir) cluster = null;
  currentDataDir = dataDir;
  new PGliteDriver({ dataDir, startParams: START_PARAMS });
  return { Pool: SerialPGlitePool };
}
