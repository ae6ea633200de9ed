import { CsvReader, CsvRow } from './csv-reader';

/** The rows of a text fed `size` characters at a time. */
function read(text: string, size = text.length, limits = { maxRecordChars: 50, maxFields: 5 }) {
  const reader = new CsvReader(limits);
  const rows: CsvRow[] = [];
  for (let i = 0; i < text.length; i += size) rows.push(...reader.push(text.slice(i, i + size)));
  rows.push(...reader.end());
  return rows;
}

describe('CsvReader', () => {
  it.each([1, 2, 3, 7, 1000])('reads RFC 4180 records whatever the chunks (%i)', (size) => {
    const text = '\uFEFFa,b\r\n1,"x\r\ny"\n\n"q ""x""",\n"",4';
    expect(read(text, size)).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', 'x\r\ny'] },
      { line: 5, fields: ['q "x"', ''] },
      { line: 6, fields: ['', '4'] },
    ]);
  });

  it.each([1, 4, 1000])('refuses a bad record alone and reads on at its next line (%i)', (size) => {
    const text =
      'a,b\n5,"bad"x,7\n8,9\n10,"never closed\n11,12\n' +
      'z'.repeat(80) +
      ',1\n13,14\n1,2,3,4,5,6\n15,16';
    expect(read(text, size)).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, error: 'text after a closing quote' },
      { line: 3, fields: ['8', '9'] },
      { line: 4, error: 'a quoted field is not closed' },
      { line: 5, fields: ['11', '12'] },
      { line: 6, error: 'longer than 50 characters' },
      { line: 7, fields: ['13', '14'] },
      { line: 8, error: 'more than 5 fields' },
      { line: 9, fields: ['15', '16'] },
    ]);
  });

  it('reads every line after quotes that open at each line in time linear in the input', () => {
    // Each line opens a quote it never closes: a reader that searched to the end of the input
    // from each would take quadratic time; this one reads each line about twice.
    const lines = 20_000;
    const text = Array.from({ length: lines }, (_, i) => `${i},"open`).join('\n');
    const start = process.hrtime.bigint();
    const rows = read(text, 65_536, { maxRecordChars: 16_384, maxFields: 64 });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    expect(rows).toHaveLength(lines);
    expect(rows.every((row) => 'error' in row)).toBe(true);
    expect(rows[lines - 1].line).toBe(lines);
    expect(ms).toBeLessThan(2000);
  });
});
