import { mkdirSync } from 'node:fs';
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

/** The `driver` option of a TypeORM postgres DataSource that runs on PGlite persisted in dataDir. */
export function pgliteDriver(dataDir: string): unknown {
  mkdirSync(dataDir, { recursive: true });
  new PGliteDriver({ dataDir });
  return { Pool: SerialPGlitePool };
}
