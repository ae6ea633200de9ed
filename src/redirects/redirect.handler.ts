import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { ClickEvent, nextClickSequence } from '../clicks/click-event';
import { ClickRecorder } from '../clicks/click-recorder';
import { isCrawler } from '../common/bots';
import { TrustFunction, clientAddress, compileTrust, storedIp } from '../common/ip';
import { ApiPaths } from '../common/api-paths';
import { svcId } from '../links/link-path';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { ControlDecision, ControlDecider } from './control-decision';
import { PasswordGate } from './password-gate';
import { RedirectCache } from './redirect-cache';
import { HostDomains, RedirectControls, LinkTarget, ProjectTarget } from './redirect-target';
import {
  decodePath,
  forwardedHeader,
  header,
  hostOf,
  rawHeader,
  rawPathOf,
  trimSlashes,
  withSvc,
} from './request-parts';

export { rawHeader, withSvc } from './request-parts';

const NOT_FOUND_PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>Link not found</title></head>' +
  '<body><h1>Link not found</h1><p>This short link does not exist.</p></body></html>';

type Outcome = 'redirect' | 'not_found' | 'root' | 'expired' | 'form' | 'error';

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
  /** TRUST_PROXY's trust function, null when X-Forwarded-For is ignored. */
  private readonly trust: TrustFunction | null;
  /** The latency histogram's series per outcome, looked up once. */
  private readonly latency: Record<Outcome, { observe(seconds: number): void }>;

  constructor(
    config: AppConfig,
    private readonly cache: RedirectCache,
    private readonly clicks: ClickRecorder,
    private readonly metrics: MetricsService,
    private readonly apiPaths: ApiPaths,
    private readonly rules: ControlDecider,
    private readonly gate: PasswordGate,
  ) {
    this.defaultDomain = config.defaultDomain;
    this.trust = config.trustProxy === false ? null : compileTrust(config.trustProxy);
    const histogram = metrics.redirectSeconds;
    this.latency = {
      redirect: histogram.child('redirect'),
      not_found: histogram.child('not_found'),
      root: histogram.child('root'),
      expired: histogram.child('expired'),
      form: histogram.child('form'),
      error: histogram.child('error'),
    };
  }

  /** The server's request listener: links here, anything else to `next` (Express). */
  listener(
    next: (req: IncomingMessage, res: ServerResponse) => void,
  ): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      const method = req.method;
      if (method !== 'GET' && method !== 'HEAD') {
        return method === 'POST' ? this.post(req, res, next) : next(req, res);
      }
      const host = hostOf(req);
      const raw = rawPathOf(req);
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

  /**
   * POST reaches a password-protected link (its form posts the password there); anything else,
   * and whatever cannot be looked up, goes on to Express as before.
   */
  private post(
    req: IncomingMessage,
    res: ServerResponse,
    next: (req: IncomingMessage, res: ServerResponse) => void,
  ): void {
    const host = hostOf(req);
    const path = decodePath(rawPathOf(req));
    if (path === null || path === '') return next(req, res);
    const isDefault = host === this.defaultDomain;
    if (isDefault && this.apiPaths.has(path)) return next(req, res);
    const onward = () => next(req, res);
    const serve = (domains: HostDomains | null) =>
      domains || isDefault ? this.serve(req, res, host, path, domains, true) : onward();
    const withTarget = (target: LinkTarget | null) => {
      if (target?.controls?.password === undefined) return onward();
      if (isDefault) return serve(null);
      const domains = this.cache.hostDomains(host);
      if (domains instanceof Promise) domains.then(serve, onward);
      else serve(domains);
    };
    const target = this.cache.linkTarget(svcId(host, path));
    if (target instanceof Promise) target.then(withTarget, onward);
    else withTarget(target);
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
      // Links with controls (docs/api.md, "Link controls"): the one check the others pay.
      if (target.controls !== undefined) {
        return this.answerRules(req, res, path, domains, started, target, project, target.controls);
      }
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

  /**
   * A link with controls: ControlDecider decides (from the cached target; a promise only on the
   * link's first count or the geolocation database's first load), and the visit is answered so.
   */
  private answerRules(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    domains: HostDomains | null,
    started: number,
    target: LinkTarget,
    project: ProjectTarget,
    rules: RedirectControls,
    accepted?: { referrer: string | null },
  ): void {
    const userAgent = header(req, 'user-agent');
    const method = req.method;
    const ip = rules.geo !== undefined || rules.password !== undefined ? this.clientIp(req) : null;
    const counts =
      (method === 'GET' || accepted !== undefined) && method !== 'HEAD' && !isCrawler(userAgent);
    const visit = { ip, userAgent, passwordAccepted: accepted !== undefined, counts };
    const act = (decision: ControlDecision) => {
      if (decision.kind === 'redirect') {
        const location = withSvc(decision.url, project.conversions, target.svcId);
        if (method === 'HEAD') this.redirect(res, location);
        else this.record(req, target, () => this.redirect(res, location), accepted?.referrer);
        return this.observe('redirect', started);
      }
      if (decision.kind === 'expired') {
        this.redirect(res, decision.url);
        return this.observe('expired', started);
      }
      if (decision.kind === 'missing') {
        this.answerMissing(res, path, domains);
        return this.observe('not_found', started);
      }
      // The form posts to the link's own path, never to the request target as sent (`//host/…`
      // would be another host's address).
      if (method !== 'POST') {
        this.gate.form(res, path, header(req, 'referer'), method === 'HEAD');
        return this.observe('form', started);
      }
      const gateVisit = {
        req,
        res,
        linkPath: path,
        linkId: target.linkId,
        projectId: target.projectId,
        hash: rules.password!,
        ip,
        contentType: rawHeader(req.rawHeaders, 'content-type'),
      };
      let passed = false;
      this.gate
        .submit(gateVisit, (referrer) => {
          passed = true;
          this.answerRules(req, res, path, domains, started, target, project, rules, {
            referrer,
          });
        })
        .then(
          () => passed || this.observe('form', started),
          (error: unknown) => this.fail(res, error, started),
        );
    };
    const decision = this.rules.decide(target, rules, visit);
    if (decision instanceof Promise) {
      decision.then(act, (error: unknown) => this.fail(res, error, started));
    } else {
      act(decision);
    }
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

  /**
   * Records the click; `answer` runs once it is in the journal, later in this event-loop turn
   * (ClickRecorder.push). A protected link's click carries the referrer its form kept (`given`).
   */
  private record(
    req: IncomingMessage,
    target: LinkTarget,
    answer: () => void,
    given?: string | null,
  ): void {
    const userAgent = header(req, 'user-agent');
    const now = Date.now();
    const click: ClickEvent = {
      id: nextClickSequence(),
      linkId: target.linkId,
      projectId: target.projectId,
      clickedAt: now,
      referrer: given === undefined ? header(req, 'referer') : given,
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
   * Behind proxies (TRUST_PROXY), the rightmost X-Forwarded-For entry no trusted proxy sent.
   */
  private clientIp(req: IncomingMessage): string | null {
    const peer = req.socket.remoteAddress;
    if (this.trust === null) return storedIp(peer, 'full');
    return storedIp(clientAddress(peer, forwardedHeader(req.rawHeaders), this.trust), 'full');
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
