/**
 * A block in ClickHouse's Native format, written column by column as rows arrive: what the embedded
 * engine inserts without parsing text (docs/architecture.md, "How a click flows"). A Native stream
 * as a file holds, per block: the number of columns and of rows (LEB128), then per column its name,
 * its type name and its values, each type in the engine's own binary layout:
 *
 * - `UInt8`, `UInt64`, `DateTime64(3, …)` (Int64 ms): little-endian, one after another;
 * - `UUID`: its two 64-bit halves, each little-endian, the first half first;
 * - `Nullable(String)`: a byte per row (1: null), then each row's string (LEB128 length, bytes),
 *   empty for a null;
 * - `LowCardinality(String)` and `LowCardinality(Nullable(String))`: the keys' serialization version
 *   (UInt64 1), then one granule: its flags (UInt64: the index width, "has additional keys", "needs
 *   the dictionary updated"), the dictionary (UInt64 count, then each key as a String), the rows
 *   (UInt64 count) and each row's position in the dictionary at that width. The dictionary starts
 *   with the type's default (`''`), preceded for a Nullable type by the place of null;
 * - `Array(LowCardinality(String))`: the elements' serialization version, each row's end offset
 *   (UInt64, cumulative), then the elements as one LowCardinality granule (none when no row has an
 *   element);
 * - `Array(UInt64)`: each row's end offset, then the elements (native-id-array.ts).
 *
 * The layouts are the engine's (checked by native-block.spec.ts, which reads blocks back through
 * the embedded engine); a block is written whole before the engine reads it.
 */

import { Bytes, Dictionary, LOW_CARDINALITY_VERSION } from './native-bytes';
import { IdArrayColumn } from './native-id-array';

/** The column types a Native block writes (those of the analytics store's `clicks`). */
export const NATIVE_TYPES = [
  'UInt8',
  'UInt64',
  'UUID',
  "DateTime64(3, 'UTC')",
  'Nullable(String)',
  'LowCardinality(String)',
  'LowCardinality(Nullable(String))',
  'Array(LowCardinality(String))',
  'Array(UInt64)',
] as const;

export type NativeType = (typeof NATIVE_TYPES)[number];

/** A column of a block: its rows so far, and how to write them. */
interface Column {
  readonly name: string;
  readonly type: NativeType;
  /** Rows written so far. */
  readonly count: number;
  clear(): void;
  /** Where the column stands: the returned function takes it back there (keys added since stay, unused). */
  mark(): () => void;
  /** Bytes of memory its values take (what its buffers have grown to). */
  readonly held: number;
  writeTo(out: Bytes): void;
}

/** UInt8, UInt64, UUID, DateTime64(3): fixed-width values. */
export class FixedColumn implements Column {
  private readonly data = new Bytes();
  count = 0;

  constructor(
    readonly name: string,
    readonly type: NativeType,
  ) {}

  u8(value: number): void {
    this.data.u8(value);
    this.count++;
  }

  /** A UInt64 or a DateTime64(3) (ms): a whole number below 2^53. */
  u64(value: number): void {
    this.data.u64(value);
    this.count++;
  }

  /** A UUID from its text (36 characters): parsed straight into the column. */
  uuid(text: string): void {
    this.data.ensure(16);
    writeUuid(text, this.data.buffer, this.data.length);
    this.data.length += 16;
    this.count++;
  }

  /** A value already encoded (uuidBytes, uint64Bytes): written as it is. */
  encoded(value: Uint8Array): void {
    this.data.bytes(value);
    this.count++;
  }

  clear(): void {
    this.data.length = 0;
    this.count = 0;
  }

  mark(): () => void {
    const { length } = this.data;
    const count = this.count;
    return () => {
      this.data.length = length;
      this.count = count;
    };
  }

  get held(): number {
    return this.data.buffer.length;
  }

  writeTo(out: Bytes): void {
    out.bytes(this.data.view);
  }
}

