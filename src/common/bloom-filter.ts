/**
 * A Bloom filter of strings: `mightHave` is false only for a key never added (no false negatives),
 * and true for a key never added with about the rate it was sized for, as long as no more than
 * `capacity` keys were added (past it, the rate grows: the owner builds a larger one).
 *
 * Bits in a Uint32Array; the k probes come from two 32-bit hashes of the key's UTF-16 code units
 * (FNV-1a and a multiplicative one, each finished with Murmur3's mix), combined as
 * h1 + i·h2 (Kirsch and Mitzenmacher): one pass over the key, no allocation. Its interface is that
 * of the usual packages (`add`, a membership test), should one replace it.
 */
export class BloomFilter {
  /** Keys added (a key added twice counts twice: the count errs on the side of growing early). */
  count = 0;
  private readonly words: Uint32Array;
  private readonly bitCount: number;
  private readonly probes: number;
  /** The two hashes of the key last hashed (hash). */
  private h1 = 0;
  private h2 = 0;

  constructor(
    readonly capacity: number,
    falsePositiveRate = 0.01,
  ) {
    const n = Math.max(1, Math.ceil(capacity));
    const bits = Math.ceil((-n * Math.log(falsePositiveRate)) / (Math.LN2 * Math.LN2));
    this.words = new Uint32Array(Math.max(2, Math.ceil(bits / 32)));
    this.bitCount = this.words.length * 32;
    this.probes = Math.max(1, Math.round((this.bitCount / n) * Math.LN2));
  }

  /** The memory its bits take. */
  get bytes(): number {
    return this.words.byteLength;
  }

  add(key: string): void {
    this.hash(key);
    for (let i = 0; i < this.probes; i++) {
      const bit = this.probe(i);
      this.words[bit >>> 5] |= 1 << (bit & 31);
    }
    this.count++;
  }

  mightHave(key: string): boolean {
    this.hash(key);
    for (let i = 0; i < this.probes; i++) {
      const bit = this.probe(i);
      if ((this.words[bit >>> 5] & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  /**
   * The key's two hashes (FNV-1a and a multiplicative one, each finalised), kept in fields rather
   * than returned: a lookup on the redirect path allocates nothing.
   */
  private hash(key: string): void {
    let h1 = 0x811c9dc5;
    let h2 = 0x9747b28c;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 + c, 0x5bd1e995) ^ (h2 >>> 15);
    }
    this.h1 = mix(h1);
    this.h2 = mix(h2) | 1;
  }

  /** The bit of the i-th probe of the key last hashed (double hashing). */
  private probe(i: number): number {
    return ((this.h1 + Math.imul(i, this.h2)) >>> 0) % this.bitCount;
  }
}

/** Murmur3's 32-bit finaliser: every input bit reaches every output bit. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
