/**
 * The hashing primitives of coverage's keys (coverage-keys.ts) and the structures that hold them.
 * Host text is hashed right to left, so one pass gives the key of every suffix and of each parent
 * wildcard; keys are mixed 32-bit values, counted per key in a count-min sketch (`KeyCounts`) and
 * listed rule after rule in one flat buffer (`KeyList`), so a large policy allocates no array per rule.
 */
export const HASH_BASE = 0x9e3779b1;

/**
 * The hash of host text `text[from..]`, read right to left (ASCII case-folded; callers fold other
 * text first), so that one pass gives the hash of every suffix: `starred` then gives the key of a
 * parent wildcard `*` + suffix without building it. Keys are the mixed values (`key`).
 */
export function suffixHash(text: string, from: number, to: number, h: number): number {
  for (let i = to - 1; i >= from; i--) {
    let c = text.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32;
    h = (Math.imul(h, HASH_BASE) + c) | 0;
  }
  return h;
}
export const starred = (suffix: number): number => (Math.imul(suffix, HASH_BASE) + 42) | 0;
export const key = (h: number): number => mix(h) | 0;

/** A rule with more keys than this takes part without its lookups being listed (their count is not bounded). */
export const MAX_KEYS = 256;

/** Text beyond ASCII (suffixHash folds ASCII only; readers lower-case such text in different ways). */
export function beyondAscii(text: string): boolean {
  return BEYOND_ASCII.test(text);
}
const BEYOND_ASCII = /[^\u0000-\u007f]/;

export function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A count-min sketch of 32-bit keys: two tables of byte counters (saturating at 255). Keys are
 * hashes already mixed (`key`, `networkHash`), so the tables take the low and the high bits of a
 * key as its two positions, without hashing it again.
 */
export class KeyCounts {
  private readonly a: Uint8Array;
  private readonly b: Uint8Array;
  private readonly mask: number;
  private readonly shift: number;

  constructor(expectedKeys: number) {
    let bits = 10;
    while (bits < 22 && 1 << bits < expectedKeys * 8) bits++;
    this.a = new Uint8Array(1 << bits);
    this.b = new Uint8Array(1 << bits);
    this.mask = (1 << bits) - 1;
    this.shift = 32 - bits;
  }

  add(key: number): void {
    const i = key & this.mask, j = key >>> this.shift;
    if (this.a[i] < 255) this.a[i]++;
    if (this.b[j] < 255) this.b[j]++;
  }

  /** Adds `keys[from]` to `keys[to - 1]` (one call for many rules' keys: one long loop is optimised early). */
  addAll(keys: Int32Array, from: number, to: number): void {
    const a = this.a, b = this.b, mask = this.mask, shift = this.shift;
    for (let n = from; n < to; n++) {
      const key = keys[n], i = key & mask, j = key >>> shift;
      if (a[i] < 255) a[i]++;
      if (b[j] < 255) b[j]++;
    }
  }

  /** At least the number of times `key` was added (more after a collision). */
  count(key: number): number {
    const x = this.a[key & this.mask], y = this.b[key >>> this.shift];
    return x < y ? x : y;
  }
}

/**
 * Key hashes of consecutive rules in one flat, growing list: each rule's keys follow the previous
 * rule's (`next()`), its repeats dropped while it has fewer than 64. No array per rule: a policy
 * of many rules fills one buffer.
 */
export class KeyList {
  private keys = new Int32Array(64);
  /** End of the list. */
  length = 0;
  /** Start of the current rule's keys (`from` to `length`). */
  from = 0;

  push(k: number): void {
    const count = this.length - this.from;
    if (count < 64) for (let i = this.from; i < this.length; i++) if (this.keys[i] === k) return;
    if (this.length === this.keys.length) {
      const grown = new Int32Array(this.keys.length * 2);
      grown.set(this.keys);
      this.keys = grown;
    }
    this.keys[this.length++] = k;
  }

  at(i: number): number {
    return this.keys[i];
  }

  /** The list's storage (replaced as it grows): keys 0 to `length`, for loops that read many. */
  get buffer(): Int32Array {
    return this.keys;
  }

  /** The next rule's keys start after the current rule's. */
  next(): void {
    this.from = this.length;
  }

  /** Drops the current rule's keys. */
  clear(): void {
    this.length = this.from;
  }

  /** Forgets every rule. */
  empty(): void {
    this.length = this.from = 0;
  }

  /** The current rule's keys. */
  current(): number[] {
    return Array.from(this.keys.subarray(this.from, this.length));
  }
}
