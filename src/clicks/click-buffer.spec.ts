import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AppConfig } from '../config/app-config';
import { JobQueue } from '../queue/job-queue';
import { ClickBuffer, FLUSH_INTERVAL_MS, FLUSH_SIZE } from './click-buffer';
import { ClickEvent, PackedClicks, clickId, nextClickSequence } from './click-event';
import { ClickJournal, readJournal } from './click-journal';
import { ClickRecorder } from './click-recorder';
import { ClickSpool } from './click-spool';

/** A queue whose hand-over takes `latencyMs`, recording each job's size and when it was added. */
function slowQueue(latencyMs: number) {
  const jobs: { size: number; at: number }[] = [];
  const queue = {
    add: async (_queue: string, _name: string, data: PackedClicks) => {
      await new Promise((resolve) => setTimeout(resolve, latencyMs));
      jobs.push({ size: data.at.length, at: Date.now() });
      return { stored: Promise.resolve(true) };
    },
    addAndWait: () => Promise.reject(new Error('not used')),
    drain: () => Promise.resolve(),
  } as unknown as JobQueue;
  return { queue, jobs };
}

/**
 * The click chain as ClicksModule wires it, from the redirects to the queue: ClickRecorder →
 * ClickJournal → ClickBuffer → `queue`. `size` is the buffer's, `journaled` the journal's clicks
 * not yet released.
 */
function buffer(queue: JobQueue, dataDir = mkdtempSync(path.join(tmpdir(), 'svc-buffer-'))) {
  const clicks = new ClickBuffer(queue, new ClickSpool({ dataDir } as AppConfig));
  const journal = new ClickJournal(path.join(dataDir, 'journal'), clicks);
  const recorder = new ClickRecorder(journal);
  return {
    push: (click: ClickEvent, answer?: () => void) => recorder.push(click, answer),
    flush: () => recorder.flush(),
    beforeApplicationShutdown: () => recorder.beforeApplicationShutdown(),
    get size() {
      return clicks.size;
    },
    get journaled() {
      return journal.unreleased;
    },
  };
}

function push(
  target: ReturnType<typeof buffer>,
  count: number,
  answer?: (click: ClickEvent) => void,
): ClickEvent[] {
  const pushed: ClickEvent[] = [];
  for (let i = 0; i < count; i++) {
    const now = Date.now();
    const click: ClickEvent = {
      id: nextClickSequence(),
      linkId: '1',
      projectId: '00000000-0000-0000-0000-000000000001',
      clickedAt: now,
      referrer: null,
      userAgent: null,
      ip: null,
      isBot: false,
    };
    target.push(click, answer && (() => answer(click)));
    pushed.push(click);
  }
  return pushed;
}

/**
 * Jest's clock (timers and Date), so each hand-over's time is exact whatever the machine's load;
 * setImmediate stays real for the journal's end of turn.
 */
const useJestClock = () =>
  jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);

/** `work`'s result once Jest's clock has moved `ms` on (the hand-overs it waits for run meanwhile). */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  await advance(ms);
  return work;
}

