import { Writable } from 'node:stream';

/** The service's log as a test reads it back: what was written so far, and its JSON lines. */
export interface LogCapture {
  /** Give it to createTestApp as `logDestination` (with a LOG_LEVEL in its `env`). */
  destination: Writable;
  text(): string;
  lines(): Record<string, unknown>[];
}

/** A log destination that keeps every line written to it, to check what reaches the log (docs/operations.md, "Secrets in logs"). */
export function logCapture(): LogCapture {
  let text = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return {
    destination,
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
