import { Server, Socket, connect, createServer } from 'node:net';

/**
 * A TCP proxy in front of a shared service (PostgreSQL) that a test can cut — every connection
 * destroyed and new ones refused, as when the server goes away — and restore, without ever stopping
 * the service itself.
 */
export interface TcpProxy {
  port: number;
  /** Connections open through the proxy right now. */
  readonly connections: number;
  /** Bytes the proxy has passed from its clients to the target, all connections together. */
  readonly forwarded: number;
  /** Destroys every connection and stops listening: new connections are refused. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(
  targetPort: number,
  targetHost = '127.0.0.1',
): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  let forwarded = 0;

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const listen = async (): Promise<void> => {
    const next = createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      track(client);
      track(upstream);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.on('data', (chunk: Buffer) => (forwarded += chunk.length));
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    port = (next.address() as { port: number }).port;
    server = next;
  };

  const cut = async (): Promise<void> => {
    const current = server;
    server = null;
    const closed = current ? new Promise((resolve) => current.close(resolve)) : Promise.resolve();
    for (const socket of sockets) socket.destroy();
    await closed;
  };

  await listen();
  return {
    get port() {
      return port;
    },
    get connections() {
      return sockets.size / 2;
    },
    get forwarded() {
      return forwarded;
    },
    cut,
    restore: async () => {
      if (!server) await listen();
    },
    close: cut,
  };
}
