/** Where the tests find this machine's PostgreSQL and Redis (CI sets nothing: the defaults hold). */
export const TEST_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Each jest run migrates its own template (named in SVC_TEST_TEMPLATE by the global setup), so
 * concurrent runs on one machine never drop each other's databases.
 */
export function templateDatabase(): string {
  const name = process.env.SVC_TEST_TEMPLATE;
  if (!name)
    throw new Error(
      'SVC_TEST_TEMPLATE is unset: run the tests through jest (test/support/global-setup.ts)',
    );
  return name;
}

/** Test database names carry their creation time (seconds) so stale ones can be told apart. */
export function stampedName(kind: 'tpl' | 't', suffix: string): string {
  return `svc_${kind}_${Math.floor(Date.now() / 1000)}_${suffix}`;
}

/** The URL of another database on the same server. */
export function databaseUrl(name: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}
