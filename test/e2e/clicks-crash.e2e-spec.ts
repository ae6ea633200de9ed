import * as http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TestApp, createTestApp } from '../support/app';
import { BROWSER, ClickCounts, clickCounts, linkRow } from '../support/clicks';
import { ServiceProcess, ensureBuild, get, startServiceProcess } from '../support/service-process';
import { createLink } from '../factories/links';
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

jest.setTimeout(120_000);

interface LoadResult {
  /** Requests answered with a 302, by number. */
  answered: Set<number>;
  /** Requests sent but not answered when the process died (the service may or may not have counted them). */
  unanswered: Set<number>;
}

/**
 * Keeps CONNECTIONS keep-alive connections busy with redirects until `kill` has run, which it calls
 * after LOAD_MS; every request is answered or fails once the process is gone.
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
  try {
    await Promise.race([loops, new Promise((resolve) => setTimeout(resolve, LOAD_MS))]);
  } finally {
    // Requests in flight now are answered or fail with the connection.
    killing = true;
    await kill();
  }
  await loops;
  agent.destroy();
  return { answered, unanswered };
}

/** A link's counts once its rollups have stopped growing for 2 s (or after 30 s). */
async function settledCounts(t: TestApp, svcId: string): Promise<ClickCounts & { raw: number }> {
  const deadline = Date.now() + 30_000;
  let counts = (await clickCounts(t.db, [svcId]))[svcId];
  let quietSince = Date.now();
  while (Date.now() - quietSince < 2000 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = (await clickCounts(t.db, [svcId]))[svcId];
    if (now.clicks !== counts.clicks) quietSince = Date.now();
    counts = now;
  }
  return counts;
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
    const link = await createLink(t, key);
    const { linkId } = await linkRow(t, link.svc_id);
    const first = await startServiceProcess(t, dataDir, env);
    const { answered, unanswered } = await loadAndKill(first, link.path, () =>
      first.kill(signal as NodeJS.Signals),
    );
    expect(answered.size).toBeGreaterThan(1000);

    const second = await startServiceProcess(t, dataDir, env);
    let counts: ClickCounts & { raw: number };
    try {
      counts = await settledCounts(t, link.svc_id);
    } finally {
      await second.kill('SIGTERM');
    }
    const { rows } = await t.db.query<{ referrer: string; n: number }>(
      `SELECT referrer, COUNT(*)::int AS n FROM clicks WHERE link_id = $1 GROUP BY referrer`,
      [linkId],
    );
    const stored = new Map(
      rows.map((r) => [Number(r.referrer.slice('http://load.test/'.length)), r.n]),
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
    // The rollups count each stored click once; the in-flight requests the service had counted are the rest.
    expect(counts).toEqual({ clicks: stored.size, bots: 0, raw: stored.size });
    expect(stored.size - answered.size).toBeLessThanOrEqual(unanswered.size);
  });
});
