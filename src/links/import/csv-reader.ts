/** What one record may hold (docs/api.md, "Importing links": limits). */
export interface CsvLimits {
  /** Characters of one record, quoted line breaks included. */
  maxRecordChars: number;
  maxFields: number;
}

/** A record and the line it starts on (from 1), or the reason that line was refused. */
export type CsvRow = { line: number; fields: string[] } | { line: number; error: string };

type Parsed =
  | { kind: 'record'; fields: string[]; next: number; breaks: number }
  | { kind: 'more' }
  | { kind: 'error'; reason: string; at: number };

const COMMA = 44;
const QUOTE = 34;
const LF = 10;
const CR = 13;

/**
 * An RFC 4180 reader (comma-separated, `"` quotes, `""` inside quotes, LF or CRLF between
 * records, a quoted field may hold line breaks) fed chunk by chunk, in time linear in its input.
 * A malformed record (a quote not closed, text after a closing quote, too long, too many fields)
 * is refused alone: its first line is reported and reading goes on at the next line, where a
 * quoted field may not span lines until past the place the fault was found. So a stray quote
 * costs one line, not the rest of the file, and no text is read more than twice.
 */
export class CsvReader {
  /** Text not yet read, from the start of the next record. */
  private buffer = '';
  /** Offset in the whole input of buffer[0], and the line it is on. */
  private base = 0;
  private line = 1;
  /** Before this offset, a quoted field may not span lines (a fault was found there). */
  private strictUntil = 0;
  /** A record too long is skipped to its line's end, which may not have arrived yet. */
  private skipping = false;
  private started = false;

  constructor(private readonly limits: CsvLimits) {}

  /** The rows the chunk completes. */
  push(chunk: string): CsvRow[] {
    if (!this.started) {
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    this.buffer += chunk;
    return this.drain(false);
  }

  /** The rows left at the end of the input. */
  end(): CsvRow[] {
    return this.drain(true);
  }

  private drain(final: boolean): CsvRow[] {
    const rows: CsvRow[] = [];
    let pos = 0;
    const text = this.buffer;
    for (;;) {
      if (this.skipping) {
        const lf = text.indexOf('\n', pos);
        if (lf === -1) {
          pos = text.length;
          break;
        }
        this.skipping = false;
        pos = lf + 1;
        this.line++;
        continue;
      }
      if (pos >= text.length) break;
      // An empty line holds no record.
      if (text.charCodeAt(pos) === LF) {
        pos++;
        this.line++;
        continue;
      }
      if (text.charCodeAt(pos) === CR && text.charCodeAt(pos + 1) === LF) {
        pos += 2;
        this.line++;
        continue;
      }
      const parsed = this.record(text, pos, final);
      if (parsed.kind === 'more') break;
      if (parsed.kind === 'record') {
        rows.push({ line: this.line, fields: parsed.fields });
        this.line += parsed.breaks;
        pos = parsed.next;
        continue;
      }
      rows.push({ line: this.line, error: parsed.reason });
      this.strictUntil = Math.max(this.strictUntil, this.base + parsed.at);
      const lf = text.indexOf('\n', pos);
      if (lf === -1) {
        // The faulty record's line goes on past what has arrived.
        this.skipping = !final;
        pos = text.length;
        break;
      }
      pos = lf + 1;
      this.line++;
    }
    this.buffer = text.slice(pos);
    this.base += pos;
    return rows;
  }

  /** The record that starts at `start`. */
  private record(text: string, start: number, final: boolean): Parsed {
    const { maxRecordChars, maxFields } = this.limits;
    const limit = start + maxRecordChars;
    const fields: string[] = [];
    let breaks = 0;
    let pos = start;
    for (;;) {
      if (fields.length >= maxFields) {
        return { kind: 'error', reason: `more than ${maxFields} fields`, at: pos };
      }
      let value = '';
      if (text.charCodeAt(pos) === QUOTE) {
        let from = pos + 1;
        let i = from;
        const breaksBefore = breaks;
        for (;;) {
          if (i >= limit) {
            // Past a line break, a quote never closed is the likelier fault.
            const reason =
              breaks > breaksBefore
                ? 'a quoted field is not closed'
                : `longer than ${maxRecordChars} characters`;
            return { kind: 'error', reason, at: i };
          }
          if (i >= text.length) {
            return final
              ? { kind: 'error', reason: 'a quoted field is not closed', at: i }
              : { kind: 'more' };
          }
          const c = text.charCodeAt(i);
          if (c === LF) {
            if (this.base + i < this.strictUntil) {
              return { kind: 'error', reason: 'a quoted field is not closed', at: i };
            }
            breaks++;
          } else if (c === QUOTE) {
            if (i + 1 >= text.length && !final) return { kind: 'more' };
            value += text.slice(from, i);
            if (text.charCodeAt(i + 1) !== QUOTE) break;
            value += '"';
            from = i + 2;
            i++;
          }
          i++;
        }
        pos = i + 1;
        const next = text.charCodeAt(pos);
        if (!(pos >= text.length || next === COMMA || next === LF || next === CR)) {
          return { kind: 'error', reason: 'text after a closing quote', at: pos };
        }
      } else {
        let end = pos;
        while (end < text.length && end < limit) {
          const c = text.charCodeAt(end);
          if (c === COMMA || c === LF || (c === CR && text.charCodeAt(end + 1) === LF)) break;
          end++;
        }
        if (end >= limit) {
          return { kind: 'error', reason: `longer than ${maxRecordChars} characters`, at: limit };
        }
        if (end >= text.length && !final) return { kind: 'more' };
        // A CR at the very end of a chunk may be the first half of CRLF.
        if (end === text.length - 1 && text.charCodeAt(end) === CR && !final)
          return { kind: 'more' };
        value = text.slice(pos, end);
        pos = end;
      }
      fields.push(value);
      if (pos >= text.length) {
        if (!final) return { kind: 'more' };
        return { kind: 'record', fields, next: pos, breaks };
      }
      const c = text.charCodeAt(pos);
      if (c === COMMA) {
        pos++;
        continue;
      }
      if (c === CR) {
        if (pos + 1 >= text.length && !final) return { kind: 'more' };
        if (text.charCodeAt(pos + 1) === LF) pos++;
      }
      return { kind: 'record', fields, next: pos + 1, breaks: breaks + 1 };
    }
  }
}
