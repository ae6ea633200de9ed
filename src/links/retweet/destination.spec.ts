import { retweetDestination, retweetFallback, shareFallback, URL_MAX } from './destination';
import { TEXT_MAX } from './text-links';

describe('retweetDestination', () => {
  const destination = 'https://twitter.example/intent/tweet?text=SVC_TEXT&url=SVC_URL';

  it('keeps the escapes of a caller who double-encoded & and # (Tom%2526Jerry arrives as Tom%26Jerry)', () => {
    expect(retweetDestination(destination, 'Tom%26Jerry %23news', 'http://svc.test/a')).toBe(
      'https://twitter.example/intent/tweet?text=Tom%26Jerry%20%23news&url=http%3A%2F%2Fsvc.test%2Fa',
    );
  });

  it('escapes what a naive caller left bare: space, &, #, + and other characters', () => {
    expect(retweetDestination(destination, 'Tom & Jerry #1 a+b=c é', 'u')).toBe(
      'https://twitter.example/intent/tweet?text=Tom%20%26%20Jerry%20%231%20a%2Bb%3Dc%20%C3%A9&url=u',
    );
  });

  it('escapes a % that starts no escape, and fills SVC_URL before SVC_TEXT', () => {
    expect(retweetDestination(destination, '100% SVC_URL %4', 'L')).toBe(
      'https://twitter.example/intent/tweet?text=100%25%20SVC_URL%20%254&url=L',
    );
  });
});

describe('the text in a retweet destination', () => {
  it('decodes back to the text with the caller’s escapes decoded once', () => {
    for (const text of ['Tom%26Jerry', 'a b&c#d', '%E2%9C%93 ok', '50%', '%%41']) {
      const location = retweetDestination('https://t.example/?text=SVC_TEXT', text, '');
      expect(decodeURIComponent(location.slice('https://t.example/?text='.length))).toBe(
        decodeURIComponent(text.replace(/%(?![0-9A-Fa-f]{2})/g, '%25')),
      );
    }
  });
});

describe('retweetFallback and shareFallback', () => {
  const destination = 'https://t.example/?text=SVC_TEXT&url=SVC_URL';

  it('send the visitor to the destination with the text (and its first link) as given', () => {
    expect(retweetFallback({ destination, text: 'see http://a.example/x & more' })).toBe(
      'https://t.example/?text=see%20http%3A%2F%2Fa.example%2Fx%20%26%20more&url=http%3A%2F%2Fa.example%2Fx',
    );
    expect(shareFallback({ destination, url: 'https://a.example/?q=1' })).toBe(
      'https://t.example/?text=SVC_TEXT&url=https%3A%2F%2Fa.example%2F%3Fq%3D1',
    );
  });

  it('answer null (the error is answered) without a valid destination or with errors not false', () => {
    expect(retweetFallback({ text: 'x' })).toBeNull();
    expect(retweetFallback({ destination: 'javascript:alert(1)', text: 'x' })).toBeNull();
    expect(retweetFallback({ destination, text: 'x', errors: 'TRUE' })).toBeNull();
    expect(retweetFallback({ destination, text: 'x', errors: 'maybe' })).toBeNull();
    expect(retweetFallback({ destination, text: 'x', errors: 'False' })).not.toBeNull();
    expect(shareFallback({ destination: ['a', 'b'], url: 'x' })).toBeNull();
  });

  it('answer null for a text or url the endpoint refuses: over its cap (not scanned), or repeated', () => {
    const long = `http://a.example/${')'.repeat(TEXT_MAX)}`;
    expect(retweetFallback({ destination, text: long })).toBeNull();
    expect(retweetFallback({ destination, text: ['a', 'b'] })).toBeNull();
    expect(retweetFallback({ destination, text: 'x'.repeat(TEXT_MAX) })).not.toBeNull();
    expect(
      shareFallback({ destination, url: `https://a.example/${'a'.repeat(URL_MAX)}` }),
    ).toBeNull();
    expect(retweetFallback({ destination })).toBe('https://t.example/?text=&url=');
  });
});
