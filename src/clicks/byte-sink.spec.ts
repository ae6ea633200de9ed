import { ByteSink } from './byte-sink';

describe('ByteSink', () => {
  it('appends UTF-8 bytes, growing past its first size with what it holds kept, and truncates', () => {
    const sink = new ByteSink(8);
    sink.write('ab\t');
    sink.write('ünïcødé ✓ 🔗\n');
    sink.write('x'.repeat(100));
    const expected = `ab\tünïcødé ✓ 🔗\n${'x'.repeat(100)}`;
    expect(sink.bytes.toString('utf8')).toBe(expected);
    expect(sink.length).toBe(Buffer.byteLength(expected));
    sink.truncate(3);
    sink.write('z');
    expect(sink.bytes.toString('utf8')).toBe('ab\tz');
  });
});
