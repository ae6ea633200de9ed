/**
 * When the two collections run, in ms after listening. V8 shrinks its young generation (up to
 * 64 MB with `--max-semi-space-size=32`, grown by the start's allocations) only in a collection
 * whose allocation samples of the last 5 s are low, and a sample runs from one collection to the
 * next: the first collection closes the start's sample, the second, 6 s later, sees the quiet one
 * and returns the young generation and the start's garbage to the OS. An idle process runs none.
 */
const STARTUP_COLLECTIONS_MS = [5_000, 11_000] as const;

type Collect = (options: { type: 'minor' | 'major'; execution: 'async' }) => Promise<void>;

/** V8's `gc`, on the global object when Node runs with `--expose-gc` (as `npm start` and the image do). */
function exposedGc(): Collect | null {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? (gc as Collect) : null;
}

/**
 * Runs a young-generation collection and then a full one (STARTUP_COLLECTIONS_MS), so the memory
 * the start used (docs/operations.md, "Memory") goes back to the OS when the service is idle. Under
 * traffic they cost two collections, and V8 keeps the space the traffic needs. Without
 * `--expose-gc` nothing is scheduled: V8 then returns that memory at its next collection.
 */
export function collectStartupGarbage(): void {
  const collect = exposedGc();
  if (collect === null) return;
  const [minor, major] = STARTUP_COLLECTIONS_MS;
  setTimeout(() => void collect({ type: 'minor', execution: 'async' }), minor).unref();
  setTimeout(() => void collect({ type: 'major', execution: 'async' }), major).unref();
}
