import { AppError } from '../../common/app-error';
import { COUNTRY_CODES } from './country-codes';
import { ControlMode, readLinkControls } from './link-controls';

/** geo as readLinkControls reads it from a request. */
const readGeo = (geo: unknown, mode: ControlMode) => readLinkControls({ geo }, mode).changes.geo;

const NOW = Date.parse('2026-06-01T12:00:00Z');

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error.message;
    throw error;
  }
  throw new Error('not refused');
}

describe('readLinkControls', () => {
  it('reads every control, typed; expires_at to the second', () => {
    const { changes, password } = readLinkControls(
      {
        expires_at: '2026-06-01T12:00:01.900Z',
        max_clicks: '25',
        expired_url: 'https://example.com/over',
        disabled: 'TRUE',
        ios_url: 'https://example.com/ios',
        android_url: 'https://example.com/android',
        geo: '{"de":"https://example.com/de"}',
        password: 'pw',
      },
      'create',
      NOW,
    );
    expect(changes).toEqual({
      expiresAt: new Date('2026-06-01T12:00:01Z'),
      maxClicks: 25,
      expiredUrl: 'https://example.com/over',
      disabled: true,
      iosUrl: 'https://example.com/ios',
      androidUrl: 'https://example.com/android',
      geo: { DE: 'https://example.com/de' },
    });
    expect(password).toBe('pw');
  });

  it('takes UNIX seconds; the current second is no longer the future', () => {
    const seconds = String(NOW / 1000 + 1);
    expect(readLinkControls({ expires_at: seconds }, 'create', NOW).changes.expiresAt).toEqual(
      new Date(NOW + 1000),
    );
    expect(
      refusal(() => readLinkControls({ expires_at: '2026-06-01T12:00:00.999Z' }, 'create', NOW)),
    ).toBe('Invalid parameter expires_at: must be in the future');
  });

  it('leaves out what is not given; on update an empty value removes, on create it is refused', () => {
    expect(readLinkControls({ tag: 'x' }, 'update')).toEqual({ changes: {} });
    expect(
      readLinkControls(
        {
          expires_at: '',
          max_clicks: '',
          expired_url: '',
          ios_url: '',
          android_url: '',
          geo: '',
          password: '',
        },
        'update',
      ),
    ).toEqual({
      changes: {
        expiresAt: null,
        maxClicks: null,
        expiredUrl: null,
        iosUrl: null,
        androidUrl: null,
        geo: null,
      },
      password: null,
    });
    expect(readLinkControls({ geo: '{}', disabled: '0' }, 'update').changes).toEqual({
      geo: null,
      disabled: false,
    });
    for (const name of [
      'expires_at',
      'max_clicks',
      'expired_url',
      'ios_url',
      'android_url',
      'geo',
      'password',
    ])
      expect(refusal(() => readLinkControls({ [name]: '' }, 'create'))).toMatch(
        new RegExp(`^Invalid parameter ${name}: must not be empty`),
      );
    expect(refusal(() => readLinkControls({ disabled: '' }, 'update'))).toBe(
      'Invalid parameter disabled: must be true or false',
    );
  });

  it('refuses values naming the parameter', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ max_clicks: '0' }, 'max_clicks'],
      [{ max_clicks: '2147483648' }, 'max_clicks'],
      [{ max_clicks: ['1', '2'] }, 'max_clicks'],
      [{ expired_url: 'mailto:a@example.com' }, 'expired_url'],
      [{ password: 'p'.repeat(257) }, 'password'],
      [{ geo: { us: 'https://a.example', US: 'https://b.example' } }, 'geo.US'],
      [{ geo: { EU: 'https://a.example' } }, 'geo.EU'],
      [{ geo: { UK: 'https://a.example' } }, 'geo.UK'],
      [{ geo: ['https://a.example'] }, 'geo'],
    ];
    for (const [params, name] of cases)
      expect(refusal(() => readLinkControls(params, 'create'))).toMatch(
        new RegExp(`^Invalid parameter ${name.replace('.', '\\.')}:`),
      );
  });

  it('geo: at most 50 countries and 16 KB, each URL at most 4,096 characters', () => {
    const codes = [...COUNTRY_CODES].slice(0, 51);
    const rules = (n: number, url = 'https://a.example/') =>
      Object.fromEntries(codes.slice(0, n).map((c) => [c, url]));
    expect(Object.keys(readGeo(JSON.stringify(rules(50)), 'create')!)).toHaveLength(50);
    expect(refusal(() => readGeo(JSON.stringify(rules(51)), 'create'))).toBe(
      'Invalid parameter geo: at most 50 countries',
    );
    expect(refusal(() => readGeo(rules(51), 'create'))).toBe(
      'Invalid parameter geo: at most 50 countries',
    );
    // 16,384 bytes of JSON pass, one more does not; a string is weighed before it is parsed.
    const url = (length: number) => `https://a.example/${'p'.repeat(length - 18)}`;
    const exact = JSON.stringify({ US: url(16_384 - '{"US":""}'.length) });
    expect(Buffer.byteLength(exact)).toBe(16_384);
    expect(() => readGeo(exact, 'create')).toThrow('geo.US: must be at most 4096 characters');
    const sized = (bytes: number) => {
      const each = Math.floor((bytes - 2) / 5);
      const parts = codes.slice(0, 5).map((c, i) => {
        const room = (i < 4 ? each : bytes - 2 - 4 * each) - `"${c}":""`.length - (i < 4 ? 1 : 0);
        return [c, url(room)];
      });
      return JSON.stringify(Object.fromEntries(parts));
    };
    expect(Buffer.byteLength(sized(16_384))).toBe(16_384);
    expect(Object.keys(readGeo(sized(16_384), 'create')!)).toHaveLength(5);
    expect(refusal(() => readGeo(sized(16_385), 'create'))).toBe(
      'Invalid parameter geo: must be at most 16384 bytes of JSON',
    );
    // Bytes, not characters: 8,227 characters of which 8,200 take two bytes.
    expect(refusal(() => readGeo(`{"US":"https://a.example/${'é'.repeat(8200)}"}`, 'create'))).toBe(
      'Invalid parameter geo: must be at most 16384 bytes of JSON',
    );
    // An object is weighed as stored.
    expect(refusal(() => readGeo(JSON.parse(sized(16_385)), 'create'))).toBe(
      'Invalid parameter geo: must be at most 16384 bytes of JSON',
    );
    expect(refusal(() => readGeo({ us: url(4097) }, 'create'))).toBe(
      'Invalid parameter geo.us: must be at most 4096 characters',
    );
  });

  it('geo: each code once, kept upper case', () => {
    const codes = ['US', 'DE', 'GB', 'FR', 'XK'];
    expect(
      readGeo(
        JSON.stringify(
          Object.fromEntries(codes.map((c) => [c.toLowerCase(), 'https://a.example/'])),
        ),
        'create',
      ),
    ).toEqual(Object.fromEntries(codes.map((c) => [c, 'https://a.example/'])));
  });
});
