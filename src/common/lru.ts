export interface Entry<T> {
  value: T;
  expires: number;
  /** The value of `writes` when the entry was last (re)inserted. */
  stamp: number;
  /** What `weigh` said the entry costs when it was set (0 without a byte bound). */
  bytes: number;
}

/** A bound on the bytes an Lru holds, each entry weighed once when it is set. */
export interface ByteBound<T> {
  /** The most bytes the entries may weigh together. */
  max: number;
  /** An estimate, from above, of what an entry keeps in memory; O(1) or near it (hot path). */
  weigh: (key: string, value: T) => number;
}

/**
 * A bounded map that forgets its least recently used entries, past `capacity` entries or, with a
 * byte bound, past its bytes. Map order is insertion order, so an entry used again is re-inserted
 * at the end; a hit re-inserts only once the entry has fallen a quarter of the capacity behind (a
 * hot link is then refreshed long before it could reach the front, and the hot path skips a
 * delete and an insert on nearly every hit). Once the entries weigh three quarters of a byte bound,
 * the capacity meant there is the number of entries they are: the bytes may bind long before the
 * entry count does.
 */
export class Lru<T> {
  private readonly map = new Map<string, Entry<T>>();
  private writes = 0;
  private refreshAfter: number;
  private bytes = 0;
  private readonly maxBytes: number;
  /** Past this weight, refreshAfter follows the number of entries (three quarters of maxBytes). */
  private readonly nearlyFull: number;
  private readonly weigh: ((key: string, value: T) => number) | null;

  constructor(
    private readonly capacity: number,
    bound?: ByteBound<T>,
  ) {
    this.refreshAfter = Math.max(1, capacity >> 2);
    this.maxBytes = bound?.max ?? Infinity;
    this.nearlyFull = this.maxBytes * 0.75;
    this.weigh = bound?.weigh ?? null;
  }

  get(key: string, now: number): Entry<T> | undefined {
    const entry = this.map.get(key);
    if (!entry) return undefined;
    if (entry.expires <= now) {
      this.remove(key, entry);
      return undefined;
    }
    if (this.writes - entry.stamp >= this.refreshAfter) {
      this.map.delete(key);
      entry.stamp = ++this.writes;
      this.map.set(key, entry);
    }
    return entry;
  }

  /** Keeps the entry; returns how many others were evicted to make room for it. */
  set(key: string, value: T, ttlMs: number, now: number): number {
    const old = this.map.get(key);
    if (old) this.remove(key, old);
    const bytes = this.weigh === null ? 0 : this.weigh(key, value);
    // An entry that outweighs the whole bound would only empty the map: it is not kept.
    if (bytes > this.maxBytes) return 0;
    this.map.set(key, { value, expires: now + ttlMs, stamp: ++this.writes, bytes });
    this.bytes += bytes;
    let evicted = 0;
    if (this.map.size > this.capacity) {
      this.evictOldest();
      evicted++;
    }
    if (this.bytes > this.nearlyFull) {
      // Each entry is evicted once at most: amortised O(1) per set.
      while (this.bytes > this.maxBytes) {
        this.evictOldest();
        evicted++;
      }
      this.refreshAfter = Math.max(1, Math.min(this.capacity, this.map.size) >> 2);
    }
    return evicted;
  }

  /** Whether `key` is held (expired or not), without touching its recency. */
  has(key: string): boolean {
    return this.map.has(key);
  }

  delete(key: string): void {
    const entry = this.map.get(key);
    if (entry) this.remove(key, entry);
  }

  clear(): void {
    this.map.clear();
    this.bytes = 0;
    this.refreshAfter = Math.max(1, this.capacity >> 2);
  }

  get size(): number {
    return this.map.size;
  }

  /** What the entries weigh together (0 without a byte bound). */
  get weight(): number {
    return this.bytes;
  }

  private remove(key: string, entry: Entry<T>): void {
    this.map.delete(key);
    this.bytes -= entry.bytes;
  }

  private evictOldest(): void {
    const [key, entry] = this.map.entries().next().value!;
    this.remove(key, entry);
  }
}
