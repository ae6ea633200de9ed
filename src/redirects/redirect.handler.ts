import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { ClickEvent, nextClickSequence } from '../clicks/click-event';
import { ClickRecorder } from '../clicks/click-recorder';
import { isCrawler } from '../common/bots';
import { forwardedFor, storedIp } from '../common/ip';
import { ApiPaths } from '../common/api-paths';
import { svcId } from '../links/link-path';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { RedirectCache } from './redirect-cache';
import { HostDomains, LinkTarget, ProjectTarget } from './redirect-target';

const NOT_FOUND_PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>Link not found</title></head>' +
  '<body><h1>Link not found</h1><p>This short link does not exist.</p></body></html>';

type Outcome = 'redirect' | 'not_found' | 'root' | 'error';

/**
 * The hot path: a plain Node request listener in front of Express (docs/architecture.md, "How a
 * redirect flows"), using the same DI services. It answers GET and HEAD for link hosts — the
 * default domain outside the API's paths, and every connected domain — and hands everything else
 * to Express.
 */
@Injectable()
export class RedirectHandler {
  private readonly logger = new Logger('RedirectHandler');
  private readonly defaultDomain: string;
  /** The latency histogram's series per outcome, looked up once. */
  private readonly latency: Record<Outcome, { observe(seconds: number): void }>;

  constructor(
    private readonly config: AppConfig,
    private readonly cache: RedirectCache,
    private readonly clicks: ClickRecorder,
    private readonly metrics: MetricsService,
    private readonly apiPaths: ApiPaths,
  ) {
    this.defaultDomain = config.defaultDomain;
    const histogram = metrics.redirectSeconds;
    this.latency = {
      redirect: histogram.child('redirect'),
      not_found: histogram.child('not_found'),
      root: histogram.child('root'),
      error: histogram.child('error'),
    };
  }

