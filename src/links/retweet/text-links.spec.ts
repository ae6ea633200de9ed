import fc from 'fast-check';
import { isHttpUrl } from '../../common/validators';
import { extractLinks, replaceLinks } from './text-links';

/** The trimming rule as first written: strip punctuation, drop an unmatched closer, repeat (quadratic). */
function byRepeatedTrimming(text: string): { url: string; start: number; end: number }[] {
  const count = (s: string, c: string) => s.split(c).length - 1;
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  const links = [];
  for (const match of text.matchAll(/\bhttp:\/\/[^\s<>"'`]+/gi)) {
    let url = match[0];
    for (;;) {
      const trimmed = url.replace(/[.,;:!?'"»”’]+$/, '');
      const last = trimmed.at(-1);
      if (last && pairs[last] && count(trimmed, last) > count(trimmed, pairs[last])) {
        url = trimmed.slice(0, -1);
        continue;
      }
      url = trimmed;
      break;
    }
    if (/^http:\/\/[^/?#]+/i.test(url) && isHttpUrl(url)) {
      links.push({ url, start: match.index, end: match.index + url.length });
    }
  }
  return links;
}

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

  it('trims nested and interleaved brackets and punctuation as the repeated rule does', () => {
    const cases: [string, string[]][] = [
      ['(http://a.example/x_(y)).', ['http://a.example/x_(y)']],
      ['[http://a.example/{a}]]!?', ['http://a.example/{a}']],
      ['http://a.example/x).]),', ['http://a.example/x']],
      ['http://a.example/(x.)', ['http://a.example/(x.)']],
      ['http://a.example/x»”’', ['http://a.example/x']],
      ['http://a.example/' + ')'.repeat(5) + '.', ['http://a.example/']],
    ];
    for (const [text, urls] of cases) {
      expect(extractLinks(text).map((l) => l.url)).toEqual(urls);
      expect(extractLinks(text)).toEqual(byRepeatedTrimming(text));
    }
  });

  it('finds what the repeated trimming finds, for any text of link-like characters', () => {
    const char = fc.constantFrom(
      ...'http://a.ex/(){}[]).,;:!?»”’ x%_'.split(''),
      'http://',
      'HTTP://b.example',
    );
    fc.assert(
      fc.property(fc.array(char, { maxLength: 60 }), (chars) => {
        const text = chars.join('');
        expect(extractLinks(text)).toEqual(byRepeatedTrimming(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('takes time linear in the text: 400 KB of trailing brackets in well under a second', () => {
    // The repeated rule takes minutes on this (each of the 400,000 steps counts the whole link).
    const text = `http://a.example/${')]}.,'.repeat(80_000)}`;
    const started = performance.now();
    expect(extractLinks(text)).toEqual([
      { url: 'http://a.example/', start: 0, end: 'http://a.example/'.length },
    ]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