describe('ClickBuffer batching', () => {
  beforeEach(useJestClock);
  afterEach(() => jest.useRealTimers());

  it('does not send the clicks that came in during a hand-over as a small job of their own', async () => {
    const { queue, jobs } = slowQueue(20);
    const clicks = buffer(queue);
    push(clicks, FLUSH_SIZE);
    push(clicks, 100);
    await advance(40);
    // The first batch went; the 100 that arrived meanwhile wait for a full batch or their interval.
    expect(jobs.map((j) => j.size)).toEqual([FLUSH_SIZE]);
    expect(clicks.size).toBe(100);
    push(clicks, FLUSH_SIZE - 100);
    await advance(40);
    expect(jobs.map((j) => j.size)).toEqual([FLUSH_SIZE, FLUSH_SIZE]);
    expect(clicks.size).toBe(0);
    await clicks.beforeApplicationShutdown();
  });

  it('sends a partial batch once its oldest click has waited the interval', async () => {
    const { queue, jobs } = slowQueue(1);
    const clicks = buffer(queue);
    const started = Date.now();
    push(clicks, 10);
    await advance(FLUSH_INTERVAL_MS / 2);
    push(clicks, 5);
    await advance(FLUSH_INTERVAL_MS / 2 - 1);
    expect(jobs).toEqual([]);
    await advance(2);
    expect(jobs.map((j) => j.size)).toEqual([15]);
    // The interval, then the 1 ms hand-over: counted from the oldest click, not from the latest.
    expect(jobs[0].at - started).toBe(FLUSH_INTERVAL_MS + 1);
    await clicks.beforeApplicationShutdown();
  });

  it('leaves the interval counted from the oldest click left behind by a full batch', async () => {
    const { queue, jobs } = slowQueue(30);
    const clicks = buffer(queue);
    push(clicks, FLUSH_SIZE);
    push(clicks, 7);
    const leftAt = Date.now();
    await advance(FLUSH_INTERVAL_MS + 29);
    expect(jobs.map((j) => j.size)).toEqual([FLUSH_SIZE]);
    await advance(1);
    expect(jobs.map((j) => j.size)).toEqual([FLUSH_SIZE, 7]);
    // The full batch's 30 ms hand-over, then the 7 clicks' after the interval from their arrival
    // (not from the end of the first hand-over, which would be 30 ms later).
    expect(jobs[0].at - leftAt).toBe(30);
    expect(jobs[1].at - leftAt).toBe(FLUSH_INTERVAL_MS + 30);
    await clicks.beforeApplicationShutdown();
  });

  it('flush() and shutdown send everything, partial batches included', async () => {
    const { queue, jobs } = slowQueue(5);
    const clicks = buffer(queue);
    push(clicks, FLUSH_SIZE + 250);
    // A full batch is already on its way: flush() waits for it and sends the rest too.
    await within(10, clicks.flush());
    expect(jobs.map((j) => j.size)).toEqual([FLUSH_SIZE, 250]);
    push(clicks, 3);
    await within(5, clicks.beforeApplicationShutdown());
    expect(jobs.map((j) => j.size)).toEqual([FLUSH_SIZE, 250, 3]);
    expect(clicks.size).toBe(0);
  });
});

describe('ClickBuffer journal', () => {
  afterEach(() => jest.useRealTimers());
  /** The clicks in DATA_DIR/journal. */
  const journaled = (dataDir: string) =>
    readdirSync(path.join(dataDir, 'journal')).flatMap(
      (f) => readJournal(readFileSync(path.join(dataDir, 'journal', f), 'utf8')).clicks,
    );

  it('answers each redirect only once its click is in the journal, one write per event-loop turn', async () => {
    const { queue } = slowQueue(1);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-buffer-'));
    const clicks = buffer(queue, dataDir);
    const seen: { id: string; journaled: string[] }[] = [];
    const answer = (click: ClickEvent) =>
      seen.push({ id: clickId(click), journaled: journaled(dataDir).map((c) => String(c.id)) });
    const turn = push(clicks, 3, answer);
    // Not answered within the turn that recorded them.
    expect(seen).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    const ids = turn.map(clickId);
    expect(seen).toEqual(ids.map((id) => ({ id, journaled: ids })));
    const [segment] = readdirSync(path.join(dataDir, 'journal'));
    expect(readFileSync(path.join(dataDir, 'journal', segment), 'utf8').split('\n')).toHaveLength(
      2,
    );
    await clicks.beforeApplicationShutdown();
  });

  it('releases clicks from the journal once the queue holds them, and leaves none at shutdown', async () => {
    useJestClock();
    const { queue, jobs } = slowQueue(5);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-buffer-'));
    const clicks = buffer(queue, dataDir);
    push(clicks, FLUSH_SIZE + 20);
    await new Promise((resolve) => setImmediate(resolve));
    expect(clicks.journaled).toBe(FLUSH_SIZE + 20);
    await advance(5);
    // The full batch is in the queue; the 20 left wait for their interval.
    expect(jobs.map((j) => j.size)).toEqual([FLUSH_SIZE]);
    expect(clicks.journaled).toBe(20);
    await within(5, clicks.beforeApplicationShutdown());
    expect(clicks.journaled).toBe(0);
    expect(readdirSync(path.join(dataDir, 'journal'))).toEqual([]);
  });
});
