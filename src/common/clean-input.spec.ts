import { encodedPairsFlaw, isUtf8Encoded, textFlaw } from './clean-input';

describe('clean input', () => {
  it('finds NUL and unpaired surrogates in decoded text, and accepts pairs and ordinary text', () => {
    expect(textFlaw('a\0b')).toBe('contains a NUL character');
    expect(textFlaw('\ud800')).toBe('contains an unpaired surrogate');
    expect(textFlaw('x\udc00')).toBe('contains an unpaired surrogate');
    expect(textFlaw('\udc00\ud800')).toBe('contains an unpaired surrogate');
    expect(textFlaw('😀 é € \uFFFD')).toBeNull();
    expect(textFlaw('')).toBeNull();
  });

  it('checks percent-encoded (and raw, latin1-read) bytes for UTF-8; a lone % is a literal', () => {
    expect(isUtf8Encoded('%C3%A9%E2%82%AC%F0%9F%98%80')).toBe(true);
    expect(isUtf8Encoded('100%')).toBe(true);
    expect(isUtf8Encoded('%zz')).toBe(true);
    expect(isUtf8Encoded('\xc3\xa9')).toBe(true);
    expect(isUtf8Encoded('%FF')).toBe(false);
    expect(isUtf8Encoded('%C3%28')).toBe(false);
    expect(isUtf8Encoded('%ED%A0%80')).toBe(false);
    expect(isUtf8Encoded('%C0%80')).toBe(false);
    expect(isUtf8Encoded('%E2%82')).toBe(false);
    expect(isUtf8Encoded('\xff')).toBe(false);
  });

  it('names the pair of a query string or form body that is not UTF-8', () => {
    expect(encodedPairsFlaw('v=3&key=abc&url=https%3A%2F%2Fexample.com%2F%C3%A9')).toBeNull();
    expect(encodedPairsFlaw('v=3&channel=%FF&tag=%00')).toEqual({
      name: 'channel',
      flaw: 'is not valid UTF-8',
    });
    expect(encodedPairsFlaw('url%5B%5D=a&url%5B%5D=%C3%28')).toEqual({
      name: 'url[]',
      flaw: 'is not valid UTF-8',
    });
    expect(encodedPairsFlaw('a%FF=1')).toEqual({
      name: 'a%FF',
      flaw: 'is not valid UTF-8',
      inName: true,
    });
    expect(encodedPairsFlaw('a\xff=1')).toEqual({
      name: 'a%FF',
      flaw: 'is not valid UTF-8',
      inName: true,
    });
  });
});
