import { runCli } from '../../src/cli/cli';
import { TestApp } from './app';

/**
 * `npm run cli -- analytics:backfill` on the test app's stores (its PostgreSQL database and chDB
 * folder), as an operator runs it: the exit code and what it wrote.
 */
export async function runBackfill(
  t: Pick<TestApp, 'config'>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const env = {
    DATABASE_URL: t.config.databaseUrl!,
    CHDB_DIR: t.config.chdbDir,
    CLICKHOUSE_DATABASE: t.config.clickhouseDatabase,
    LOG_LEVEL: 'silent',
  };
  const code = await runCli(
    ['analytics:backfill'],
    { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) },
    { env },
  );
  return { code, stdout, stderr };
}

/** 'ok' for a run that exited 0, else its exit code and what it wrote to stderr (so a failure shows why). */
export function outcome(run: { code: number; stderr: string }): string {
  return run.code === 0 ? 'ok' : `exit ${run.code}: ${run.stderr}`;
}
