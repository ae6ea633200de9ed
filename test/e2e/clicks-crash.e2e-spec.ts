import * as http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TestApp, createTestApp } from '../support/app';
import { BROWSER, ClickCounts, linkRow } from '../support/clicks';
import { eventually } from '../support/eventually';
import {
  ServiceProcess,
  ensureBuild,
  get,
  queryStoppedStore,
  servedCounts,
  servedJson,
  startServiceProcess,
} from '../support/service-process';
import { createProject } from '../factories/projects';

/**
 * A crash of the process (SIGKILL: no shutdown hook runs) or a graceful stop (SIGTERM) in the middle
 * of redirect load: after a restart on the same DATA_DIR, every redirect that was answered with a
 * 302 is counted, once. Each request carries its own Referer, so the clicks stored can be matched
 * to the requests.
 */

const CONNECTIONS = 32;
/** Load before the kill: long enough for batches to be in the queue, in the worker and in the buffer. */
const LOAD_MS = 2000;
/**
 * Redirects answered before the kill, at least: the load goes on past LOAD_MS until this many were
 * answered (a loaded machine answers fewer in 2 s), for at most MAX_LOAD_MS.
 */
const MIN_ANSWERED = 1000;
const MAX_LOAD_MS = 20_000;

jest.setTimeout(120_000);

interface LoadResult {
  /** Requests answered with a 302, by number. */
  answered: Set<number>;
  /** Requests sent but not answered when the process died (the service may or may not have counted them). */
  unanswered: Set<number>;
}

/**
 * Keeps CONNECTIONS keep-alive connections busy with redirects until `kill` has run, which it calls
 * after LOAD_MS once MIN_ANSWERED were answered (or after MAX_LOAD_MS); every request is answered or
 * fails once the process is gone.
 */
async function loadAndKill(
  service: ServiceProcess,
  linkPath: string,
  kill: () => Promise<void>,
): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const answered = new Set<number>();
  const unanswered = new Set<number>();
  let next = 0;
  let killing = false;
  const loop = async (): Promise<void> => {
    while (!killing) {
      const n = next++;
      const headers = { Host: 'svc.test', 'User-Agent': BROWSER, Referer: `http://load.test/${n}` };
      try {
        const status = await get(service.port, `/${linkPath}`, headers, agent);
        if (status !== 302) throw new Error(`request ${n}: status ${status}`);
        answered.add(n);
      } catch (error) {
        if (!killing) throw error;
        unanswered.add(n);
      }
    }
  };
  const loops = Promise.all(Array.from({ length: CONNECTIONS }, loop));
  const loaded = async (): Promise<void> => {
    // The load's length is what is tested (batches in the queue, the worker and the buffer at the
    // kill): no state outside the process marks it.
    await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
    await eventually(
      `more than ${MIN_ANSWERED} redirects answered`,
      () => answered.size > MIN_ANSWERED,
      MAX_LOAD_MS - LOAD_MS,
    );
  };
  try {
    await Promise.race([loops, loaded()]);
  } finally {
    // Requests in flight now are answered or fail with the connection.
    killing = true;
    await kill();
  }
  await loops;
  agent.destroy();
  return { answered, unanswered };
}

/**
 * A link's counts as the running service answers them, once they reached `expected` and stopped
 * growing for 2 s (within 45 s: a job the killed worker held is taken up again once its lock
 * lapses).
 */
async function settledCounts(
  service: ServiceProcess,
  key: string,
  svcId: string,
  expected: number,
): Promise<ClickCounts & { range: number }> {
  let counts = await servedCounts(service.port, key, svcId);
  let quietSince = Date.now();
  return eventually(
    `${expected} clicks counted, then no more for 2 s`,
    async () => {
      const now = await servedCounts(service.port, key, svcId);
      if (now.clicks !== counts.clicks) quietSince = Date.now();
      counts = now;
      if (counts.clicks < expected || Date.now() - quietSince < 2000) {
        throw new Error(`counted so far: ${JSON.stringify(counts)}`);
      }
      return counts;
    },
    45_000,
  );
}

describe.each([
  ['SIGKILL', 'BullMQ on Redis', {}],
  ['SIGKILL', 'in-process jobs', { REDIS_URL: '' }],
  ['SIGTERM', 'BullMQ on Redis', {}],
])('%s under redirect load (%s)', (signal, label, env: Record<string, string>) => {
  let t: TestApp;
  let key: string;
  let dataDir: string;
  beforeAll(async () => {
    ensureBuild();
    // Owns the database and the Redis prefix; runs no workers, so the processes under test do.
    t = await createTestApp({ env: { ROLE: 'api' } });
    key = (await createProject(t)).api_key;
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-crash-'));
  }, 180_000);
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts every answered redirect exactly once after a restart', async () => {
    const first = await startServiceProcess(t, dataDir, env);
    // Made through the service under test, so its own analytics store mirrors the link.
    const link = await servedJson<{ svc_id: string; path: string }>(
      first.port,
      `/url.json?v=3&key=${key}&tool=t&channel=twitter&url=${encodeURIComponent('https://example.com/crash')}`,
    );
    const { linkId } = await linkRow(t, link.svc_id);
    const { answered, unanswered } = await loadAndKill(first, link.path, () =>
      first.kill(signal as NodeJS.Signals),
    );
    expect(answered.size).toBeGreaterThan(MIN_ANSWERED);

    const second = await startServiceProcess(t, dataDir, env);
    let counts: ClickCounts & { range: number };
    try {
      counts = await settledCounts(second, key, link.svc_id, answered.size);
    } finally {
      await second.kill('SIGTERM');
    }
    // The raw clicks the service stored in its analytics store, by request (Referer).
    const rows = queryStoppedStore<{ referrer: string; n: string }>(
      dataDir,
      'SELECT referrer, count() AS n FROM svc.clicks WHERE link_id = {link:UInt64} GROUP BY referrer',
      { link: Number(linkId) },
    );
    const stored = new Map(
      rows.map((r) => [Number(r.referrer.slice('http://load.test/'.length)), Number(r.n)]),
    );
    const missing = [...answered].filter((n) => !stored.has(n));
    const twice = [...stored].filter(([, n]) => n > 1).map(([request]) => request);
    const unknown = [...stored.keys()].filter((n) => !answered.has(n) && !unanswered.has(n));
    process.stdout.write(
      `${signal} under load (${label}): ${answered.size} redirects answered, ${unanswered.size} in flight at the kill; ` +
        `${counts.clicks} clicks counted after the restart, ${missing.length} answered ones missing\n`,
    );
    expect({ missing: missing.length, twice, unknown }).toEqual({
      missing: 0,
      twice: [],
      unknown: [],
    });
    // The statistics count each stored click once; the in-flight requests the service had counted are the rest.
    // (range reads the hourly projection of the same clicks: the project has this one link.)
    expect(counts).toEqual({ clicks: stored.size, bots: 0, range: stored.size });
    expect(stored.size - answered.size).toBeLessThanOrEqual(unanswered.size);
  });
});
