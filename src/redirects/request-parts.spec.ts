import type { IncomingMessage } from 'node:http';
import {
  decodePath,
  forwardedHeader,
  header,
  hostOf,
  rawHeader,
  rawPathOf,
  trimSlashes,
  withSvc,
} from './request-parts';

/** A request as the listener reads it: its raw headers and its target. */
const request = (rawHeaders: string[], url?: string) =>
  ({ rawHeaders, url }) as unknown as IncomingMessage;

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

  it('matches the whole name only: a longer or shorter name with the same start is another header', () => {
    expect(rawHeader(['Hostname', 'a', 'Hos', 'b'], 'host')).toBeUndefined();
    expect(rawHeader(['Referer', ''], 'referer')).toBe('');
  });

  it('joins repeated X-Forwarded-For headers in order, as Node does in req.headers', () => {
    expect(forwardedHeader(raw)).toBe('203.0.113.7,10.0.0.1');
    expect(forwardedHeader(['X-FORWARDED-FOR', '1.2.3.4, 5.6.7.8'])).toBe('1.2.3.4, 5.6.7.8');
    expect(forwardedHeader(['host', 'a'])).toBeUndefined();
    expect(forwardedHeader(['X-Forwarded-Forx', '1.2.3.4', 'X-Forwarded', '5.6.7.8'])).toBe(
      undefined,
    );
  });
});

describe('header', () => {
  it('is the value, null when absent or empty, cut at 2,048 characters', () => {
    expect(header(request(['Referer', 'https://a.example/']), 'referer')).toBe(
      'https://a.example/',
    );
    expect(header(request(['Referer', '']), 'referer')).toBeNull();
    expect(header(request(['Host', 'svc.test']), 'referer')).toBeNull();
    const long = 'x'.repeat(5000);
    expect(header(request(['User-Agent', long]), 'user-agent')).toBe('x'.repeat(2048));
    expect(header(request(['User-Agent', 'y'.repeat(2048)]), 'user-agent')).toHaveLength(2048);
  });
});

describe('hostOf', () => {
  it('is the Host header in lower case, port kept; empty without one', () => {
    expect(hostOf(request(['Host', 'Go.Example.COM:8080']))).toBe('go.example.com:8080');
    expect(hostOf(request(['host', 'svc.test']))).toBe('svc.test');
    expect(hostOf(request(['User-Agent', 'x']))).toBe('');
  });
});

describe('rawPathOf', () => {
  it('is the request target without its query string, as sent', () => {
    expect(rawPathOf(request([], '/aB3dE9x?utm=1&b=2'))).toBe('/aB3dE9x');
    expect(rawPathOf(request([], '/a%20b/c'))).toBe('/a%20b/c');
    expect(rawPathOf(request([], '/?q'))).toBe('/');
    expect(rawPathOf(request([], '/x?a?b'))).toBe('/x');
    expect(rawPathOf(request([], undefined))).toBe('/');
  });
});

describe('decodePath', () => {
  it('decodes escapes and trims slashes at both ends', () => {
    expect(decodePath('/aB3dE9x')).toBe('aB3dE9x');
    expect(decodePath('//news/aB3/')).toBe('news/aB3');
    expect(decodePath('/%E6%97%A5%E6%9C%AC')).toBe('日本');
    expect(decodePath('/a%2Fb')).toBe('a/b');
    // Escaped slashes at the ends are slashes too once decoded.
    expect(decodePath('/%2F%2Fx%2F')).toBe('x');
    expect(decodePath('/')).toBe('');
    expect(decodePath('')).toBe('');
  });

  it('is null for what does not decode to clean text: a malformed escape, invalid UTF-8, a NUL', () => {
    expect(decodePath('/%')).toBeNull();
    expect(decodePath('/%zz')).toBeNull();
    expect(decodePath('/%E0%A4%A')).toBeNull();
    expect(decodePath('/%C0%AF')).toBeNull(); // an overlong `/`
    expect(decodePath('/%ED%A0%80')).toBeNull(); // a lone surrogate, as UTF-8
    expect(decodePath('/a%00b')).toBeNull();
  });

  it('keeps a path without `%` as it is, trimmed only (`+` is no space in a path)', () => {
    expect(decodePath('/a+b/')).toBe('a+b');
  });
});

describe('trimSlashes', () => {
  it('removes leading and trailing slashes only, and returns the same string when there are none', () => {
    expect(trimSlashes('///')).toBe('');
    expect(trimSlashes('')).toBe('');
    expect(trimSlashes('/a//b/')).toBe('a//b');
    const plain = 'abc';
    expect(trimSlashes(plain)).toBe(plain);
  });
});

describe('withSvc', () => {
  const ID = 'localhost:3000_aB3dE9x';

  it('adds svc=<svc_id>, escaped, keeping the other parameters and the fragment', () => {
    expect(withSvc('https://example.com/p?a=1#top', 'all', ID)).toBe(
      'https://example.com/p?a=1&svc=localhost%3A3000_aB3dE9x#top',
    );
    expect(withSvc('https://example.com/', 'all', 'go.example.com_news_x')).toBe(
      'https://example.com/?svc=go.example.com_news_x',
    );
  });

  it('replaces an svc the URL already has', () => {
    expect(withSvc('https://example.com/?svc=old&b=2', 'all', ID)).toBe(
      'https://example.com/?svc=localhost%3A3000_aB3dE9x&b=2',
    );
  });

  it('only on the listed landing hosts (the URL host compared in lower case)', () => {
    const hosts = ['example.com'];
    expect(withSvc('https://Example.COM/x', hosts, ID)).toBe(
      'https://example.com/x?svc=localhost%3A3000_aB3dE9x',
    );
    expect(withSvc('https://shop.example.com/x', hosts, ID)).toBe('https://shop.example.com/x');
    expect(withSvc('https://example.com.evil.test/', hosts, ID)).toBe(
      'https://example.com.evil.test/',
    );
  });

  it('leaves the URL as it is with conversions off, and when it does not parse', () => {
    const url = 'https://example.com/p?a=1';
    expect(withSvc(url, null, ID)).toBe(url);
    expect(withSvc('not a url', 'all', ID)).toBe('not a url');
  });
});
