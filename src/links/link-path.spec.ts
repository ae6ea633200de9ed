import { isValidCustomPath, randomPath, svcId, svcUrl } from './link-path';

describe('link paths', () => {
  it('generates base62 paths of the asked length', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const path = randomPath();
      expect(path).toMatch(/^[0-9A-Za-z]{7}$/);
      seen.add(path);
    }
    expect(seen.size).toBe(2000);
    expect(randomPath(10)).toMatch(/^[0-9A-Za-z]{10}$/);
  });

  it('validates custom paths', () => {
    expect(isValidCustomPath('spring-sale')).toBe(true);
    expect(isValidCustomPath('a/b')).toBe(true);
    expect(isValidCustomPath('a//b')).toBe(false);
    expect(isValidCustomPath('/a')).toBe(false);
    expect(isValidCustomPath('a b')).toBe(false);
    expect(isValidCustomPath('x'.repeat(201))).toBe(false);
  });

  it('builds svc ids and urls', () => {
    expect(svcId('svc.test', 'aB3')).toBe('svc.test_aB3');
    expect(svcId('svc.test', 'a/b')).toBe('svc.test_a_b');
    expect(svcId('go.example.com_news', 'x1')).toBe('go.example.com_news_x1');
    expect(svcUrl('https', 'svc.test', 'aB3')).toBe('https://svc.test/aB3');
    expect(svcUrl('http', 'go.example.com_news', 'x1')).toBe('http://go.example.com/news/x1');
  });
});
