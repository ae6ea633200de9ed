import { lookup as dnsLookup } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { isAllowedAddress } from '../crawler/url-guard';

/** The outcome of one delivery attempt (docs/api.md, "Webhooks and live events (extension)"). */
export interface DeliveryResult {
  /** The answer's status; null when there was no answer (see `error`). */
  statusCode: number | null;
  durationMs: number;
  /** The first 1,024 bytes of the answer's body, as UTF-8; the rest is not downloaded. */
  response: string;
  /**
   * Null on any HTTP answer (whatever its status); otherwise why there was none: 'timeout',
   * 'forbidden_address', 'dns', 'invalid_url' or 'network: <code>'.
   */
  error: string | null;
}

/** Bytes of the answer kept for the delivery log (docs/api.md: "first 1 KB of the answer"). */
const RESPONSE_BYTES = 1024;

/**
 * Connections per receiver: enough for one worker to deliver thousands of events per second to
 * one receiver over keep-alive connections (docs/api.md, "Webhooks and live events (extension)").
 */
const MAX_SOCKETS_PER_ORIGIN = 64;

/** Why the agents' lookup refused a host; carried to the request's 'error' event. */
class LookupRefused extends Error {
  constructor(readonly reason: 'forbidden_address' | 'dns') {
    super(reason);
  }
}

/**
 * Posts webhook deliveries. SSRF-safe like the crawler (src/crawler/crawler.ts): every address a
 * host resolves to must pass the guard, and the connection goes only to those checked addresses
 * (the agents' lookup resolves and checks in one step, so DNS cannot change between check and
 * connect). Connections are kept alive and shared across deliveries; redirects are not followed
 * (a 3xx is an answer like any other non-2xx). Never throws and logs nothing: the body and its
 * signature stay out of logs.
 */
export class WebhookSender {
  private readonly agents: { 'http:': http.Agent; 'https:': https.Agent };

  constructor(private readonly options: { timeoutMs: number; allowLoopback: boolean }) {
    const agentOptions = {
      keepAlive: true,
      maxSockets: MAX_SOCKETS_PER_ORIGIN,
      lookup: guardedLookup(options.allowLoopback),
    };
    this.agents = {
      'http:': new http.Agent(agentOptions),
      'https:': new https.Agent(agentOptions),
    };
  }

  /**
   * POSTs `body` with `headers` to `url`. The whole attempt (waiting for a connection, connecting,
   * sending, the answer's headers and its first 1 KB) is bounded by `timeoutMs`.
   */
  async send(url: string, headers: Record<string, string>, body: string): Promise<DeliveryResult> {
    const started = performance.now();
    const deadline = Date.now() + this.options.timeoutMs;
    const finish = (
      statusCode: number | null,
      response: string,
      error: string | null,
    ): DeliveryResult => ({
      statusCode,
      durationMs: Math.round(performance.now() - started),
      response,
      error,
    });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return finish(null, '', 'invalid_url');
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return finish(null, '', 'invalid_url');
    }
    // A literal address is never looked up, so the agents' lookup does not see it: check it here.
    const host = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
    if (isIP(host) && !isAllowedAddress(host, this.options)) {
      return finish(null, '', 'forbidden_address');
    }
    const agent = this.agents[target.protocol];
    const payload = Buffer.from(body, 'utf8');
    for (let attempt = 0; ; attempt++) {
      const outcome = await post(target, agent, headers, payload, deadline);
      if ('statusCode' in outcome) return finish(outcome.statusCode, outcome.response, null);
      // A kept-alive connection the receiver closed just as it was reused, before any answer: the
      // request most likely never reached it, so it is sent once more on a new connection (the
      // Node.js docs' advice for reused sockets); at-least-once delivery allows the rare repeat.
      if (attempt === 0 && outcome.staleSocket) continue;
      return finish(null, '', outcome.error);
    }
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}

type Outcome = { statusCode: number; response: string } | { error: string; staleSocket: boolean };

/** One POST on `agent`, settled once: an answer, or why there was none. */
function post(
  url: URL,
  agent: http.Agent,
  headers: Record<string, string>,
  payload: Buffer,
  deadline: number,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST',
      agent,
      headers: { ...headers, 'content-length': String(payload.length) },
    });
    // On timeout the attempt is settled first, so the errors the destroyed request and answer
    // emit afterwards are ignored.
    const timer = setTimeout(
      () => {
        settle({ error: 'timeout', staleSocket: false });
        req.destroy();
      },
      Math.max(0, deadline - Date.now()),
    );
    let settled = false;
    let answered = false;
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const fail = (error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      settle({
        error: error instanceof LookupRefused ? error.reason : `network: ${code ?? 'unknown'}`,
        staleSocket: !answered && req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE'),
      });
    };
    req.on('error', fail);
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = () =>
        settle({
          statusCode: res.statusCode ?? 0,
          response: Buffer.concat(chunks).subarray(0, RESPONSE_BYTES).toString('utf8'),
        });
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        // More than kept: the rest is not downloaded (the connection is closed, not reused).
        if (size > RESPONSE_BYTES) {
          answer();
          res.destroy();
        }
      });
      res.on('end', answer);
      res.on('error', fail);
    });
    req.end(payload);
  });
}

/**
 * The agents' lookup: resolves every address of the host, refuses the host unless each passes
 * the guard, and hands only those checked addresses to the connection.
 */
function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error || addresses.length === 0) {
        callback(new LookupRefused('dns'), '', 0);
      } else if (!addresses.every((a) => isAllowedAddress(a.address, { allowLoopback }))) {
        callback(new LookupRefused('forbidden_address'), '', 0);
      } else if (options.all) {
        (callback as (e: null, all: typeof addresses) => void)(null, addresses);
      } else {
        callback(null, addresses[0].address, addresses[0].family);
      }
    });
  };
}
