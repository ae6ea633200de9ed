import * as http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TestApp, createTestApp } from '../support/app';
import { BROWSER } from '../support/clicks';
import { eventually } from '../support/eventually';
import { ServiceProcess, ensureBuild, get, startServiceProcess } from '../support/service-process';
import { WebhookReceiver } from '../support/webhook-receiver';
import { createProject } from '../factories/projects';

/**
 * A worker killed with SIGKILL in the middle of webhook deliveries (docs/api.md, "Webhooks and
 * live events": at least once): after a restart on the same DATA_DIR, every answered redirect's
 * link.clicked event reaches the receiver at least once. Each request carries its own referring
 * host, which its event names, so the events can be matched to the requests.
 */

jest.setTimeout(150_000);

const REQUESTS = 300;
const CONNECTIONS = 8;
/**
 * The receiver takes this long per request: when the process dies, its clicks are long stored (the
 * click journal has nothing to replay) and most of their events wait in the webhooks queue.
 */
const RECEIVER_DELAY_MS = 3000;

describe.each([
  ['BullMQ on Redis', {}],
  ['in-process jobs (durable webhooks queue)', { REDIS_URL: '' }],
])('SIGKILL during webhook deliveries (%s)', (_label, env: Record<string, string>) => {
  let t: TestApp;
  let key: string;
  let dataDir: string;
  const receiver = new WebhookReceiver();
  let url: string;

  beforeAll(async () => {
    ensureBuild();
    url = await receiver.start();
    // Owns the database and the Redis prefix; runs no workers, so the processes under test do.
    t = await createTestApp({ env: { ROLE: 'api' } });
    key = (await createProject(t)).api_key;
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-webhooks-crash-'));
  }, 180_000);
  afterAll(async () => {
    await t.close();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers every answered click at least once after a restart', async () => {
    const serviceEnv = { ...env, WEBHOOK_ALLOW_LOOPBACK: 'true' };
    const first = await startServiceProcess(t, dataDir, serviceEnv);
    let second: ServiceProcess | undefined;
    try {
      const link = await post<{ svc_id: string; path: string }>(first, '/url.json', {
        v: '3',
        key,
        tool: 't',
        channel: 'twitter',
        url: 'https://example.com/crash',
      });
      const made = await post<{ response: { webhook: { secret: string } } }>(
        first,
        '/webhooks/new',
        {
          subscription_key: t.subscriptionKey,
          application_key: t.applicationKey,
          json: JSON.stringify({ project: key, url, events: ['link.clicked'] }),
        },
      );
      receiver.secrets = [made.response.webhook.secret];
      receiver.answer = () => 204;
      const slow = receiver.delayMs;
      receiver.delayMs = RECEIVER_DELAY_MS;

      const answered = await redirects(first, link.path);
      expect(answered.size).toBe(REQUESTS);
      // Some events delivered, the rest queued or in flight: then the crash. The test fails here
      // when the deliveries never started, or had all arrived before the crash.
      await eventually(
        'deliveries answered before the crash',
        () => receiver.answered >= 20,
        30_000,
      );
      expect(receiver.received.length).toBeLessThan(REQUESTS);
      await first.kill('SIGKILL');
      receiver.delayMs = slow;

      second = await startServiceProcess(t, dataDir, serviceEnv);
      const hosts = () =>
        new Set(receiver.received.map((r) => String(r.body.data.click?.referrer_host)));
      // A job the killed worker held is taken up again once its lock lapses (10 s).
      await eventually(
        'every answered click delivered after the restart',
        () => expect([...answered].filter((n) => !hosts().has(`r${n}.load.test`))).toEqual([]),
        90_000,
      );
      expect(receiver.received.every((r) => r.verified === true)).toBe(true);
      const ids = new Set(receiver.received.map((r) => r.body.id));
      process.stdout.write(
        `webhooks SIGKILL (${_label}): ${answered.size} clicks, ${ids.size} events delivered, ` +
          `${receiver.received.length - ids.size} deliveries again after the restart\n`,
      );
      expect(ids.size).toBe(REQUESTS);
    } finally {
      await first.kill('SIGKILL');
      await second?.kill('SIGTERM');
    }
  });

  /** REQUESTS redirects, each with its own referring host, CONNECTIONS at a time. */
  async function redirects(service: ServiceProcess, linkPath: string): Promise<Set<number>> {
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const answered = new Set<number>();
    let next = 0;
    const loop = async (): Promise<void> => {
      while (next < REQUESTS) {
        const n = next++;
        const headers = {
          Host: 'svc.test',
          'User-Agent': BROWSER,
          Referer: `http://r${n}.load.test/`,
        };
        if ((await get(service.port, `/${linkPath}`, headers, agent)) === 302) answered.add(n);
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, loop));
    agent.destroy();
    return answered;
  }
});

async function post<T>(
  service: ServiceProcess,
  route: string,
  form: Record<string, string>,
): Promise<T> {
  const body = new URLSearchParams(form).toString();
  return new Promise<T>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: service.port,
        method: 'POST',
        path: route,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) reject(new Error(`${route}: ${res.statusCode} ${text}`));
          else resolve(JSON.parse(text) as T);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