/** Nullable(String): a null map and the strings. */
export class NullableStringColumn implements Column {
  readonly type = 'Nullable(String)';
  private readonly nulls = new Bytes();
  private readonly data = new Bytes();
  count = 0;

  constructor(readonly name: string) {}

  /** A row's value as its UTF-8 bytes (utf8Bytes), or null. */
  push(value: Uint8Array | null): void {
    if (value === null) {
      this.nulls.u8(1);
      this.data.u8(0);
    } else {
      this.nulls.u8(0);
      this.data.encodedString(value);
    }
    this.count++;
  }

  clear(): void {
    this.nulls.length = 0;
    this.data.length = 0;
    this.count = 0;
  }

  mark(): () => void {
    const [nulls, data, count] = [this.nulls.length, this.data.length, this.count];
    return () => {
      this.nulls.length = nulls;
      this.data.length = data;
      this.count = count;
    };
  }

  get held(): number {
    return this.nulls.buffer.length + this.data.buffer.length;
  }

  writeTo(out: Bytes): void {
    out.bytes(this.nulls.view);
    out.bytes(this.data.view);
  }
}

/**
 * LowCardinality(String) or LowCardinality(Nullable(String)). A caller writing many rows of few
 * values takes each value's position once (`position`) and pushes positions (`pushPosition`).
 */
export class LowCardinalityColumn implements Column {
  private readonly dictionary: Dictionary;

  constructor(
    readonly name: string,
    readonly type: 'LowCardinality(String)' | 'LowCardinality(Nullable(String))',
  ) {
    this.dictionary = new Dictionary(type === 'LowCardinality(Nullable(String))');
  }

  get count(): number {
    return this.dictionary.rows.length;
  }

  position(value: string | null): number {
    return this.dictionary.position(value);
  }

  pushPosition(position: number): void {
    this.dictionary.rows.push(position);
  }

  push(value: string | null): void {
    this.dictionary.rows.push(this.dictionary.position(value));
  }

  clear(): void {
    this.dictionary.clear();
  }

  mark(): () => void {
    const rows = this.dictionary.rows.length;
    return () => {
      this.dictionary.rows.length = rows;
    };
  }

  get held(): number {
    return this.dictionary.rows.values.byteLength;
  }

  writeTo(out: Bytes): void {
    out.u64(LOW_CARDINALITY_VERSION);
    this.dictionary.writeTo(out);
  }
}

/** Array(LowCardinality(String)): each row's end offset, and the elements in one dictionary. */
export class LowCardinalityArrayColumn implements Column {
  readonly type = 'Array(LowCardinality(String))';
  private readonly offsets = new Bytes();
  private readonly elements = new Dictionary(false);
  private end = 0;
  count = 0;

  constructor(readonly name: string) {}

  /** The positions of a row's elements (`position` of each). */
  position(value: string): number {
    return this.elements.position(value);
  }

  /** A row: its elements' positions. */
  pushPositions(positions: readonly number[]): void {
    for (const p of positions) this.elements.rows.push(p);
    this.end += positions.length;
    this.offsets.u64(this.end);
    this.count++;
  }

  push(values: readonly string[]): void {
    this.pushPositions(values.map((v) => this.elements.position(v)));
  }

  clear(): void {
    this.offsets.length = 0;
    this.elements.clear();
    this.end = 0;
    this.count = 0;
  }

  mark(): () => void {
    const [offsets, elements, end, count] = [
      this.offsets.length,
      this.elements.rows.length,
      this.end,
      this.count,
    ];
    return () => {
      this.offsets.length = offsets;
      this.elements.rows.length = elements;
      this.end = end;
      this.count = count;
    };
  }

  get held(): number {
    return this.offsets.buffer.length + this.elements.rows.values.byteLength;
  }

  writeTo(out: Bytes): void {
    out.u64(LOW_CARDINALITY_VERSION);
    out.bytes(this.offsets.view);
    if (this.end > 0) this.elements.writeTo(out);
  }
}