  /** The server's request listener: links here, anything else to `next` (Express). */
  listener(
    next: (req: IncomingMessage, res: ServerResponse) => void,
  ): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      const method = req.method;
      if (method !== 'GET' && method !== 'HEAD') return next(req, res);
      const host = (rawHeader(req.rawHeaders, 'host') ?? '').toLowerCase();
      const url = req.url ?? '/';
      const query = url.indexOf('?');
      const raw = query === -1 ? url : url.slice(0, query);
      const decoded = decodePath(raw);
      // A path that is not clean text is no link (link paths are URL-safe): the not-found answer,
      // unless it is the API's, which refuses it naming the parameter.
      const clean = decoded !== null;
      const path = decoded ?? trimSlashes(raw);
      if (host === this.defaultDomain) {
        if (path === '' || this.apiPaths.has(path)) return next(req, res);
        return this.serve(req, res, host, path, null, clean);
      }
      const domains = this.cache.hostDomains(host);
      if (domains instanceof Promise) {
        domains.then(
          (found) => (found ? this.serve(req, res, host, path, found, clean) : next(req, res)),
          // Without the database, health checks and the API on other hosts still reach Express.
          (error: unknown) =>
            this.apiPaths.has(path) ? next(req, res) : this.fail(res, error, performance.now()),
        );
      } else if (domains) {
        this.serve(req, res, host, path, domains, clean);
      } else {
        next(req, res);
      }
    };
  }

  /** Answers at once on memory hits (the common case: no promise); otherwise waits for the lookups. */
  private serve(
    req: IncomingMessage,
    res: ServerResponse,
    host: string,
    path: string,
    domains: HostDomains | null,
    clean: boolean,
  ): void {
    const started = performance.now();
    try {
      const target = path === '' || !clean ? null : this.cache.linkTarget(svcId(host, path));
      if (target instanceof Promise)
        return void this.serveLater(req, res, path, domains, started, target);
      const project = target ? this.cache.projectTarget(target.projectId) : null;
      if (project instanceof Promise)
        return void this.serveLater(req, res, path, domains, started, target, project);
      this.answer(req, res, path, domains, started, target, project);
    } catch (error) {
      this.fail(res, error, started);
    }
  }

  private async serveLater(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    domains: HostDomains | null,
    started: number,
    pendingTarget: Promise<LinkTarget | null> | LinkTarget | null,
    pendingProject?: Promise<ProjectTarget>,
  ): Promise<void> {
    try {
      const target = await pendingTarget;
      const project = target
        ? await (pendingProject ?? this.cache.projectTarget(target.projectId))
        : null;
      this.answer(req, res, path, domains, started, target, project);
    } catch (error) {
      this.fail(res, error, started);
    }
  }

  private answer(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    domains: HostDomains | null,
    started: number,
    target: LinkTarget | null,
    project: ProjectTarget | null,
  ): void {
    if (target && project?.live) {
      const location = withSvc(target.redirectUrl, project.conversions, target.svcId);
      // A counted redirect is answered once its click is in the journal: a crash after the answer keeps it.
      if (req.method === 'GET') this.record(req, target, () => this.redirect(res, location));
      else this.redirect(res, location);
      this.observe('redirect', started);
      return;
    }
    this.answerMissing(res, path, domains);
    this.observe(path === '' ? 'root' : 'not_found', started);
  }

  /** Bare domain → root_redirect; unknown path → not_found_redirect (of its segment domain first). */
  private answerMissing(res: ServerResponse, path: string, domains: HostDomains | null): void {
    if (domains) {
      const slash = path.indexOf('/');
      const segment = domains.segments[slash === -1 ? path : path.slice(0, slash)];
      if (path === '' && domains.own) return this.redirect(res, domains.own.rootRedirect);
      if (segment)
        return this.redirect(res, slash === -1 ? segment.rootRedirect : segment.notFoundRedirect);
      if (domains.own) return this.redirect(res, domains.own.notFoundRedirect);
    }
    res.writeHead(404, {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'private, max-age=0',
      'Content-Length': Buffer.byteLength(NOT_FOUND_PAGE),
    });
    res.end(NOT_FOUND_PAGE);
  }

  /**
   * 302, never 301: a browser would cache a 301 and later visits would go uncounted. Locations are
   * header-safe already (locationOf, when the repository reads them).
   */
  private redirect(res: ServerResponse, location: string): void {
    // Headers as a flat list: Node writes them without walking an object.
    res.writeHead(302, [
      'Location',
      location,
      'Cache-Control',
      'private, max-age=0',
      'Content-Length',
      '0',
    ]);
    res.end();
  }

  /** Records the click; `answer` runs once it is in the journal, later in this event-loop turn (ClickRecorder.push). */
  private record(req: IncomingMessage, target: LinkTarget, answer: () => void): void {
    const userAgent = header(req, 'user-agent');
    const now = Date.now();
    const click: ClickEvent = {
      id: nextClickSequence(),
      linkId: target.linkId,
      projectId: target.projectId,
      clickedAt: now,
      referrer: header(req, 'referer'),
      userAgent,
      ip: this.clientIp(req),
      isBot: isCrawler(userAgent),
    };
    this.clicks.push(click, answer);
    this.metrics.clicksRecorded.inc();
  }

  /**
   * The client's address in full, whatever CLICK_IP says: the worker looks up its place and then
   * stores it as CLICK_IP says (ClicksRepository), so that a place never needs a stored address.
   */
  private clientIp(req: IncomingMessage): string | null {
    const forwarded = this.config.trustProxy
      ? forwardedFor(rawHeader(req.rawHeaders, 'x-forwarded-for'))
      : null;
    return storedIp(forwarded ?? req.socket.remoteAddress, 'full');
  }

  private observe(outcome: Outcome, started: number): void {
    this.latency[outcome].observe((performance.now() - started) / 1000);
  }

  private fail(res: ServerResponse, error: unknown, started: number): void {
    this.logger.error({ err: error }, 'redirect failed');
    this.observe('error', started);
    if (res.headersSent) return;
    res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Retry-After': '1' });
    res.end('Temporarily unavailable, please retry');
  }
}

function header(req: IncomingMessage, name: string): string | null {
  const value = rawHeader(req.rawHeaders, name);
  return value !== undefined && value !== '' ? value.slice(0, 2048) : null;
}

/**
 * A request header by its lowercase name, read from rawHeaders: `req.headers` would build an object
 * of every header on first use, which the redirect path does not need. The first of repeated
 * headers, as Node keeps it (of X-Forwarded-For, whose copies Node joins, only the first address
 * is read, and that is in the first copy).
 */
export function rawHeader(raw: string[], name: string): string | undefined {
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i];
    if (key.length === name.length && key.toLowerCase() === name) return raw[i + 1];
  }
  return undefined;
}

/**
 * The link path of a request path: decoded, without leading or trailing slashes; null if it does
 * not decode to clean text (malformed escapes, invalid UTF-8, a lone surrogate or a NUL). Only a
 * path with a `%` pays for the checks.
 */
function decodePath(raw: string): string | null {
  let path = raw;
  if (raw.includes('%')) {
    try {
      path = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (path.includes('\0')) return null;
  }
  return trimSlashes(path);
}

function trimSlashes(path: string): string {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 47) start++;
  while (end > start && path.charCodeAt(end - 1) === 47) end--;
  return start === 0 && end === path.length ? path : path.slice(start, end);
}

/** `svc=<svc_id>` on the landing URL when conversions are tracked for its host (docs/architecture.md). */
export function withSvc(
  url: string,
  conversions: ProjectTarget['conversions'],
  svcId: string,
): string {
  if (conversions === null) return url;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return url;
  }
  if (conversions !== 'all' && !conversions.includes(target.hostname.toLowerCase())) return url;
  target.searchParams.set('svc', svcId);
  return target.toString();
}
