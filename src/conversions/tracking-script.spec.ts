import { runInNewContext } from 'node:vm';
import { TRACKING_SCRIPT } from './tracking-script';

interface Page {
  /** The cookies as the browser keeps them: name → raw value. */
  jar: Map<string, string>;
  /** Every Set-Cookie string the script wrote. */
  written: string[];
  /** The URLs the script sent conversions to. */
  beacons: string[];
  svc: {
    convert(goal: string, value: number): boolean;
    session(): { id: string; svc: string } | null;
  };
}

const SESSION = '0b7c6f0e-5a43-4c1e-9d7a-2f1e8c3b4a59';

/** The served script run on a landing page at `search`, with the cookies already set, as a browser would. */
function land(search: string, cookies: Record<string, string> = {}): Page {
  const jar = new Map(Object.entries(cookies));
  const written: string[] = [];
  const beacons: string[] = [];
  const document = {
    currentScript: {
      src: 'https://api.example/svc.js',
      getAttribute: (name: string) => (name === 'data-key' ? 'k'.repeat(64) : null),
    },
    get cookie(): string {
      return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    },
    set cookie(line: string) {
      written.push(line);
      const pair = line.split(';')[0];
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    },
  };
  const window = {
    location: { search, href: `https://shop.example/landing${search}` },
    crypto: { randomUUID: () => SESSION },
    navigator: {
      sendBeacon: (url: string) => {
        beacons.push(url);
        return true;
      },
    },
    svc: undefined as unknown,
  };
  runInNewContext(TRACKING_SCRIPT, { window, document, URLSearchParams });
  return { jar, written, beacons, svc: window.svc as Page['svc'] };
}

/** What a customer's server does with the raw cookie value: split on the first colon. */
function splitRaw(value: string): [string, string] {
  const i = value.indexOf(':');
  return [value.slice(0, i), value.slice(i + 1)];
}

describe('the tracking script’s _svcsession cookie', () => {
  it('writes {session_id}:{svc_id} with the colon as it is', () => {
    const page = land('?svc=svc.test_aB3dE9x');
    expect(page.jar.get('_svcsession')).toBe(`${SESSION}:svc.test_aB3dE9x`);
    expect(splitRaw(page.jar.get('_svcsession')!)).toEqual([SESSION, 'svc.test_aB3dE9x']);
    expect(page.written).toEqual([
      `_svcsession=${SESSION}:svc.test_aB3dE9x; path=/; max-age=2592000; SameSite=Lax`,
    ]);
  });

  it('keeps the colon of a domain with a port and escapes what a cookie value cannot hold', () => {
    expect(land('?svc=127.0.0.1:8080_aB3').jar.get('_svcsession')).toBe(
      `${SESSION}:127.0.0.1:8080_aB3`,
    );
    // A space, ; , " \ and % are escaped (RFC 6265 cookie-octets); the value reads back as given.
    const odd = land(`?svc=${encodeURIComponent('a b;c,d"e\\f%g_é')}`);
    expect(odd.jar.get('_svcsession')).toBe(`${SESSION}:a%20b%3Bc%2Cd%22e%5Cf%25g_%C3%A9`);
    expect(odd.svc.session()).toEqual({ id: SESSION, svc: 'a b;c,d"e\\f%g_é' });
  });

  it('sends the session and the link it read back from the cookie with a conversion', () => {
    const page = land('?svc=svc.test_aB3dE9x');
    expect(page.svc.convert('goal_1', 1999)).toBe(true);
    const sent = new URL(page.beacons[0]);
    expect(`${sent.origin}${sent.pathname}`).toBe('https://api.example/conversions/new');
    expect(Object.fromEntries(sent.searchParams)).toEqual({
      key: 'k'.repeat(64),
      svc_url: 'svc.test_aB3dE9x',
      conversion_type: 'goal_1',
      conversion_value: '1999',
      session_id: SESSION,
      read_headers: 'true',
      href: 'https://shop.example/landing?svc=svc.test_aB3dE9x',
    });
  });

  it('reads a cookie an earlier version wrote (the whole value encoded) and rewrites it, keeping the session', () => {
    const earlier = 'e1d2c3b4-0000-4000-8000-000000000001';
    const old = { _svcsession: encodeURIComponent(`${earlier}:svc.test_aB3dE9x`) };
    expect(old._svcsession).toBe(`${earlier}%3Asvc.test_aB3dE9x`);
    const elsewhere = land('', old);
    expect(elsewhere.svc.session()).toEqual({ id: earlier, svc: 'svc.test_aB3dE9x' });
    expect(elsewhere.written).toEqual([]);
    expect(elsewhere.svc.convert('goal_2', 5)).toBe(true);
    expect(new URL(elsewhere.beacons[0]).searchParams.get('session_id')).toBe(earlier);
    expect(new URL(elsewhere.beacons[0]).searchParams.get('svc_url')).toBe('svc.test_aB3dE9x');
    // Landing again through the same link keeps its session, now written with the colon as it is.
    expect(land('?svc=svc.test_aB3dE9x', old).jar.get('_svcsession')).toBe(
      `${earlier}:svc.test_aB3dE9x`,
    );
    // Through another link, a new session.
    expect(land('?svc=svc.test_other', old).jar.get('_svcsession')).toBe(
      `${SESSION}:svc.test_other`,
    );
  });

  it('ignores a cookie it cannot read instead of failing the page', () => {
    const page = land('', { _svcsession: `${SESSION}:%E0%A4%A` });
    expect(page.svc.session()).toBeNull();
    expect(page.svc.convert('goal_1', 1)).toBe(false);
    expect(page.beacons).toEqual([]);
  });
});
