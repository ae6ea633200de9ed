import { extractLinks, replaceLinks } from './text-links';

describe('extractLinks', () => {
  it('finds http:// links with positions, not https:// ones', () => {
    const text =
      'Read http://a.example/x and https://b.example/y?q=1#f, HTTP://c.example/z?q=1#f now';
    expect(extractLinks(text)).toEqual([
      { url: 'http://a.example/x', start: 5, end: 23 },
      { url: 'HTTP://c.example/z?q=1#f', start: 55, end: 79 },
    ]);
  });

  it('leaves sentence punctuation and unbalanced brackets out', () => {
    expect(extractLinks('see http://a.example/x.').map((l) => l.url)).toEqual([
      'http://a.example/x',
    ]);
    expect(extractLinks('(see http://a.example/x)').map((l) => l.url)).toEqual([
      'http://a.example/x',
    ]);
    expect(extractLinks('http://en.example/wiki/A_(b)!').map((l) => l.url)).toEqual([
      'http://en.example/wiki/A_(b)',
    ]);
    expect(extractLinks('"http://a.example/q?x=1",').map((l) => l.url)).toEqual([
      'http://a.example/q?x=1',
    ]);
  });

  it('ignores other schemes and bare hosts', () => {
    expect(extractLinks('ftp://a.example www.b.example http:// mailto:x@y.z')).toEqual([]);
  });

  it('leaves text that looks like a link but is no URL alone: a bad port, escape or punycode label', () => {
    const text =
      'see http://example.com:99999/ and http://foo%zz/ and http://xn--/ then http://ok.example/';
    expect(extractLinks(text)).toEqual([{ url: 'http://ok.example/', start: 71, end: 89 }]);
  });

  it('replaces in order', () => {
    const text = 'a http://x.example/1 b http://y.example/2 c';
    const links = extractLinks(text);
    expect(replaceLinks(text, links, ['L1', 'L2'])).toBe('a L1 b L2 c');
  });
});
