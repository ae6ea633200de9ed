import 'reflect-metadata';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { openDataSource } from '../../src/database/data-source';

/**
 * The embedded database's first start (docs/operations.md, "Memory"): PGlite's initdb used to run
 * in this process and leave its second WebAssembly instance and copies of the cluster behind
 * (about 630 MB of external memory against 140 MB when the folder is opened again).
 */
/** A full collection, through V8's `gc` made reachable for this process. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * External memory once what earlier test files of this jest worker left is gone: collections, a
 * pause apart, until it stops falling (an earlier file's embedded database may still be closing,
 * and its WebAssembly memory goes only then).
 */
async function settledExternal(): Promise<number> {
  let last = Infinity;
  for (let i = 0; i < 40; i++) {
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = process.memoryUsage().external;
    if (last - now < 2 ** 20) return now;
    last = now;
  }
  return last;
}

describe('PGlite: the first start', () => {
  let dataDir: string;
  let dataSource: DataSource | null = null;

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-pglite-memory-'));
  });

  afterAll(async () => {
    await dataSource?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates the cluster outside this process and opens it with 16 MB shared buffers', async () => {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    // What earlier test files of this jest worker left for the collector goes before the baseline,
    // so that it cannot come off the difference while the cluster is made.
    const external = await settledExternal();
    dataSource = await openDataSource(config);
    const grown = (process.memoryUsage().external - external) / 2 ** 20;

    expect(existsSync(path.join(config.pgliteDir, 'PG_VERSION'))).toBe(true);
    expect(await dataSource.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
    // One instance's WebAssembly memory (128 MB) and its files, no initdb instance (which made it
    // about 630 MB). The lower bound shows the instance is counted here.
    expect(grown).toBeGreaterThan(64);
    expect(grown).toBeLessThan(200);
  }, 60_000);
});
