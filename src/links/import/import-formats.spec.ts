import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { CsvReader } from './csv-reader';
import { ImportFormat, ImportLine, csvLayout, csvLink, kuttLinks } from './import-formats';

/** The fixtures (test/fixtures/import/README.md says where each file's columns come from). */
const fixture = (name: string) =>
  readFileSync(path.join(__dirname, '../../../test/fixtures/import', name), 'utf8');

/** A CSV fixture's lines as links, as LinkImportService reads them. */
function csvLines(format: Exclude<ImportFormat, 'kutt'>, text: string): ImportLine[] {
  const reader = new CsvReader({ maxRecordChars: 16_384, maxFields: 64 });
  const rows = [...reader.push(text), ...reader.end()];
  const [header, ...rest] = rows;
  if (!('fields' in header)) throw new Error('no header');
  const layout = csvLayout(format, header.fields);
  const data = layout.firstIsData ? rows : rest;
  return data.map((row) =>
    'error' in row
      ? { line: row.line, reason: row.error }
      : csvLink(format, layout, row.line, row.fields),
  );
}

const at = (iso: string) => new Date(iso);

describe('import formats', () => {
  it('reads a Shlink export: short code and domain, title, tags, visits', () => {
    expect(csvLines('shlink', fixture('shlink.csv'))).toEqual([
      {
        line: 2,
        url: 'https://shop.example.com/spring',
        path: 'spring-sale',
        domain: 'go.example.com',
        title: 'Spring sale',
        tags: ['promo', '2023'],
        createdAt: at('2023-03-14T09:26:53Z'),
        clicks: 1520,
      },
      {
        line: 3,
        url: 'https://docs.example.com/',
        path: 'docs',
        domain: 'go.example.com',
        title: 'Docs, "v2" edition',
        tags: [],
        createdAt: at('2023-03-15T09:00:00Z'),
        clicks: 0,
      },
      expect.objectContaining({ line: 4, path: 'bad code' }),
      expect.objectContaining({ line: 5, path: 'team/blog', title: 'Blog\n(two lines)' }),
      expect.objectContaining({ line: 7, url: 'ftp://files.example.com/a' }),
    ]);
  });

  it('reads the yourls_url table with its header; its ip column is never read', () => {
    const lines = csvLines('yourls', fixture('yourls.csv'));
    expect(lines[0]).toEqual({
      line: 2,
      url: 'https://ozh.org/',
      path: 'ozh',
      domain: undefined,
      title: 'ozh.org',
      tags: [],
      createdAt: at('2023-01-05T14:22:10Z'),
      clicks: 42,
    });
    expect(JSON.stringify(lines)).not.toContain('192.0.2.10');
    expect(lines[4]).toEqual({
      line: 6,
      reason: 'created_at: must be a date (YYYY-MM-DD), a timestamp (ISO 8601) or UNIX seconds',
    });
    expect(lines).toHaveLength(6);
  });

  it('reads the yourls_url table dumped without a header, in its column order', () => {
    const text = fixture('yourls.csv').split('\r\n').slice(1).join('\r\n');
    const lines = csvLines('yourls', text);
    expect(lines[0]).toEqual(expect.objectContaining({ line: 1, path: 'ozh', clicks: 42 }));
    expect(lines).toHaveLength(6);
  });

  it('reads a Bitly export: the short link gives domain and path, a bad count is refused', () => {
    expect(csvLines('bitly', fixture('bitly.csv'))).toEqual([
      {
        line: 2,
        url: 'https://www.example.com/pricing',
        path: '3xYzAbC',
        domain: 'bit.ly',
        title: 'Pricing',
        tags: ['marketing', 'q1'],
        createdAt: at('2023-02-01T12:30:00Z'),
        clicks: 250,
      },
      expect.objectContaining({ line: 3, path: 'spring23', clicks: 18 }),
      { line: 4, reason: 'clicks: -4 is not a count' },
      { line: 5, reason: 'no URL to redirect to' },
    ]);
  });

  it("reads Kutt's JSON lines: an API answer's data, a single link, a line that is no JSON", () => {
    const lines = fixture('kutt.jsonl')
      .split('\n')
      .flatMap((text, i) => (text.trim() === '' ? [] : kuttLinks(i + 1, text)));
    expect(lines).toEqual([
      {
        line: 1,
        item: 0,
        url: 'https://example.com/one',
        path: 'kt1',
        domain: 'kt.example.com',
        title: 'First',
        tags: [],
        createdAt: at('2023-05-01T10:00:00Z'),
        clicks: 11,
      },
      expect.objectContaining({ line: 1, item: 1, url: 'not a url', path: 'kt2' }),
      expect.objectContaining({ line: 2, path: 'kt3', domain: 'kt.example.com', clicks: 0 }),
      { line: 3, reason: 'not JSON' },
    ]);
  });

  it("reads svc's CSV", () => {
    expect(csvLines('csv', fixture('generic.csv'))[0]).toEqual({
      line: 2,
      url: 'https://example.com/a',
      path: 'a',
      domain: 'cs.example.com',
      title: 'Page A',
      tags: ['x', 'y'],
      createdAt: at('2024-01-02T03:04:05Z'),
      clicks: 9,
    });
  });

  it('refuses a file whose header is not the format’s, naming the columns it lacks', () => {
    expect(() => csvLayout('shlink', ['url', 'path'])).toThrow(
      'Invalid parameter file: its first line names no column longurl, shortcode: not a shlink file',
    );
  });

  it('refuses a NUL, too many tags, a tag too long', () => {
    const layout = csvLayout('csv', ['url', 'path', 'tags']);
    expect(csvLink('csv', layout, 2, ['https://e.com/\0', 'p', ''])).toEqual({
      line: 2,
      reason: 'contains a NUL character',
    });
    const many = Array.from({ length: 51 }, (_, i) => `t${i}`).join('|');
    expect(csvLink('csv', layout, 3, ['https://e.com/', 'p', many])).toEqual({
      line: 3,
      reason: 'tags: more than 50',
    });
    expect(csvLink('csv', layout, 4, ['https://e.com/', 'p', 'x'.repeat(256)])).toEqual({
      line: 4,
      reason: 'tags: each must be at most 255 characters',
    });
  });
});
