import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { CrawlError, crawl } from './crawler';

/** A real local peer: each path answers as the test needs. */
function startServer(): Promise<{ base: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/final') {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<title>Final</title>');
    } else if (url.pathname === '/hop') {
      const n = Number(url.searchParams.get('n'));
      res.writeHead(302, { Location: n > 0 ? `/hop?n=${n - 1}` : '/final' }).end();
    } else if (url.pathname === '/to-metadata') {
      res.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/' }).end();
    } else if (url.pathname === '/to') {
      res.writeHead(302, { Location: url.searchParams.get('u') ?? '/' }).end();
    } else if (url.pathname === '/to-file') {
      res.writeHead(302, { Location: 'file:///etc/passwd' }).end();
    } else if (url.pathname === '/big') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('x'.repeat(3000));
    } else if (url.pathname === '/slow') {
      setTimeout(() => res.writeHead(200).end('late'), 2000).unref();
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        base: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

describe('crawl', () => {
  let server: { base: string; close: () => Promise<void> };
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const loopback = { allowLoopback: true };

  it('follows redirects to the final page', async () => {
    const result = await crawl(`${server.base}/hop?n=2`, loopback);
    expect(result.url).toBe(`${server.base}/final`);
    expect(result.status).toBe(200);
    expect(result.body).toBe('<title>Final</title>');
    expect(result.redirects).toEqual([
      `${server.base}/hop?n=2`,
      `${server.base}/hop?n=1`,
      `${server.base}/hop?n=0`,
    ]);
  });

  it('refuses loopback unless opted in', async () => {
    await expect(crawl(`${server.base}/final`)).rejects.toMatchObject({
      reason: 'forbidden_address',
    });
  });

  it('re-checks every hop: a redirect to the metadata address is refused', async () => {
    await expect(crawl(`${server.base}/to-metadata`, loopback)).rejects.toMatchObject({
      reason: 'forbidden_address',
    });
  });

  it('refuses non-http schemes, also on a hop', async () => {
    await expect(crawl('ftp://example.com/', loopback)).rejects.toMatchObject({
      reason: 'invalid_url',
    });
    await expect(crawl(`${server.base}/to-file`, loopback)).rejects.toMatchObject({
      reason: 'invalid_url',
    });
  });

  it('stops after the hop limit', async () => {
    await expect(
      crawl(`${server.base}/hop?n=5`, { ...loopback, maxRedirects: 3 }),
    ).rejects.toMatchObject({
      reason: 'too_many_redirects',
    });
  });

  it('reads at most maxBytes', async () => {
    const result = await crawl(`${server.base}/big`, { ...loopback, maxBytes: 1000 });
    expect(result.body).toHaveLength(1000);
  });

  it('gives up after the time limit', async () => {
    const error = await crawl(`${server.base}/slow`, { ...loopback, timeoutMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CrawlError);
    expect((error as CrawlError).reason).toBe('timeout');
  });

  it('takes a local hop without a request, counted toward the limit like a redirect', async () => {
    const requested: string[] = [];
    const localHop = (url: string) => {
      requested.push(url);
      return Promise.resolve(
        url === 'http://links.invalid/abc'
          ? { kind: 'hop' as const, url: `${server.base}/hop?n=1` }
          : null,
      );
    };
    const result = await crawl('http://links.invalid/abc', { ...loopback, localHop });
    expect([result.url, result.status]).toEqual([`${server.base}/final`, 200]);
    expect(result.redirects).toEqual([
      'http://links.invalid/abc',
      `${server.base}/hop?n=1`,
      `${server.base}/hop?n=0`,
    ]);
    expect(requested).toEqual([
      'http://links.invalid/abc',
      `${server.base}/hop?n=1`,
      `${server.base}/hop?n=0`,
      `${server.base}/final`,
    ]);
    await expect(
      crawl('http://links.invalid/abc', { ...loopback, localHop, maxRedirects: 2 }),
    ).rejects.toMatchObject({
      reason: 'too_many_redirects',
    });
  });

  it('checks where a local hop leads like a redirect: a private address is refused', async () => {
    const localHop = (url: string) =>
      Promise.resolve(
        url === 'http://links.invalid/p'
          ? { kind: 'hop' as const, url: 'http://10.1.2.3/admin' }
          : null,
      );
    await expect(crawl('http://links.invalid/p', { ...loopback, localHop })).rejects.toMatchObject({
      reason: 'forbidden_address',
    });
  });

  it('ends at a URL a local hop calls final, without requesting it, also one reached by a redirect', async () => {
    const requested: string[] = [];
    const localHop = (url: string) => {
      requested.push(url);
      return Promise.resolve(
        url === 'http://links.invalid/guarded' ? { kind: 'final' as const } : null,
      );
    };
    const direct = await crawl('http://links.invalid/guarded', { ...loopback, localHop });
    expect(direct).toEqual({
      url: 'http://links.invalid/guarded',
      status: 0,
      contentType: null,
      body: '',
      redirects: [],
    });
    const start = `${server.base}/to?u=${encodeURIComponent('http://links.invalid/guarded')}`;
    const reached = await crawl(start, { ...loopback, localHop, readBody: false });
    expect([reached.url, reached.status, reached.redirects]).toEqual([
      'http://links.invalid/guarded',
      0,
      [start],
    ]);
  });

  it('refuses hosts that resolve to private addresses', async () => {
    await expect(crawl('http://localhost:1/', {})).rejects.toMatchObject({
      reason: 'forbidden_address',
    });
  });
});
