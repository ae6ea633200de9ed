import { Injectable, Logger } from '@nestjs/common';
import { GeoLookup } from '../enrichment/geo-lookup';
import { ClickCounts } from './click-counts';
import type { LinkTarget, RedirectControls } from './redirect-target';

/** What a link with controls answers (docs/api.md, "Link controls"). */
export type ControlDecision =
  /** A 302 to the target `url` (svc= still to add), counted on GET and on an accepted password. */
  | { kind: 'redirect'; url: string }
  /** Expired with an expired_url: a 302 there, not counted. */
  | { kind: 'expired'; url: string }
  /** Disabled, or expired without an expired_url: the domain's not-found answer, not counted. */
  | { kind: 'missing' }
  /** Protected, no password given (GET, HEAD): the form. */
  | { kind: 'form' }
  /** Protected, a form posted: its password to check against the stored scrypt `hash`. */
  | { kind: 'check'; hash: string };

const MISSING: ControlDecision = { kind: 'missing' };
const FORM: ControlDecision = { kind: 'form' };
/** After the geolocation database failed to load, how long geo targets are skipped before a retry. */
const GEO_RETRY_MS = 60_000;

/** A visitor as the controls see them. */
export interface Visitor {
  ip: string | null;
  userAgent: string | null;
  /** What the visit brings of a password: none (GET, HEAD), a posted form, or one accepted. */
  password: 'none' | 'posted' | 'accepted';
  /** The visit is a counted click if redirected: a GET or an accepted password, not a crawler's. */
  counts: boolean;
}

/** iPhone, iPad or iPod in the user agent: Apple's mobile devices (iPadOS' desktop mode says Macintosh). */
function isIos(userAgent: string): boolean {
  return userAgent.includes('iPhone') || userAgent.includes('iPad') || userAgent.includes('iPod');
}

function isAndroid(userAgent: string): boolean {
  return userAgent.includes('Android');
}

/**
 * Decides a link's answer from its cached controls, in this order: disabled; expired by time; the
 * password (the form or its check, unless expired by counted clicks); then the target — the
 * visitor's country (geo), then the device (ios_url, android_url), else redirect_url — unless
 * expired by counted clicks. Synchronous from the cache, except while the link's first count is
 * read (ClickCounts) or the geolocation database is loaded (the first visit of a link with geo).
 */
@Injectable()
export class ControlDecider {
  private readonly logger = new Logger('ControlDecider');
  private geoFailedAt = -Infinity;

  constructor(
    private readonly counts: ClickCounts,
    private readonly geo: GeoLookup,
  ) {}

  decide(
    target: LinkTarget,
    controls: RedirectControls,
    visitor: Visitor,
  ): ControlDecision | Promise<ControlDecision> {
    if (controls.disabled) return MISSING;
    if (controls.expiresAt !== undefined && Date.now() >= controls.expiresAt)
      return expired(controls);
    if (controls.password !== undefined && visitor.password !== 'accepted') {
      const gate: ControlDecision =
        visitor.password === 'posted' ? { kind: 'check', hash: controls.password } : FORM;
      return this.withinCount(target, controls, gate, false);
    }
    const url = this.targetUrl(target, controls, visitor);
    if (url instanceof Promise) {
      return url.then((known) =>
        this.withinCount(target, controls, redirect(known), visitor.counts),
      );
    }
    return this.withinCount(target, controls, redirect(url), visitor.counts);
  }

  /**
   * `answer`, unless the link has reached max_clicks. A counted visit is counted here, in the same
   * turn as the check, so that one process never lets more visits through than the count allows.
   */
  private withinCount(
    target: LinkTarget,
    controls: RedirectControls,
    answer: ControlDecision,
    counts: boolean,
  ): ControlDecision | Promise<ControlDecision> {
    const max = controls.maxClicks;
    if (max === undefined) return answer;
    const known = this.counts.count(target, max);
    if (known instanceof Promise) {
      return known.then(() => this.withinCount(target, controls, answer, counts));
    }
    if (known >= max) return expired(controls);
    if (counts) this.counts.counted(target.svcId);
    return answer;
  }

  /** The first target that applies: the visitor's country (geo), the device, else redirect_url. */
  private targetUrl(
    target: LinkTarget,
    controls: RedirectControls,
    visitor: Visitor,
  ): string | Promise<string> {
    if (controls.geo !== undefined && visitor.ip !== null) {
      const geo = controls.geo;
      const country = this.country(visitor.ip);
      if (country instanceof Promise) {
        return country.then(
          (known) => byCountry(geo, known) ?? byDevice(target, controls, visitor),
        );
      }
      const url = byCountry(geo, country);
      if (url !== undefined) return url;
    }
    return byDevice(target, controls, visitor);
  }

  /**
   * The visitor's country. The database is read (GeoLookup.load: the file of the address' family)
   * when a link's geo is first applied; the visits meanwhile wait for it. Failing, geo targets are
   * skipped for a minute (the device or redirect_url applies) and the failure logged.
   */
  private country(ip: string): string | null | Promise<string | null> {
    if (this.geo.isLoaded(ip)) return this.geo.place(ip)?.country ?? null;
    if (Date.now() - this.geoFailedAt < GEO_RETRY_MS) return null;
    return this.geo.load([ip]).then(
      () => this.geo.place(ip)?.country ?? null,
      (error: unknown) => {
        this.geoFailedAt = Date.now();
        this.logger.error({ err: error }, 'geolocation database not loaded: geo targets skipped');
        return null;
      },
    );
  }
}

function expired(controls: RedirectControls): ControlDecision {
  return controls.expiredUrl !== undefined
    ? { kind: 'expired', url: controls.expiredUrl }
    : MISSING;
}

function redirect(url: string): ControlDecision {
  return { kind: 'redirect', url };
}

function byCountry(geo: Record<string, string>, country: string | null): string | undefined {
  return country === null ? undefined : geo[country];
}

function byDevice(target: LinkTarget, controls: RedirectControls, visitor: Visitor): string {
  const agent = visitor.userAgent;
  if (agent !== null) {
    if (controls.ios !== undefined && isIos(agent)) return controls.ios;
    if (controls.android !== undefined && isAndroid(agent)) return controls.android;
  }
  return target.redirectUrl;
}
