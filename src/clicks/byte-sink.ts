/**
 * Bytes written one piece after another into memory that is kept: cleared and written again, block
 * after block, rather than allocated afresh. Fresh memory is paid in page faults on its first
 * write, many times the cost of copying into memory already touched (docs/benchmarks.md, "Costs
 * behind the code").
 */
export class ByteSink {
  private buffer: Buffer;
  private used = 0;

  constructor(initialBytes = 1 << 20) {
    this.buffer = Buffer.allocUnsafe(initialBytes);
  }

  get length(): number {
    return this.used;
  }

  /** The bytes of memory it holds (what it has grown to). */
  get capacity(): number {
    return this.buffer.length;
  }

  /** Appends the UTF-8 bytes of `text` (a UTF-16 unit is at most 3 bytes). */
  write(text: string): void {
    const needed = this.used + text.length * 3;
    if (needed > this.buffer.length) {
      const larger = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
      this.buffer.copy(larger, 0, 0, this.used);
      this.buffer = larger;
    }
    this.used += this.buffer.write(text, this.used, 'utf8');
  }

  /** Drops everything written (the memory is kept). */
  clear(): void {
    this.used = 0;
  }

  /** Where the sink stands: the returned function drops what is written after it. */
  mark(): () => void {
    const used = this.used;
    return () => this.truncate(used);
  }

  /** Drops what was written after the first `length` bytes. */
  truncate(length: number): void {
    this.used = Math.min(this.used, length);
  }

  /** The bytes written: a view of the sink's memory, valid until it is truncated or written again. */
  get bytes(): Buffer {
    return this.buffer.subarray(0, this.used);
  }
}