export type NativeColumn =
  | FixedColumn
  | NullableStringColumn
  | LowCardinalityColumn
  | LowCardinalityArrayColumn
  | IdArrayColumn;

/** A column of `type` named `name`. */
export function nativeColumn(name: string, type: NativeType): NativeColumn {
  switch (type) {
    case 'Nullable(String)':
      return new NullableStringColumn(name);
    case 'LowCardinality(String)':
    case 'LowCardinality(Nullable(String))':
      return new LowCardinalityColumn(name, type);
    case 'Array(LowCardinality(String))':
      return new LowCardinalityArrayColumn(name);
    case 'Array(UInt64)':
      return new IdArrayColumn(name);
    default:
      return new FixedColumn(name, type);
  }
}

/**
 * A Native block of `columns`: each column written row by row through its writer, then the block
 * as bytes. Cleared and written again, block after block: its memory is kept.
 */
export class NativeBlock {
  private readonly out = new Bytes(1 << 16);

  constructor(readonly columns: readonly NativeColumn[]) {}

  /** Rows written (every column holds as many once a row is done). */
  get rows(): number {
    return this.columns[0]?.count ?? 0;
  }

  clear(): void {
    for (const column of this.columns) column.clear();
    this.out.length = 0;
  }

  /** Where the block stands: the returned function takes every column back there. */
  mark(): () => void {
    const undo = this.columns.map((column) => column.mark());
    return () => {
      for (const back of undo) back();
    };
  }

  /** The block's bytes: valid until the block is cleared or written again. */
  bytes(): Buffer {
    const rows = this.rows;
    for (const column of this.columns) {
      if (column.count !== rows)
        throw new Error(
          `Native block: column ${column.name} has ${column.count} rows, not ${rows}`,
        );
    }
    const out = this.out;
    out.length = 0;
    out.varUInt(this.columns.length);
    out.varUInt(rows);
    for (const column of this.columns) {
      out.string(column.name);
      out.string(column.type);
      column.writeTo(out);
    }
    return out.view;
  }

  /** Bytes of memory it holds: its columns' values and the block's bytes. */
  get capacity(): number {
    return this.columns.reduce((sum, column) => sum + column.held, this.out.buffer.length);
  }
}

/** A hexadecimal digit's value, or -1. */
function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x57;
  return -1;
}

/** A UUID's 16 bytes as a Native `UUID` (each 64-bit half little-endian). */
export function uuidBytes(uuid: string): Buffer {
  const out = Buffer.allocUnsafe(16);
  writeUuid(uuid, out, 0);
  return out;
}

/** A UUID from its text (36 characters) into `buffer` at `at`, each 64-bit half little-endian. */
function writeUuid(text: string, buffer: Buffer, at: number): void {
  if (text.length !== 36) throw new TypeError(`not a UUID: ${text}`);
  let byte = 0;
  for (let i = 0; i < 36;) {
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (text.charCodeAt(i) !== 0x2d) throw new TypeError(`not a UUID: ${text}`);
      i++;
      continue;
    }
    const high = hexValue(text.charCodeAt(i));
    const low = hexValue(text.charCodeAt(i + 1));
    if (high < 0 || low < 0) throw new TypeError(`not a UUID: ${text}`);
    // Each half's bytes in reverse.
    buffer[at + (byte < 8 ? 7 - byte : 23 - byte)] = (high << 4) | low;
    byte++;
    i += 2;
  }
}

/** A UInt64 written in decimal (a link id, a version) as its 8 little-endian bytes. */
export function uint64Bytes(decimal: string): Buffer {
  const out = Buffer.allocUnsafe(8);
  out.writeBigUInt64LE(BigInt(decimal));
  return out;
}

/** A string's UTF-8 bytes (a Nullable(String) value, encoded once for every row that holds it). */
export function utf8Bytes(value: string): Buffer {
  return Buffer.from(value, 'utf8');
}
