import { parseQueryString } from './query-parser';

describe('parseQueryString', () => {
  it('reads no query as no parameters', () => {
    expect(parseQueryString(undefined)).toEqual({});
    expect(parseQueryString(null)).toEqual({});
    expect(parseQueryString('')).toEqual({});
  });

  it('keeps more than 20 name[] values an array, in order', () => {
    const values = Array.from({ length: 150 }, (_, i) => `u${i}`);
    expect(parseQueryString(values.map((v) => `url[]=${v}`).join('&'))).toEqual({ url: values });
  });

  it('reads a lone far index as an object, not a sparse array', () => {
    expect(parseQueryString('url[5000]=x')).toEqual({ url: { 5000: 'x' } });
  });

  it('drops pairs without a name at once, however many (qs combined them quadratically)', () => {
    expect(parseQueryString('&&a=1&=x&&b[]=2&=&')).toEqual({ a: '1', b: ['2'] });
    const started = performance.now();
    expect(parseQueryString(`a=1${'&'.repeat(200_000)}${'&=x'.repeat(50_000)}`)).toEqual({
      a: '1',
    });
    // Linear work takes milliseconds here; combining the 50,000 nameless pairs pairwise, many seconds.
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
