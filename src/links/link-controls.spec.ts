import { AppError } from '../common/app-error';
import { readGeo, readLinkControls } from './link-controls';

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

  it('geo: at most 250 countries, each code once', () => {
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
