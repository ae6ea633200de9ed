/**
 * The one way a test waits for something to happen: retries `check` until it passes, and returns
 * what it returned. A check passes when it returns without throwing and its value is not `false`,
 * so it may be a condition (`() => rows.length === 2`), a set of expectations (`() => expect(...)`),
 * a read that throws until its answer is right, or a search (`() => rows.find(...) ?? false`). At the deadline the test fails naming `what`
 * and the last error thrown or value seen.
 */
export async function eventually<T>(
  what: string,
  check: () => T | Promise<T>,
  deadlineMs = 15_000,
): Promise<Exclude<T, false>> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    let last: string;
    let cause: unknown;
    try {
      const value = await check();
      if (value !== false) return value as Exclude<T, false>;
      last = 'the check was still false';
    } catch (error) {
      cause = error;
      last = `its last error: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what} did not happen within ${deadlineMs} ms; ${last}`, { cause });
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
