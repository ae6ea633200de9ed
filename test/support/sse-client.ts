/** A Server-Sent Events client for the live feed's e2e tests (docs/api.md, "Live feed"). */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { eventually } from './eventually';

/** One block of a stream: an event's fields, or a comment. */
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** A stream as a client reads it: the raw text, and its messages parsed as they arrive. */
export class SseClient {
  raw = '';
  readonly messages: SseMessage[] = [];
  ended = false;
  private pending = '';

  constructor(
    readonly res: http.IncomingMessage,
    private readonly req: http.ClientRequest,
  ) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.raw += chunk;
      this.pending += chunk;
      let end: number;
      while ((end = this.pending.indexOf('\n\n')) !== -1) {
        this.messages.push(parseBlock(this.pending.slice(0, end)));
        this.pending = this.pending.slice(end + 2);
      }
    });
    res.on('close', () => {
      this.ended = true;
    });
  }

  /** The messages that are not comments. */
  get events(): SseMessage[] {
    return this.messages.filter((message) => message.comment === undefined);
  }

  /** The raw text without its heartbeat comments. */
  get framed(): string {
    return this.raw.replaceAll(': heartbeat\n\n', '');
  }

  /** Waits until `done` holds of the stream; at the deadline, fails with what came so far. */
  async until(done: (client: SseClient) => boolean, what: string): Promise<void> {
    await eventually(
      `stream: ${what}`,
      () => {
        if (!done(this)) throw new Error(`got ${JSON.stringify(this.raw)}`);
      },
      10_000,
    );
  }

  close(): void {
    this.req.destroy();
  }
}

function parseBlock(block: string): SseMessage {
  const message: SseMessage = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      message.comment = line.slice(1).trim();
      continue;
    }
    const colon = line.indexOf(':');
    const field = line.slice(0, colon) as 'id' | 'event' | 'data';
    message[field] = line.slice(colon + 1).replace(/^ /, '');
  }
  return message;
}

/** An answer that is not a stream: its status and JSON body. */
export interface Refusal {
  status: number;
  body: unknown;
}

/** GET /events/stream on a listening app; a stream once its headers arrive, else the refusal. */
export function openStream(
  app: NestExpressApplication,
  query: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<SseClient | Refusal> {
  const { port } = app.getHttpServer().address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/events/stream?${new URLSearchParams(query).toString()}`;
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      if (res.statusCode === 200) {
        resolve(new SseClient(res, req));
        return;
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
    });
    req.on('error', reject);
  });
}

export async function stream(
  app: NestExpressApplication,
  query: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<SseClient> {
  const opened = await openStream(app, query, headers);
  if (!(opened instanceof SseClient)) {
    throw new Error(`the stream answered ${opened.status}: ${JSON.stringify(opened.body)}`);
  }
  return opened;
}
