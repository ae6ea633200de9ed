import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** An event's data, as the tests read it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read the payloads' fields freely
export type EventData = Record<string, any>;

/** One request the receiver took, its signature checked with the Standard Webhooks verifier. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  body: { id: string; type: string; created_at: string; data: EventData };
  /** Whether the signature verified with the secret given to the receiver (null: no secret yet). */
  verified: boolean | null;
  status: number;
}

/**
 * A real HTTP endpoint for webhooks under test, on 127.0.0.1: it verifies every request's
 * signature with the `standardwebhooks` package (against each secret it holds) and answers with
 * the status `answer` gives for the request's index (default 204).
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  secrets: string[] = [];
  answer: (index: number, body: Received['body']) => number = () => 204;
  /** How long each POST waits before its answer (a slow receiver). */
  delayMs = 0;
  /** How many POSTs it has answered (with `delayMs`, fewer than it received). */
  answered = 0;
  private server?: http.Server;
  /** Answers held back by `delayMs`, cleared at close so that none keeps the process up. */
  private readonly held = new Set<NodeJS.Timeout>();

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      // Anything but a POST is a page (what a crawler of the test's links reads).
      if (req.method !== 'POST') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><head><title>page</title></head></html>');
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const body = JSON.parse(raw) as Received['body'];
        const verified =
          this.secrets.length === 0
            ? null
            : this.secrets.some((secret) => {
                try {
                  new Webhook(secret).verify(raw, req.headers as Record<string, string>);
                  return true;
                } catch {
                  return false;
                }
              });
        const status = this.answer(this.received.length, body);
        this.received.push({ headers: req.headers, body, verified, status });
        const respond = () => {
          this.answered += 1;
          res.writeHead(status, { 'content-type': 'text/plain' });
          res.end(status >= 300 ? 'no thanks' : 'ok');
        };
        if (this.delayMs > 0) {
          const timer = setTimeout(() => {
            this.held.delete(timer);
            respond();
          }, this.delayMs);
          this.held.add(timer);
        } else {
          respond();
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** A page on the receiver's server, for links to point at. */
  page(path: string): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}${path}`;
  }

  /** The requests of one event type. */
  of(type: string): Received[] {
    return this.received.filter((r) => r.body.type === type);
  }

  async close(): Promise<void> {
    for (const timer of this.held) clearTimeout(timer);
    this.held.clear();
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
