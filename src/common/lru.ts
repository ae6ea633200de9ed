export interface Entry<T> {
  value: T;
  expires: number;
  /** The value of `writes` when the entry was last (re)inserted. */
  stamp: number;
}

/**
 * A bounded map that forgets its least recently used entries. Map order is insertion order, so an
 * entry used again is re-inserted at the end; a hit re-inserts only once the entry has fallen a
 * quarter of the capacity behind (a hot link is then refreshed long before it could reach the
 * front, and the hot path skips a delete and an insert on nearly every hit).
 */
export class Lru<T> {
  private readonly map = new Map<string, Entry<T>>();
  private writes = 0;
  private readonly refreshAfter: number;

  constructor(private readonly capacity: number) {
    this.refreshAfter = Math.max(1, capacity >> 2);
  }

  get(key: string, now: number): Entry<T> | undefined {
    const entry = this.map.get(key);
    if (!entry) return undefined;
    if (entry.expires <= now) {
      this.map.delete(key);
      return undefined;
    }
    if (this.writes - entry.stamp >= this.refreshAfter) {
      this.map.delete(key);
      entry.stamp = ++this.writes;
      this.map.set(key, entry);
    }
    return entry;
  }

  set(key: string, value: T, ttlMs: number, now: number): void {
    this.map.delete(key);
    this.map.set(key, { value, expires: now + ttlMs, stamp: ++this.writes });
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }

  /** Whether `key` is held (expired or not), without touching its recency. */
  has(key: string): boolean {
    return this.map.has(key);
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }
}
