import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { ClickEvent, nextClickSequence } from '../clicks/click-event';
import { ClickRecorder } from '../clicks/click-recorder';
import { isCrawler } from '../common/bots';
import { TrustFunction, clientAddress, storedIp } from '../common/ip';
import { ApiPaths } from '../common/api-paths';
import { svcId } from '../links/link-path';
import { AppConfig } from '../config/app-config';
import { compileTrust } from '../config/trust-proxy';
import { MetricsService } from '../metrics/metrics.service';
import { ControlDecider, ControlDecision, Visitor } from './control-decision';
import { NotFoundBrake } from './not-found-brake';
import { PasswordGate } from './password-gate';
import { writeMissing, writeRedirect, writeUnavailable } from './redirect-answers';
import { RedirectCache } from './redirect-cache';
import { HostDomains, LinkTarget, ProjectTarget, RedirectControls } from './redirect-target';
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

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** The latency histogram's outcomes observed here; 'not_found' is NotFoundBrake's, when it writes. */
type Outcome = 'redirect' | 'root' | 'expired' | 'form' | 'error';

/** One request for a link host on its way through the listener. */
interface Visit {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Express, for what is no link's. */
  readonly next: Listener;
  readonly host: string;
  /** The link path: decoded, without slashes at its ends; '' on the bare domain. */
  readonly path: string;
  /** False when the path does not decode to clean text: no link has it. */
  readonly clean: boolean;
  /** performance.now() when the visit began, for the latency histogram. */
  readonly started: number;
  /** The host's connected domains; null on the default domain. */
  domains: HostDomains | null;
  /** The password, once accepted, with the referrer its form kept (the click's). */
  accepted: { referrer: string | null } | null;
  /** The client's address (clientIp) and User-Agent, read once when first needed. */
  ip: string | null | undefined;
  userAgent: string | null | undefined;
}

