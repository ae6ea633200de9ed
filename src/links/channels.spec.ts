import { normaliseServiceId, serviceForChannel } from './channels';

describe('serviceForChannel', () => {
  it.each([
    ['twitter', 'twitter'],
    ['twitter-message', 'twitter'],
    ['facebook-post', 'facebook'],
    ['facebook-share', 'facebook'],
    ['facebook-send', 'facebook'],
    ['email', 'email'],
    ['copypaste', 'copypaste'],
    ['gplus', 'googleplus'],
    ['pinterest', 'pinterest'],
    ['myapp-button', 'myapp'],
    ['newsletter', 'newsletter'],
    ['Twitter', 'twitter'],
  ])('%s → %s', (channel, service) => {
    expect(serviceForChannel(channel)).toBe(service);
  });

  it('knows the table: a bare numeric id is prefixed for a known channel only', () => {
    expect(normaliseServiceId('123', 'twitter')).toEqual({ ok: true, value: 'twitter:123' });
    expect(normaliseServiceId('123', 'newsletter')).toEqual({
      ok: false,
      reason: 'must be service:id',
    });
  });
});

describe('normaliseServiceId', () => {
  it('accepts service:id matching the channel', () => {
    expect(normaliseServiceId('twitter:123', 'twitter-message')).toEqual({
      ok: true,
      value: 'twitter:123',
    });
  });
  it('refuses another service', () => {
    expect(normaliseServiceId('facebook:123', 'twitter')).toEqual({
      ok: false,
      reason: 'service "facebook" does not match the channel\'s service "twitter"',
    });
  });
  it('prefixes a bare numeric id on a known channel', () => {
    expect(normaliseServiceId('42', 'facebook-post')).toEqual({ ok: true, value: 'facebook:42' });
  });
  it('refuses a bare id on an unknown channel or a non-numeric bare id', () => {
    expect(normaliseServiceId('42', 'newsletter')).toEqual({
      ok: false,
      reason: 'must be service:id',
    });
    expect(normaliseServiceId('bob', 'twitter')).toEqual({
      ok: false,
      reason: 'must be service:id',
    });
  });
  it('refuses empty parts', () => {
    expect(normaliseServiceId('twitter:', 'twitter')).toEqual({
      ok: false,
      reason: 'must be service:id',
    });
    expect(normaliseServiceId(':1', 'twitter')).toEqual({
      ok: false,
      reason: 'must be service:id',
    });
  });
});
