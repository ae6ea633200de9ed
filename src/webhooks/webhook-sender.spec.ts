import * as http from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { WebhookSender } from './webhook-sender';

interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A real local receiver: each path answers as the test needs; it records what reaches it. */
async function startReceiver() {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const served = new WeakMap<Socket, number>();
  const server = http.createServer((req, res) => {
    const before = served.get(req.socket) ?? 0;
    served.set(req.socket, before + 1);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const status = /^\/status\/(\d{3})$/.exec(req.url ?? '');
      if (status) {
        res.writeHead(Number(status[1]), { location: '/elsewhere' }).end(`answer ${status[1]}`);
      } else if (req.url === '/big') {
        res.writeHead(200).end('é'.repeat(300) + 'x'.repeat(5 * 1024 - 600));
      } else if (req.url === '/drop-reused' && before > 0) {
        // A kept-alive connection closed by the receiver as it is reused.
        req.socket.destroy();
      } else if (req.url === '/reset-mid-body') {
        res.writeHead(200);
        res.write('partial', () => req.socket.destroy());
      } else if (req.url === '/silent') {
        // Never answers: the sender's timeout must end the attempt.
      } else if (req.url === '/stall-body') {
        res.writeHead(200);
        res.write('partial');
      } else {
        res.writeHead(204).end();
      }
    });
  });
  server.on('connection', (socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    received,
    connections: () => connections,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

describe('WebhookSender', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sender: WebhookSender;
  beforeEach(async () => {
    receiver = await startReceiver();
    sender = new WebhookSender({ timeoutMs: 5000, allowLoopback: true });
  });
  afterEach(async () => {
    sender.close();
    await receiver.close();
  });

  it('POSTs the body with the headers as given', async () => {
    const headers = {
      'webhook-id': 'evt_0123456789abcdef0123456789abcdef',
      'webhook-timestamp': '1700000000',
      'webhook-signature': 'v1,abc= v1,def=',
      'content-type': 'application/json',
      'user-agent': 'svc-webhooks/1',
    };
    const body = '{"type":"ping","name":"Zoë"}';
    const result = await sender.send(`${receiver.base}/in?x=1`, headers, body);
    expect(result).toMatchObject({ statusCode: 204, response: '', error: null });
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/in?x=1');
    expect(request.body).toBe(body);
    expect(request.headers).toMatchObject({
      ...headers,
      'content-length': String(Buffer.byteLength(body)),
    });
  });

  it.each([200, 201, 301, 400, 410, 500, 503])(
    'answers with the status %i, redirects not followed',
    async (status) => {
      const result = await sender.send(`${receiver.base}/status/${status}`, {}, '{}');
      expect(result).toMatchObject({
        statusCode: status,
        response: `answer ${status}`,
        error: null,
      });
      expect(receiver.received.map((r) => r.path)).toEqual([`/status/${status}`]);
    },
  );

  it('keeps the first 1 KB of a 5 KB answer, as UTF-8', async () => {
    const result = await sender.send(`${receiver.base}/big`, {}, '{}');
    expect(result.statusCode).toBe(200);
    expect(result.error).toBeNull();
    expect(result.response).toBe('é'.repeat(300) + 'x'.repeat(1024 - 600));
    expect(Buffer.byteLength(result.response)).toBe(1024);
  });

  it('times out a receiver that never answers', async () => {
    const quick = new WebhookSender({ timeoutMs: 200, allowLoopback: true });
    try {
      const result = await quick.send(`${receiver.base}/silent`, {}, '{}');
      expect(result).toMatchObject({ statusCode: null, response: '', error: 'timeout' });
      expect(receiver.received.map((r) => r.path)).toEqual(['/silent']);
    } finally {
      quick.close();
    }
  });

  it('times out an answer whose body stalls before its end', async () => {
    const quick = new WebhookSender({ timeoutMs: 200, allowLoopback: true });
    try {
      const result = await quick.send(`${receiver.base}/stall-body`, {}, '{}');
      expect(result).toMatchObject({ statusCode: null, response: '', error: 'timeout' });
    } finally {
      quick.close();
    }
  });

  it.each(['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]'])(
    'refuses the loopback host %s unless allowed, without connecting',
    async (host) => {
      const strict = new WebhookSender({ timeoutMs: 5000, allowLoopback: false });
      try {
        const result = await strict.send(`http://${host}:${receiver.port}/in`, {}, '{}');
        expect(result).toMatchObject({
          statusCode: null,
          response: '',
          error: 'forbidden_address',
        });
        expect(receiver.connections()).toBe(0);
      } finally {
        strict.close();
      }
    },
  );

  it('connects to a host name whose addresses pass the guard', async () => {
    const result = await sender.send(`http://localhost:${receiver.port}/in`, {}, '{}');
    expect(result).toMatchObject({ statusCode: 204, error: null });
    expect(receiver.received.map((r) => r.headers.host)).toEqual([`localhost:${receiver.port}`]);
  });

  it('reports an answer cut off before its end, once, on a reused connection too', async () => {
    await sender.send(`${receiver.base}/in`, {}, '{}');
    const result = await sender.send(`${receiver.base}/reset-mid-body`, {}, '{}');
    expect(result).toMatchObject({
      statusCode: null,
      response: '',
      error: 'network: ECONNRESET',
    });
    expect(receiver.received.map((r) => r.path)).toEqual(['/in', '/reset-mid-body']);
  });

  it('reports a host that does not resolve', async () => {
    const result = await sender.send('http://no-such-host.invalid/in', {}, '{}');
    expect(result).toMatchObject({ statusCode: null, response: '', error: 'dns' });
  });

  it('reports a refused connection', async () => {
    const port = receiver.port;
    await receiver.close();
    const result = await sender.send(`http://127.0.0.1:${port}/in`, {}, '{}');
    expect(result).toMatchObject({
      statusCode: null,
      response: '',
      error: 'network: ECONNREFUSED',
    });
    receiver = await startReceiver();
  });

  it('reports a URL it cannot send to', async () => {
    await expect(sender.send('not a url', {}, '{}')).resolves.toMatchObject({
      statusCode: null,
      error: 'invalid_url',
    });
    await expect(sender.send('ftp://127.0.0.1/', {}, '{}')).resolves.toMatchObject({
      statusCode: null,
      error: 'invalid_url',
    });
  });

  it('reuses one kept-alive connection for sequential sends', async () => {
    for (let i = 0; i < 20; i++) {
      const result = await sender.send(`${receiver.base}/in`, {}, `{"n":${i}}`);
      expect(result.statusCode).toBe(204);
    }
    expect(receiver.received).toHaveLength(20);
    expect(receiver.connections()).toBe(1);
  });

  it('sends once more on a new connection when a kept-alive one is closed as it is reused', async () => {
    expect(await sender.send(`${receiver.base}/drop-reused`, {}, '{}')).toMatchObject({
      statusCode: 204,
    });
    expect(await sender.send(`${receiver.base}/drop-reused`, {}, '{}')).toMatchObject({
      statusCode: 204,
      error: null,
    });
    expect(receiver.connections()).toBe(2);
    expect(receiver.received).toHaveLength(3);
  });
});
