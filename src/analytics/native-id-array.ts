import { Bytes } from './native-bytes';

/**
 * `Array(UInt64)` of a Native block (native-block.ts): each row's end offset (UInt64, cumulative),
 * then every row's elements, little-endian, one after another. A row is written as its elements
 * already encoded (idsBytes), so a link's ancestors are encoded once per block, not once a click.
 */
export class IdArrayColumn {
  readonly type = 'Array(UInt64)';
  private readonly offsets = new Bytes();
  private readonly elements = new Bytes();
  private end = 0;
  count = 0;

  constructor(readonly name: string) {}

  /** A row: its elements as idsBytes encodes them (8 bytes each). */
  pushEncoded(elements: Uint8Array): void {
    this.elements.bytes(elements);
    this.end += elements.length / 8;
    this.offsets.u64(this.end);
    this.count++;
  }

  clear(): void {
    this.offsets.length = 0;
    this.elements.length = 0;
    this.end = 0;
    this.count = 0;
  }

  /** Where the column stands: the returned function takes it back there. */
  mark(): () => void {
    const [offsets, elements, end, count] = [
      this.offsets.length,
      this.elements.length,
      this.end,
      this.count,
    ];
    return () => {
      this.offsets.length = offsets;
      this.elements.length = elements;
      this.end = end;
      this.count = count;
    };
  }

  get held(): number {
    return this.offsets.buffer.length + this.elements.buffer.length;
  }

  writeTo(out: Bytes): void {
    out.bytes(this.offsets.view);
    out.bytes(this.elements.view);
  }
}

/** UInt64 values written in decimal (link ids) as one row of an IdArrayColumn: 8 bytes each. */
export function idsBytes(decimals: readonly string[]): Buffer {
  const out = Buffer.allocUnsafe(decimals.length * 8);
  decimals.forEach((decimal, i) => out.writeBigUInt64LE(BigInt(decimal), i * 8));
  return out;
}
