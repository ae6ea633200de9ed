import { lookup } from 'node:dns/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { GuardOptions, isAllowedAddress, isCrawlableUrl } from './url-guard';

export interface CrawlOptions extends GuardOptions {
  /** Redirect hops followed (docs/api.md, "Tracked links": at most 10). */
  maxRedirects?: number;
  /** Whole crawl, all hops (docs/api.md, "Tracked links": 5 s). */
  timeoutMs?: number;
  /**
   * Body bytes read from the final page (docs/api.md, "Tracked links": 1 MiB); the rest is not
   * downloaded.
   */
  maxBytes?: number;
  /** Whether to download the final page's body at all (unwrap needs only the final URL). */
  readBody?: boolean;
  userAgent?: string;
  /**
   * Where a URL leads without a request (links of this service, read from the database), or null
   * to request it. A hop counts toward maxRedirects like a redirect.
   */
  localHop?: (url: string) => Promise<LocalHop | null>;
}

/** A URL known without a request: it leads on to `url`, or it is where the crawl ends. */
export type LocalHop = { kind: 'hop'; url: string } | { kind: 'final' };

export interface CrawlResult {
  /** The final URL after every redirect. */
  url: string;
  /** The final answer's status; 0 when a local hop ended the crawl (no request was made). */
  status: number;
  contentType: string | null;
  body: string;
  /** Every URL visited before the final one. */
  redirects: string[];
}

export type CrawlFailure =
  'invalid_url' | 'forbidden_address' | 'dns' | 'too_many_redirects' | 'timeout' | 'network';

export class CrawlError extends Error {
  constructor(
    readonly reason: CrawlFailure,
    message: string,
  ) {
    super(message);
    this.name = 'CrawlError';
  }
}

const DEFAULTS = { maxRedirects: 10, timeoutMs: 5000, maxBytes: 1024 * 1024 };

/**
 * Fetches a URL the way an SSRF-safe crawler must: http(s) only; the host resolved and every
 * address checked before connecting, the connection pinned to a checked address (no DNS
 * rebinding between check and connect); each redirect hop checked again; bounded hops, time, bytes.
 */
export async function crawl(start: string, options: CrawlOptions = {}): Promise<CrawlResult> {
  const maxRedirects = options.maxRedirects ?? DEFAULTS.maxRedirects;
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULTS.timeoutMs);
  const redirects: string[] = [];
  let current = parse(start);
  const hop = (location: string) => {
    if (redirects.length >= maxRedirects) {
      throw new CrawlError(
        'too_many_redirects',
        `more than ${maxRedirects} redirects from ${start}`,
      );
    }
    redirects.push(current.toString());
    current = parse(location, current);
  };
  for (;;) {
    const local = options.localHop
      ? await withTimeout(options.localHop(current.toString()), remaining(deadline))
      : null;
    if (local?.kind === 'final') {
      return { url: current.toString(), status: 0, contentType: null, body: '', redirects };
    }
    if (local?.kind === 'hop') {
      hop(local.url);
      continue;
    }
    const address = await resolveAllowed(current.hostname, options, deadline);
    const response = await request(current, address, options, deadline);
    const location = response.headers.location;
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && location) {
      response.resume();
      hop(location);
      continue;
    }
    const body =
      options.readBody === false
        ? (response.resume(), '')
        : await readBody(response, options.maxBytes ?? DEFAULTS.maxBytes, deadline);
    return {
      url: current.toString(),
      status,
      contentType: response.headers['content-type'] ?? null,
      body,
      redirects,
    };
  }
}

function parse(value: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    throw new CrawlError('invalid_url', `not a URL: ${value}`);
  }
  if (!isCrawlableUrl(url))
    throw new CrawlError('invalid_url', `only http(s) URLs are crawled: ${url.protocol}`);
  return url;
}

function remaining(deadline: number): number {
  const left = deadline - Date.now();
  if (left <= 0) throw new CrawlError('timeout', 'crawl timed out');
  return left;
}

async function resolveAllowed(
  hostname: string,
  options: GuardOptions,
  deadline: number,
): Promise<{ address: string; family: number }> {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await withTimeout(
        lookup(host, { all: true, verbatim: true }),
        remaining(deadline),
      );
    } catch (error) {
      if (error instanceof CrawlError) throw error;
      throw new CrawlError('dns', `cannot resolve ${host}`);
    }
  }
  // Every address must be allowed: a host that also resolves to a private address is refused.
  if (addresses.length === 0 || !addresses.every((a) => isAllowedAddress(a.address, options))) {
    throw new CrawlError('forbidden_address', `${host} resolves to an address that is not crawled`);
  }
  return addresses[0];
}

function request(
  url: URL,
  pinned: { address: string; family: number },
  options: CrawlOptions,
  deadline: number,
): Promise<http.IncomingMessage> {
  const pinnedLookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        pinned,
      ]);
    } else {
      callback(null, pinned.address, pinned.family);
    }
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'GET',
        agent: false,
        lookup: pinnedLookup,
        timeout: remaining(deadline),
        headers: {
          'User-Agent': options.userAgent ?? 'svc-crawler/1.0 (+link unwrapping)',
          Accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8',
        },
      },
      resolve,
    );
    const timer = setTimeout(
      () => req.destroy(new CrawlError('timeout', 'crawl timed out')),
      remaining(deadline),
    );
    req.on('timeout', () => req.destroy(new CrawlError('timeout', 'crawl timed out')));
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error instanceof CrawlError ? error : new CrawlError('network', error.message));
    });
    req.on('response', (res) => {
      clearTimeout(timer);
      res.on('error', () => undefined);
    });
    req.end();
  });
}

function readBody(
  response: http.IncomingMessage,
  maxBytes: number,
  deadline: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      response.destroy();
      reject(new CrawlError('timeout', 'crawl timed out'));
    }, remaining(deadline));
    const finish = () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    response.on('data', (chunk: Buffer) => {
      const room = maxBytes - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      if (size >= maxBytes) {
        response.destroy();
        finish();
      }
    });
    response.on('end', finish);
    response.on('error', (error) => {
      clearTimeout(timer);
      reject(new CrawlError('network', error.message));
    });
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new CrawlError('timeout', 'crawl timed out')), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
