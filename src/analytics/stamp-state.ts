import { AnalyticsClient } from './analytics-client';

/**
 * Writes that ended and may have changed a project's stamp state: whether it has updated links
 * (`link_updates`) or events without a stamp (docs/architecture.md, "How a statistic flows").
 * Counted per process, not per client: the embedded engine is one process's (chDB locks its
 * folder), and every client of the process on it writes the same store (test apps share it).
 */
let writes = 0;

/**
 * How many writes that may have changed a stamp state have ended, when this process is the only
 * writer of the store (embedded): a stamp state read while this count stayed the same is still the
 * store's. Null for a server, which other processes write too.
 */
export function stampStateWrites(store: AnalyticsClient): number | null {
  return store.soleWriter ? writes : null;
}

/**
 * Waits for `write`, a write to `store` that may change a stamp state, and counts it once it has
 * ended, whether it went in or not (a failed insert may have written a part). The writers say which
 * writes those are: every command (DDL, DELETE, mutations, INSERT … SELECT), every insert into
 * `link_updates`, and every insert of clicks or conversions of which any is unstamped.
 */
export async function countStampStateWrite<T>(
  store: AnalyticsClient,
  write: Promise<T>,
): Promise<T> {
  try {
    return await write;
  } finally {
    if (store.soleWriter) writes++;
  }
}
