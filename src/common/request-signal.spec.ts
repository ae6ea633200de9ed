import { createServer, request, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response } from 'express';
import { requestSignal } from './request-signal';

/** A local HTTP server whose handler takes each response's signal and answers when told. */
function server(): Promise<{
  http: Server;
  port: number;
  handled: Promise<{ signal: AbortSignal; res: ServerResponse }>;
}> {
  let handle!: (value: { signal: AbortSignal; res: ServerResponse }) => void;
  const handled = new Promise<{ signal: AbortSignal; res: ServerResponse }>((resolve) => {
    handle = resolve;
  });
  const http = createServer((_req, res) => {
    handle({ signal: requestSignal(res as unknown as Response), res });
  });
  return new Promise((resolve) =>
    http.listen(0, '127.0.0.1', () =>
      resolve({ http, port: (http.address() as AddressInfo).port, handled }),
    ),
  );
}

const closed = (res: ServerResponse) =>
  new Promise<void>((resolve) => (res.closed ? resolve() : res.once('close', () => resolve())));

describe('requestSignal', () => {
  it('aborts when the client goes away before the answer, once per response', async () => {
    const { http, port, handled } = await server();
    try {
      const client = request({ port, host: '127.0.0.1', path: '/stats/range.json' });
      client.on('error', () => undefined);
      client.end();
      const { signal, res } = await handled;
      expect(signal.aborted).toBe(false);
      expect(requestSignal(res as unknown as Response)).toBe(signal);
      client.destroy();
      await closed(res);
      expect(signal.aborted).toBe(true);
    } finally {
      http.close();
    }
  });

  it('does not abort once the answer was sent, when the connection closes after it', async () => {
    const { http, port, handled } = await server();
    try {
      const answered = new Promise<void>((resolve) => {
        const client = request({ port, host: '127.0.0.1', path: '/', agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        });
        client.end();
      });
      const { signal, res } = await handled;
      res.end('ok');
      await answered;
      await closed(res);
      expect(signal.aborted).toBe(false);
      // Asked again after the answer: a signal that never aborts.
      expect(requestSignal(res as unknown as Response).aborted).toBe(false);
    } finally {
      http.close();
    }
  });
});
