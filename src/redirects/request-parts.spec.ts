import { forwardedHeader, rawHeader } from './request-parts';

describe('rawHeader', () => {
  const raw = [
    'HOST',
    'Svc.Test',
    'user-agent',
    'UA 1',
    'X-Forwarded-For',
    '203.0.113.7',
    'User-Agent',
    'UA 2',
    'x-forwarded-for',
    '10.0.0.1',
  ];

  it('finds a header whatever the case of its name, the first of repeated ones as Node keeps it', () => {
    expect(rawHeader(raw, 'host')).toBe('Svc.Test');
    expect(rawHeader(raw, 'user-agent')).toBe('UA 1');
    expect(rawHeader(raw, 'referer')).toBeUndefined();
    expect(rawHeader([], 'host')).toBeUndefined();
  });

  it('joins repeated X-Forwarded-For headers in order, as Node does in req.headers', () => {
    expect(forwardedHeader(raw)).toBe('203.0.113.7,10.0.0.1');
    expect(forwardedHeader(['X-FORWARDED-FOR', '1.2.3.4, 5.6.7.8'])).toBe('1.2.3.4, 5.6.7.8');
    expect(forwardedHeader(['host', 'a'])).toBeUndefined();
  });
});
