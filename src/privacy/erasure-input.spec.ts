import { parseErasure } from './erasure-input';
import { addressForms, visitorPairs } from './erasure.service';

describe('parseErasure', () => {
  it('takes exactly one identifier, trimmed', () => {
    expect(parseErasure('{"session_id":" s-1 "}')).toEqual({ kind: 'session_id', value: 's-1' });
    expect(parseErasure({ clicker_id: 'c' })).toEqual({ kind: 'clicker_id', value: 'c' });
    expect(parseErasure({ user_id: 'crm-42' })).toEqual({ kind: 'user_id', value: 'crm-42' });
    expect(parseErasure({ sharer_id: '0B8E6A52-3C1F-4D7E-9A25-6F4C8D1E2B37' })).toEqual({
      kind: 'sharer_id',
      value: '0b8e6a52-3c1f-4d7e-9a25-6f4c8d1e2b37',
    });
  });

  it('takes an address as the service stores it (an IPv4-mapped one as IPv4)', () => {
    expect(parseErasure({ ip: '::ffff:81.2.69.160' })).toEqual({
      kind: 'ip',
      value: '81.2.69.160',
    });
    expect(parseErasure({ ip: '2a00:1450:4001:80b::200e' }).value).toBe('2a00:1450:4001:80b::200e');
  });

  it.each([
    [undefined, 'Missing required parameter: json'],
    ['nope', 'Invalid parameter json: is not valid JSON'],
    ['[]', 'Invalid parameter json: must be a JSON object'],
    [
      {},
      'Invalid parameter json: give exactly one of session_id, clicker_id, ip, sharer_id, user_id',
    ],
    [
      { session_id: 'a', ip: '1.2.3.4' },
      'Invalid parameter json: give exactly one of session_id, clicker_id, ip, sharer_id, user_id (got session_id, ip): one erasure per request',
    ],
    [
      { email: 'a@b.c' },
      'Invalid parameter json.email: not a field of the erasure object (allowed: session_id, clicker_id, ip, sharer_id, user_id)',
    ],
    [{ session_id: '' }, 'Invalid parameter json.session_id: must be a non-empty string'],
    [{ session_id: 7 }, 'Invalid parameter json.session_id: must be a non-empty string'],
    [
      { user_id: 'x'.repeat(256) },
      'Invalid parameter json.user_id: must be at most 255 characters',
    ],
    [{ ip: '81.2.69' }, 'Invalid parameter json.ip: must be an IPv4 or IPv6 address'],
    [{ sharer_id: 'bob' }, 'Invalid parameter json.sharer_id: must be a user id (a UUID)'],
  ])('refuses %j naming the parameter', (json, message) => {
    expect(() => parseErasure(json)).toThrow(message);
  });
});

describe('addressForms and visitorPairs', () => {
  it('an address as given and anonymised (its /24, its /48), each once', () => {
    expect(addressForms('81.2.69.160')).toEqual(['81.2.69.160', '81.2.69.0']);
    expect(addressForms('81.2.69.0')).toEqual(['81.2.69.0']);
    expect(addressForms('2a00:1450:4001:080b:0:0:0:200e')).toEqual([
      '2a00:1450:4001:080b:0:0:0:200e',
      '2a00:1450:4001:80b::200e',
      '2a00:1450:4001::',
    ]);
  });

  it('pairs each stored address form with the user agent; records without both give none', () => {
    expect(
      visitorPairs([
        { id: '1', redirection_id: null, ip: '81.2.69.160', user_agent: 'UA' },
        { id: '2', redirection_id: null, ip: '81.2.69.160', user_agent: 'UA' },
        { id: '3', redirection_id: null, ip: null, user_agent: 'UA' },
        { id: '4', redirection_id: null, ip: '1.2.3.4', user_agent: null },
      ]),
    ).toEqual([
      ['81.2.69.160', 'UA'],
      ['81.2.69.0', 'UA'],
    ]);
  });
});
