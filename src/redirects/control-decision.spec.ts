import type { GeoLookup } from '../enrichment/geo-lookup';
import type { ClickCounts } from './click-counts';
import { ControlDecision, ControlDecider, Visitor } from './control-decision';
import type { LinkTarget, RedirectControls } from './redirect-target';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8)';
const DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0';

/** ClickCounts with a count per link; `pending` makes the first count a promise. */
function fakeCounts(stored: number, pending?: Promise<void>) {
  let own = 0;
  let known = pending === undefined;
  void pending?.then(() => (known = true));
  return {
    counts: {
      count: () => (known ? stored + own : pending!),
      counted: () => (own += 1),
    } as unknown as ClickCounts,
    own: () => own,
  };
}

/** GeoLookup whose database is read on first load (then places by a table). */
function fakeGeo(places: Record<string, string>) {
  let loaded = false;
  const loads = { count: 0 };
  const geo = {
    isLoaded: () => loaded,
    place: (ip: string) => {
      if (!loaded) throw new Error('before load()');
      return places[ip] ? { country: places[ip], region: null, city: null } : null;
    },
    load: () => {
      loads.count += 1;
      return new Promise<void>((resolve) => setTimeout(() => ((loaded = true), resolve()), 5));
    },
  } as unknown as GeoLookup;
  return { geo, loads };
}

const target = (controls: RedirectControls): LinkTarget => ({
  linkId: '1',
  projectId: 'p',
  svcId: 'svc.test_x',
  redirectUrl: 'https://example.com/usual',
  controls,
});
const visitor = (over: Partial<Visitor> = {}): Visitor => ({
  ip: null,
  userAgent: DESKTOP,
  password: 'none',
  counts: true,
  ...over,
});

describe('ControlDecider', () => {
  const { geo } = fakeGeo({});
  const service = (stored = 0) => new ControlDecider(fakeCounts(stored).counts, geo);
  const decide = (controls: RedirectControls, over: Partial<Visitor> = {}, stored = 0) =>
    service(stored).decide(target(controls), controls, visitor(over)) as ControlDecision;

  it('tells iOS and Android by a substring of the user agent (an iPad as a Mac is neither)', () => {
    const ios = 'https://example.com/ios';
    const android = 'https://example.com/a';
    const usual = 'https://example.com/usual';
    const agents = [IPHONE, 'x iPad y', 'x iPod touch', ANDROID, DESKTOP, 'Macintosh; Mac OS X'];
    const urls = agents.map((userAgent) => decide({ ios, android }, { userAgent }));
    expect(urls.map((decision) => (decision.kind === 'redirect' ? decision.url : null))).toEqual([
      ios,
      ios,
      ios,
      android,
      usual,
      usual,
    ]);
  });

  it('disabled, then expiry by time, then the password, then the target', () => {
    const past = Date.now() - 1;
    const future = Date.now() + 60_000;
    const all: RedirectControls = { disabled: true, expiresAt: past, password: 'h' };
    expect(decide(all)).toEqual({ kind: 'missing' });
    expect(decide({ ...all, disabled: undefined })).toEqual({ kind: 'missing' });
    expect(decide({ expiresAt: past, expiredUrl: 'https://example.com/over' })).toEqual({
      kind: 'expired',
      url: 'https://example.com/over',
    });
    expect(decide({ expiresAt: future, password: 'h' })).toEqual({ kind: 'form' });
    expect(decide({ expiresAt: future, password: 'h' }, { password: 'posted' })).toEqual({
      kind: 'check',
      hash: 'h',
    });
    expect(decide({ expiresAt: future, password: 'h' }, { password: 'accepted' })).toEqual({
      kind: 'redirect',
      url: 'https://example.com/usual',
    });
  });

  it('the device targets by user agent, else the usual target', () => {
    const controls: RedirectControls = {
      ios: 'https://example.com/ios',
      android: 'https://example.com/a',
    };
    expect(decide(controls, { userAgent: IPHONE })).toEqual({
      kind: 'redirect',
      url: controls.ios,
    });
    expect(decide(controls, { userAgent: ANDROID })).toEqual({
      kind: 'redirect',
      url: controls.android,
    });
    expect(decide(controls, { userAgent: null })).toEqual({
      kind: 'redirect',
      url: 'https://example.com/usual',
    });
  });

  it('max_clicks: an exhausted link is expired, the form included; below, a counted visit counts at once', () => {
    expect(decide({ maxClicks: 3 }, {}, 3)).toEqual({ kind: 'missing' });
    expect(decide({ maxClicks: 3, password: 'h' }, {}, 3)).toEqual({ kind: 'missing' });
    expect(decide({ maxClicks: 3, password: 'h' }, { password: 'posted' }, 3)).toEqual({
      kind: 'missing',
    });
    const { counts, own } = fakeCounts(1);
    const controls: RedirectControls = { maxClicks: 3 };
    const decider = new ControlDecider(counts, geo);
    const kinds = [true, false, true, true].map(
      (counted) =>
        (
          decider.decide(
            target(controls),
            controls,
            visitor({ counts: counted }),
          ) as ControlDecision
        ).kind,
    );
    // 1 stored + 2 counted reach 3: the uncounted visit (a HEAD, a bot) spent nothing.
    expect(kinds).toEqual(['redirect', 'redirect', 'redirect', 'missing']);
    expect(own()).toBe(2);
  });

  it('visits waiting for the first count let through no more than the limit', async () => {
    let release!: () => void;
    const pending = new Promise<void>((resolve) => (release = resolve));
    const { counts } = fakeCounts(1, pending);
    const controls: RedirectControls = { maxClicks: 3, expiredUrl: 'https://example.com/over' };
    const decider = new ControlDecider(counts, geo);
    const decisions = Array.from({ length: 5 }, () => {
      const decision = decider.decide(target(controls), controls, visitor());
      if (!(decision instanceof Promise)) throw new Error('decided before the count was read');
      return decision;
    });
    release();
    const kinds = (await Promise.all(decisions)).map((d) => d.kind);
    expect(kinds.filter((k) => k === 'redirect')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'expired')).toHaveLength(3);
  });

  it('geo first (the database read once, on the first visit, which waits for it), then the device', async () => {
    const { geo: lazy, loads } = fakeGeo({ '8.8.8.8': 'US', '81.2.69.142': 'GB' });
    const decider = new ControlDecider(fakeCounts(0).counts, lazy);
    const controls: RedirectControls = {
      geo: { US: 'https://example.com/us' },
      ios: 'https://example.com/ios',
    };
    const first = decider.decide(target(controls), controls, visitor({ ip: '8.8.8.8' }));
    expect(first).toBeInstanceOf(Promise);
    await expect(first).resolves.toEqual({ kind: 'redirect', url: 'https://example.com/us' });
    const later = (ip: string, userAgent: string) =>
      decider.decide(target(controls), controls, visitor({ ip, userAgent }));
    expect(later('8.8.8.8', IPHONE)).toEqual({ kind: 'redirect', url: 'https://example.com/us' });
    expect(later('81.2.69.142', IPHONE)).toEqual({
      kind: 'redirect',
      url: 'https://example.com/ios',
    });
    expect(later('192.0.2.1', DESKTOP)).toEqual({
      kind: 'redirect',
      url: 'https://example.com/usual',
    });
    expect(loads.count).toBe(1);
  });
});
