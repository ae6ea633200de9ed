/**
 * The byte-level pieces of a Native block (native-block.ts): growing byte buffers with the
 * encodings Native uses (little-endian integers, LEB128 counts, length-prefixed strings), rows'
 * positions in a dictionary written at the width the dictionary needs, and a LowCardinality
 * granule's dictionary.
 */

/** Bytes appended into memory that grows by doubling and is kept across blocks (reset, not freed). */
export class Bytes {
  buffer: Buffer;
  length = 0;

  constructor(initial = 1 << 12) {
    this.buffer = Buffer.allocUnsafe(initial);
  }

  ensure(more: number): void {
    const needed = this.length + more;
    if (needed <= this.buffer.length) return;
    const larger = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
    this.buffer.copy(larger, 0, 0, this.length);
    this.buffer = larger;
  }

  u8(value: number): void {
    this.ensure(1);
    this.buffer[this.length++] = value;
  }

  /** A UInt64 (or an Int64 at least 0) from a whole number below 2^53. */
  u64(value: number): void {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new RangeError(`not a whole number from 0 to 2^53: ${value}`);
    this.ensure(8);
    const low = value % 0x1_0000_0000;
    this.buffer.writeUInt32LE(low, this.length);
    this.buffer.writeUInt32LE((value - low) / 0x1_0000_0000, this.length + 4);
    this.length += 8;
  }

  /** LEB128, as Native writes counts and string lengths. */
  varUInt(value: number): void {
    this.ensure(10);
    while (value >= 0x80) {
      this.buffer[this.length++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    this.buffer[this.length++] = value;
  }

  bytes(value: Uint8Array): void {
    this.ensure(value.length);
    this.buffer.set(value, this.length);
    this.length += value.length;
  }

  /** A String: its UTF-8 length, then its bytes. */
  string(value: string): void {
    const size = Buffer.byteLength(value, 'utf8');
    this.varUInt(size);
    this.ensure(size);
    this.length += this.buffer.write(value, this.length, 'utf8');
  }

  /** A String already encoded (its UTF-8 bytes). */
  encodedString(value: Uint8Array): void {
    this.varUInt(value.length);
    this.bytes(value);
  }

  get view(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

/** Positions in a dictionary, one per row, grown as rows arrive; written at the width the dictionary needs. */
export class Positions {
  values = new Uint32Array(1 << 10);
  length = 0;

  push(position: number): void {
    if (this.length === this.values.length) {
      const larger = new Uint32Array(this.values.length * 2);
      larger.set(this.values);
      this.values = larger;
    }
    this.values[this.length++] = position;
  }

  writeTo(out: Bytes, width: 1 | 2 | 4): void {
    out.ensure(this.length * width);
    const { buffer } = out;
    let at = out.length;
    if (width === 1) for (let i = 0; i < this.length; i++) buffer[at++] = this.values[i];
    else if (width === 2)
      for (let i = 0; i < this.length; i++, at += 2) buffer.writeUInt16LE(this.values[i], at);
    else for (let i = 0; i < this.length; i++, at += 4) buffer.writeUInt32LE(this.values[i], at);
    out.length = at;
  }
}

export const LOW_CARDINALITY_VERSION = 1;
/** Flags of a LowCardinality granule whose dictionary is written with it. */
const HAS_ADDITIONAL_KEYS = 1 << 9;
const NEEDS_UPDATE_DICTIONARY = 1 << 10;

/** A dictionary of strings and each row's position in it (a LowCardinality column's values). */
export class Dictionary {
  private readonly positions = new Map<string, number>();
  private readonly keys: string[] = [];
  readonly rows = new Positions();

  constructor(private readonly nullable: boolean) {
    this.clear();
  }

  clear(): void {
    this.positions.clear();
    this.keys.length = 0;
    this.rows.length = 0;
    // The place of null (written as an empty key), then the type's default.
    if (this.nullable) this.keys.push('');
    this.positions.set('', this.keys.length);
    this.keys.push('');
  }

  /** The position of `value` (null: of null, only in a Nullable dictionary). */
  position(value: string | null): number {
    if (value === null) {
      if (!this.nullable)
        throw new TypeError('null in a LowCardinality column that is not Nullable');
      return 0;
    }
    let position = this.positions.get(value);
    if (position === undefined) {
      position = this.keys.length;
      this.keys.push(value);
      this.positions.set(value, position);
    }
    return position;
  }

  /** One granule: flags, the dictionary, the rows' positions. */
  writeTo(out: Bytes): void {
    const count = this.keys.length;
    const width = count <= 0x100 ? 1 : count <= 0x10000 ? 2 : 4;
    const widthCode = width === 1 ? 0 : width === 2 ? 1 : 2;
    out.u64(HAS_ADDITIONAL_KEYS | NEEDS_UPDATE_DICTIONARY | widthCode);
    out.u64(count);
    for (const key of this.keys) out.string(key);
    out.u64(this.rows.length);
    this.rows.writeTo(out, width);
  }
}
