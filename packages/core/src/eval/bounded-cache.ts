/**
 * A bounded cache with least-recently-used eviction, approximated by two generations: entries
 * live in `young` until it holds `capacity` of them, then `young` becomes `old` and the previous
 * old generation is dropped. A hit in `old` moves the entry to `young`. At most 2 × capacity
 * entries are held, each lookup is one or two Map gets, and no entry is moved on a young hit (an
 * exact LRU would delete and re-insert on every hit). Used wherever explain memoises per address,
 * URL or destination: a trace in which every one of them is distinct must not grow memory with
 * its length.
 * @internal
 */
export class BoundedCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError('capacity must be at least 1');
  }

  get(key: K): V | undefined {
    const hit = this.young.get(key);
    if (hit !== undefined) return hit;
    const aged = this.old.get(key);
    if (aged !== undefined) this.set(key, aged);
    return aged;
  }

  set(key: K, value: V): void {
    if (this.young.size >= this.capacity) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }

  /** Entries held (both generations; a key in both counts twice). */
  get size(): number {
    return this.young.size + this.old.size;
  }
}