/**
 * The hot path: a plain Node request listener in front of Express (docs/architecture.md, "How a
 * redirect flows"), using the same DI services. It answers GET and HEAD for link hosts — the
 * default domain outside the API's paths, and every connected domain — and POST for a protected
 * link's path (its password form posts there); it hands everything else to Express.
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
    private readonly decider: ControlDecider,
    private readonly gate: PasswordGate,
    private readonly brake: NotFoundBrake,
  ) {
    this.defaultDomain = config.defaultDomain;
    this.trust = config.trustProxy === false ? null : compileTrust(config.trustProxy);
    const histogram = metrics.redirectSeconds;
    this.latency = {
      redirect: histogram.child('redirect'),
      root: histogram.child('root'),
      expired: histogram.child('expired'),
      form: histogram.child('form'),
      error: histogram.child('error'),
    };
  }

  /** The server's request listener: links here, anything else to `next` (Express). */
  listener(next: Listener): Listener {
    return (req, res) => {
      const method = req.method;
      if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') return next(req, res);
      const host = hostOf(req);
      const raw = rawPathOf(req);
      const decoded = decodePath(raw);
      if (method === 'POST' && (decoded === null || decoded === '')) return next(req, res);
      // A path that is not clean text is no link (link paths are URL-safe): the not-found answer,
      // unless it is the API's, which refuses it naming the parameter.
      const path = decoded ?? trimSlashes(raw);
      const onDefault = host === this.defaultDomain;
      if (onDefault && (path === '' || this.apiPaths.has(path))) return next(req, res);
      const visit: Visit = {
        req,
        res,
        next,
        host,
        path,
        clean: decoded !== null,
        started: performance.now(),
        domains: null,
        accepted: null,
        ip: undefined,
        userAgent: undefined,
      };
      if (onDefault) this.serve(visit);
      else this.serveConnected(visit);
    };
  }

  /** Another host: a connected domain's visit; a host of none goes to Express. */
  private serveConnected(visit: Visit): void {
    const domains = this.cache.hostDomains(visit.host);
    if (!(domains instanceof Promise)) return this.withDomains(visit, domains);
    domains.then(
      (found) => this.withDomains(visit, found),
      // Without the database, health checks and the API on other hosts still reach Express.
      (error: unknown) =>
        this.apiPaths.has(visit.path) ? this.onward(visit) : this.lookupFailed(visit, error),
    );
  }

  private withDomains(visit: Visit, domains: HostDomains | null): void {
    if (domains === null) return this.onward(visit);
    visit.domains = domains;
    this.serve(visit);
  }

  /**
   * Looks up the link and its project: answered at once on memory hits (the common case: no
   * promise), otherwise once the lookups are done.
   */
  private serve(visit: Visit): void {
    const link =
      visit.clean && visit.path !== ''
        ? this.cache.linkTarget(svcId(visit.host, visit.path))
        : null;
    if (link instanceof Promise) return void this.serveLater(visit, link);
    const project = link === null ? null : this.cache.projectTarget(link.projectId);
    if (project instanceof Promise) return void this.serveLater(visit, link, project);
    this.answer(visit, link, project);
  }

  private async serveLater(
    visit: Visit,
    pendingLink: Promise<LinkTarget | null> | LinkTarget | null,
    pendingProject?: Promise<ProjectTarget>,
  ): Promise<void> {
    let link: LinkTarget | null;
    let project: ProjectTarget | null;
    try {
      link = await pendingLink;
      project =
        link === null ? null : await (pendingProject ?? this.cache.projectTarget(link.projectId));
    } catch (error) {
      return this.lookupFailed(visit, error);
    }
    this.answer(visit, link, project);
  }

  /** The visit's answer, once its link (null: none) and the link's project are known. */
  private answer(visit: Visit, link: LinkTarget | null, project: ProjectTarget | null): void {
    try {
      // A POST is a password form's: one for any other link goes on to Express.
      if (visit.req.method === 'POST' && link?.controls?.password === undefined) {
        return this.onward(visit);
      }
      if (link === null || project === null || !project.live) return this.missing(visit);
      const controls = link.controls;
      // A link without controls goes to its redirect_url: the one check plain links pay.
      if (controls === undefined) return this.redirect(visit, link, project, link.redirectUrl);
      const decision = this.decider.decide(link, controls, this.visitor(visit, controls));
      if (decision instanceof Promise) {
        decision
          .then((known) => this.act(visit, link, project, known))
          .catch((error: unknown) => this.fail(visit, error));
      } else {
        this.act(visit, link, project, decision);
      }
    } catch (error) {
      this.fail(visit, error);
    }
  }

  /** A link with controls (docs/api.md, "Link controls"): what ControlDecider decided. */
  private act(
    visit: Visit,
    link: LinkTarget,
    project: ProjectTarget,
    decision: ControlDecision,
  ): void {
    switch (decision.kind) {
      case 'redirect':
        return this.redirect(visit, link, project, decision.url);
      case 'expired':
        writeRedirect(visit.res, decision.url);
        return this.observe(visit, 'expired');
      case 'missing':
        return this.missing(visit);
      case 'form':
        // The form posts to the link's own path, never to the request target as sent (`//host/…`
        // would be another host's address).
        this.gate.form(
          visit.res,
          visit.path,
          header(visit.req, 'referer'),
          visit.req.method === 'HEAD',
        );
        return this.observe(visit, 'form');
      case 'check':
        return void this.check(visit, link, project, decision.hash);
    }
  }

  /** A posted password, checked by the gate: the right one answers as the link then decides. */
  private async check(
    visit: Visit,
    link: LinkTarget,
    project: ProjectTarget,
    hash: string,
  ): Promise<void> {
    try {
      const result = await this.gate.submit({
        req: visit.req,
        res: visit.res,
        linkPath: visit.path,
        linkId: link.linkId,
        projectId: link.projectId,
        hash,
        ip: this.clientIp(visit),
        contentType: rawHeader(visit.req.rawHeaders, 'content-type'),
      });
      switch (result.kind) {
        case 'accepted':
          visit.accepted = result;
          return this.answer(visit, link, project);
        case 'answered':
          return this.observe(visit, 'form');
      }
    } catch (error) {
      this.fail(visit, error);
    }
  }

  /** What the controls read of the visitor; the address only when a control needs it. */
  private visitor(visit: Visit, controls: RedirectControls): Visitor {
    const { req, accepted } = visit;
    const userAgent = this.userAgent(visit);
    const needsIp = controls.geo !== undefined || controls.password !== undefined;
    return {
      ip: needsIp ? this.clientIp(visit) : null,
      userAgent,
      password: accepted !== null ? 'accepted' : req.method === 'POST' ? 'posted' : 'none',
      counts: (req.method === 'GET' || accepted !== null) && !isCrawler(userAgent),
    };
  }

  /**
   * A 302 to `url`, with svc= when the project tracks conversions on its host. A counted redirect
   * (not HEAD) is answered once its click is in the journal: a crash after the answer keeps it.
   */
  private redirect(visit: Visit, link: LinkTarget, project: ProjectTarget, url: string): void {
    const location = withSvc(url, project.conversions, link.svcId);
    if (visit.req.method === 'HEAD') writeRedirect(visit.res, location);
    else this.record(visit, link, location);
    this.observe(visit, 'redirect');
  }

  /**
   * No link: the domain's redirects (docs/api.md, "Redirects and clicks"), else the 404 page. A
   * path's answer goes through the brake on floods of unknown paths (NotFoundBrake), which may
   * hold it; a bare domain's never does.
   */
  private missing(visit: Visit): void {
    const location = visit.domains === null ? null : domainRedirect(visit.domains, visit.path);
    if (visit.path !== '') {
      return this.brake.answer(this.clientIp(visit), visit.res, location, visit.started);
    }
    writeMissing(visit.res, location);
    this.observe(visit, 'root');
  }

  /**
   * Records the click; the 302 is written once it is in the journal, later in this event-loop turn
   * (ClickRecorder.push). A protected link's click carries the referrer its form kept.
   */
  private record(visit: Visit, link: LinkTarget, location: string): void {
    const userAgent = this.userAgent(visit);
    const click: ClickEvent = {
      id: nextClickSequence(),
      linkId: link.linkId,
      projectId: link.projectId,
      clickedAt: Date.now(),
      referrer: visit.accepted === null ? header(visit.req, 'referer') : visit.accepted.referrer,
      userAgent,
      ip: this.clientIp(visit),
      isBot: isCrawler(userAgent),
    };
    this.clicks.push(click, () => writeRedirect(visit.res, location));
    this.metrics.clicksRecorded.inc();
  }

  /**
   * The client's address in full, whatever the project keeps: the worker looks up its place and
   * then stores it as the project's ip_storage (by default CLICK_IP) says (ClicksRepository), so
   * that a place never needs a stored address.
   * Behind proxies (TRUST_PROXY), the rightmost X-Forwarded-For entry no trusted proxy sent. Read
   * once per visit: a protected or geo link's visit needs it up to three times.
   */
  private clientIp(visit: Visit): string | null {
    if (visit.ip !== undefined) return visit.ip;
    const { req } = visit;
    const peer = req.socket.remoteAddress;
    const address =
      this.trust === null ? peer : clientAddress(peer, forwardedHeader(req.rawHeaders), this.trust);
    return (visit.ip = storedIp(address, 'full'));
  }

  private userAgent(visit: Visit): string | null {
    if (visit.userAgent === undefined) visit.userAgent = header(visit.req, 'user-agent');
    return visit.userAgent;
  }

  private onward(visit: Visit): void {
    visit.next(visit.req, visit.res);
  }

  /** A lookup failed: 503; a POST goes on to Express, as does every POST but a protected link's. */
  private lookupFailed(visit: Visit, error: unknown): void {
    if (visit.req.method === 'POST') this.onward(visit);
    else this.fail(visit, error);
  }

  private fail(visit: Visit, error: unknown): void {
    this.logger.error({ err: error }, 'redirect failed');
    this.observe(visit, 'error');
    if (!visit.res.headersSent) writeUnavailable(visit.res);
  }

  private observe(visit: Visit, outcome: Outcome): void {
    this.latency[outcome].observe((performance.now() - visit.started) / 1000);
  }
}

/**
 * The redirect of a path without a link on a connected host: the bare domain → its root_redirect;
 * a path under a `host_segment` domain's segment → that domain's (its root_redirect for the bare
 * segment); else the host's not_found_redirect. Null without one of them.
 */
function domainRedirect(domains: HostDomains, path: string): string | null {
  if (path === '' && domains.own) return domains.own.rootRedirect;
  const slash = path.indexOf('/');
  const name = slash === -1 ? path : path.slice(0, slash);
  // Own keys only: a path such as `constructor` is no segment.
  const segment = Object.hasOwn(domains.segments, name) ? domains.segments[name] : undefined;
  if (segment) return slash === -1 ? segment.rootRedirect : segment.notFoundRedirect;
  return domains.own?.notFoundRedirect ?? null;
}
